"""Counting lynch-type votes (§6.6) and their tie rules (§6.7, §6.8): ballots by team."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.core.view import JsonValue
from rules.mafia import status
from rules.mafia.ids import Step, Team
from rules.mafia.state import Ballot, GameState


@dataclass(frozen=True)
class Count:
    """The ballots of a vote (arrival order, auto-votes last) and each named player's total."""

    ballots: tuple[Ballot, ...]
    totals: dict[str, int]
    auto: tuple[str, ...]

    def first_ballot(self, name: str) -> int:
        """The arrival index of the first ballot naming ``name`` (large when none)."""
        for index, ballot in enumerate(self.ballots):
            if name in ballot.targets:
                return index
        return len(self.ballots)

    def ballots_form(self) -> dict[str, JsonValue]:
        """voter -> target (the hunt: voter -> list), for the public event (§6.5)."""
        form: dict[str, JsonValue] = {}
        for ballot in self.ballots:
            form[ballot.voter] = (
                ballot.targets[0] if len(ballot.targets) == 1 else [*ballot.targets]
            )
        return form


def count(state: GameState, asked: Sequence[str], *, auto_votes: bool) -> Count:
    """Collect the ballots in force, then the auto-votes of the asked who sent none (§6.5).

    Every ballot weighs 1 in the core game: the weight, barrier and cap stages of §6.6 have no
    source without the optional roles.  An auto-vote against a player who may not be voted
    against today counts nothing (he is listed in ``auto`` only).
    """
    cast = [Ballot(v.player, v.targets) for v in state.votes if v.group == "vote" and v.targets]
    voters = {v.player for v in state.votes if v.group == "vote"}
    auto: list[str] = []
    if auto_votes:
        for name in asked:
            if name not in voters and state.get(name).alive:
                auto.append(name)
                if status.may_be_lynched(state, name):
                    cast.append(Ballot(name, (name,), auto=True))
    totals: dict[str, int] = {}
    for ballot in cast:
        for target in ballot.targets:
            totals[target] = totals.get(target, 0) + 1
    seat = {p.name: i for i, p in enumerate(state.players)}
    ordered = dict(sorted(totals.items(), key=lambda item: seat[item[0]]))
    return Count(tuple(cast), ordered, tuple(auto))


def top(totals: dict[str, int]) -> tuple[str, ...]:
    """The players with the highest total above 0."""
    best = max(totals.values(), default=0)
    return tuple(name for name, total in totals.items() if total == best) if best > 0 else ()


def _team(state: GameState, name: str) -> Team:
    return state.get(name).team


def grey_tie_break(state: GameState, result: Count, pair: tuple[str, str]) -> str | None:
    """§6.7 point 2: the grey correction between exactly two tied players, or None."""
    red = [b for b in result.ballots if _team(state, b.voter) is Team.RED]
    dark = [b for b in result.ballots if _team(state, b.voter) is not Team.RED]
    for x, y in (pair, pair[::-1]):
        if red and all(b.targets == (x,) for b in red) and all(b.targets == (y,) for b in dark):
            return x
    reds, blacks = status.counts(state)
    if reds == blacks:  # + the living Faceless, who is not in the core game
        weight = {name: sum(1 for b in red if name in b.targets) for name in pair}
        if weight[pair[0]] != weight[pair[1]]:
            return max(pair, key=lambda name: weight[name])
        firsts = [
            (index, name)
            for index, ballot in enumerate(result.ballots)
            if ballot in red
            for name in ballot.targets
            if name in pair
        ]
        if firsts:
            return min(firsts)[1]
    return None


def revote_result(state: GameState, result: Count, targets: tuple[str, ...]) -> tuple[str, ...]:
    """§6.7 point 4: who a revote lynches (a revote never leads to another)."""
    best = top(result.totals)
    if len(best) == 1:
        return best
    tied = best or targets
    if len(tied) == 2:
        pair = (tied[0], tied[1])
        chosen = grey_tie_break(state, result, pair)
        if chosen is not None:
            return (chosen,)
        return pair if status.counts(state)[1] > 2 else ()
    voted = sorted((result.first_ballot(name), name) for name in tied if name in result.totals)
    return tuple(name for _, name in voted[:2])


def hunt_result(state: GameState, result: Count) -> tuple[str, ...]:
    """§6.8: the two players a hunt lynches (the red correction first)."""
    reds = {p.name for p in state.living if not p.is_black}
    red_names = [set(b.targets) for b in result.ballots if b.voter in reds]
    qualified = [
        p.name
        for p in state.living
        if p.is_black and len(red_names) == len(reds) and all(p.name in n for n in red_names)
    ]

    def rank(name: str) -> tuple[int, int]:
        return (-result.totals.get(name, 0), result.first_ballot(name))

    chosen = sorted(qualified, key=rank)[:2]
    rest = sorted((n for n in result.totals if n not in chosen), key=rank)
    chosen += rest[: 2 - len(chosen)]
    seat = {p.name: i for i, p in enumerate(state.players)}
    return tuple(sorted(chosen, key=seat.__getitem__))


def is_lynch_vote(step: str) -> bool:
    """Whether ``step`` is a lynch-type vote with auto-votes (§6.5)."""
    return step in (Step.LYNCH, Step.EXTRA_VOTE)
