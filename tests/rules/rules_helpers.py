"""Small builders for rules tests: games from role lists, votes, stepping."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules import Rejected, Seat, Settings, Vote, get_ruleset
from rules.wakkerdam.state import GameState

RS = get_ruleset("wakkerdam")


def game(
    roles: Mapping[str, str], *, mayor: bool = False, strictness: int = 99, seed: int = 1
) -> GameState:
    """Return a new game with these players (name -> role) in this seat order."""
    seats = [Seat(name=name, role=role) for name, role in roles.items()]
    state: GameState = RS.new_game(
        seats, Settings(seed=seed, options={"mayor": mayor}, strictness=strictness)
    )
    return state


def vote(state: GameState, player: str, *targets: str, keyword: str = "") -> GameState:
    """Return the state with a valid vote; fails the test when it is rejected."""
    verdict = RS.apply(
        state, Vote(player, tuple(targets), not targets, frozenset({keyword} - {""}))
    )
    assert not isinstance(verdict, Rejected), verdict
    new_state: GameState = verdict.state
    return new_state


def rejection(state: GameState, player: str, *targets: str, keyword: str = "") -> str:
    """Return the rejection code of a vote (``""`` when it is accepted)."""
    verdict = RS.apply(
        state, Vote(player, tuple(targets), not targets, frozenset({keyword} - {""}))
    )
    return verdict.code if isinstance(verdict, Rejected) else ""


def step(
    state: GameState, votes: Mapping[str, Sequence[str]] | None = None
) -> tuple[GameState, list[dict[str, object]]]:
    """Cast ``votes`` (``"Name:kw"`` keys allowed), resolve; return the new state and events."""
    for key, targets in (votes or {}).items():
        name, _, keyword = key.partition(":")
        state = vote(state, name, *targets, keyword=keyword)
    resolution = RS.resolve(state)
    return resolution.state, [event.to_dict() for event in resolution.events]
