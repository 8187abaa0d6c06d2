"""Property tests of the Mafia engine: random games with random and invalid votes.

Each game deals a default distribution (docs/rules/mafia.md §11.2) with a random seed, plays a
random number of steps with votes built from ``choices`` (valid ones, blanks, and deliberately
invalid ones: strangers, dead names, votes from players who are not asked, unknown keywords), then
lets everybody miss every vote, which must end the game within a bounded number of steps
(inactivity, §5.5).  Every step is checked against the spec: who may act, the causes of death,
the numbering of §4, the events' types and audiences; the whole game must replay from its seed
and votes to the same transcript, and every state must survive dump/load.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Accepted, Rejected, Settings, Vote, get_ruleset
from rules.core.events import AudienceKind
from rules.mafia.state import GameState
from tests.spec_ids_mafia import CAUSES, EVENTS, KEYWORDS, REASONS, STEPS

RS = get_ruleset("mafia")
NAMES = (
    "Anna", "Bea", "Cora", "Dora", "Ed", "Fay", "Gus", "Hal", "Ivy", "Jan", "Kim", "Lea",
    "Max", "Nora", "Otto", "Pia", "Quin", "Rosa", "Sam", "Tom",
)  # fmt: skip
STRANGER = "Nobody"
MAX_STEPS = 400
# docs/rules/mafia.md §2: the optional peaceful roles this engine implements.
OPTIONAL_PEACEFUL = (
    *("judge", "witness", "hacker", "journalist", "immortal", "criminalist", "bodyguard"),
    *("politician", "prostitute", "terrorist", "priest", "hypnotist"),
    *("kamikaze", "madman"),
    *("drug_dealer", "liar", "advocate", "inquisitor", "hero", "fanatic", "bum", "cultist"),
)
# docs/rules/mafia.md §2: the optional werewolves this engine implements (§16).
WEREWOLVES = ("joker", "poisoner", "executor", "geisha")
ELITE = ("agent", "mason")
DAY_STEPS = frozenset(STEPS - {"night"})
# Events a dead player may still receive: none is private to the dead (§7.11), public ones aside.
PUBLIC = frozenset(
    {
        "setup",
        "mayor",
        "no_mayor",
        "election_tie",
        "secretary",
        "mayor_lost",
        "secretary_lost",
        "vote_start",
    }
    | {"lynch", "revote", "death", "public_result", "draw", "win", "hero_save"}
    | {"explosion", "detonator", "forgiven", "destroyed", "agent_left", "slash", "faceless_left"}
)


@dataclass(frozen=True)
class Game:
    """A played game: its setup, the votes cast per step, and the transcript lines."""

    seats: tuple[Any, ...]
    settings: Settings
    script: tuple[tuple[Vote, ...], ...]
    lines: tuple[dict[str, Any], ...]


def _random_vote(rng: random.Random, state: GameState, name: str) -> Vote:
    """A vote of ``name``: mostly built from his choices, sometimes deliberately wrong."""
    choices = RS.choices(state, name)
    players = [p.name for p in state.players]
    if not choices.actions or rng.random() < 0.1:
        keyword = rng.choice([None, rng.choice(sorted(KEYWORDS)), "nonsense"])
        targets = tuple(rng.sample([*players, STRANGER], k=rng.randint(0, 2)))
        return Vote(name, targets, not targets, frozenset({keyword}) if keyword else frozenset())
    action = rng.choice(choices.actions)
    keywords = frozenset({action.keyword}) if action.keyword else frozenset()
    pool = list(action.targets) or (["0.5", "1", "2.5"] if action.action == "buy" else players)
    if rng.random() < 0.1:
        pool = players  # the dead, the untouchable, himself: rejections the spec lists
    count = rng.randint(action.min_names, max(action.min_names, action.max_names))
    targets = tuple(rng.sample(pool, k=min(count, len(pool))))
    return Vote(name, targets, not targets, keywords)


def play(n_players: int, seed: int, mayor: bool, strictness: int, chaos: int) -> Game:
    """Deal a default distribution and play until the end, checking every step."""
    distribution = RS.pick_distribution(n_players, seed)
    seats = RS.deal(NAMES[:n_players], distribution, seed)
    citizens = [i for i, seat in enumerate(seats) if seat.role.startswith("citizen")]
    # A random set of the implemented optional peaceful roles replaces citizens.
    optionals = random.Random(chaos).sample(OPTIONAL_PEACEFUL, k=min(len(citizens), chaos % 5))
    for index, optional in zip(citizens, optionals, strict=False):
        role = seats[index].role.replace("citizen", optional, 1)
        seats = (*seats[:index], replace(seats[index], role=role), *seats[index + 1 :])
    mafia = [i for i, seat in enumerate(seats) if seat.role.endswith("+mafia")]
    if chaos % 3 == 0 and len(mafia) >= 2:  # the optional Son of the Boss (§16.1)
        index = mafia[0]
        role = seats[index].role.replace("+mafia", "+son_of_boss")
        seats = (*seats[:index], replace(seats[index], role=role), *seats[index + 1 :])
    citizens = [i for i, seat in enumerate(seats) if seat.role == "citizen"]
    werewolves = random.Random(chaos + 1).sample(WEREWOLVES, k=min(len(citizens), chaos % 3))
    for index, werewolf in zip(citizens, werewolves, strict=False):  # optional werewolves (§16)
        seats = (*seats[:index], replace(seats[index], role=werewolf), *seats[index + 1 :])
    citizens = [i for i, seat in enumerate(seats) if seat.role == "citizen"]
    if chaos % 5 == 2 and citizens:  # the Faceless (§16.6)
        index = citizens[0]
        seats = (*seats[:index], replace(seats[index], role="faceless"), *seats[index + 1 :])
    if chaos % 4 == 1 and n_players + 2 <= len(NAMES):  # the elite players (§17)
        extra = [replace(seats[0], name=NAMES[n_players + i], role=r) for i, r in enumerate(ELITE)]
        seats = (*seats, *extra)
    game_settings = Settings(seed=seed, strictness=strictness, options={"mayor": mayor})
    state: GameState = RS.new_game(seats, game_settings)
    rng = random.Random(chaos)
    random_steps = rng.randint(0, 40)
    script: list[tuple[Vote, ...]] = []
    lines: list[dict[str, Any]] = []
    for index in range(MAX_STEPS):
        if state.is_over:
            break
        votes: list[Vote] = []
        if index < random_steps:
            for name in RS.asked(state):
                for _ in range(rng.randint(0, 3)):
                    votes.append(_random_vote(rng, state, name))
            dead = [p.name for p in state.players if not p.alive]
            if dead and rng.random() < 0.3:
                votes.append(_random_vote(rng, state, rng.choice(dead)))
        before = state
        for vote in votes:
            verdict = RS.apply(state, vote)
            check_verdict(before, vote, verdict)
            if isinstance(verdict, Accepted):
                state = verdict.state
        resolution = RS.resolve(state)
        check_step(state, resolution.state, resolution.events)
        check_round_trip(resolution.state)
        script.append(tuple(votes))
        lines.append(
            {
                "step": state.step,
                "asked": list(RS.asked(state)),
                "events": [event.to_dict() for event in resolution.events],
            }
        )
        state = resolution.state
    assert state.is_over, "the game did not end once everybody stopped voting"
    check_end(state)
    return Game(tuple(seats), game_settings, tuple(script), tuple(lines))


def check_verdict(state: GameState, vote: Vote, verdict: Accepted[GameState] | Rejected) -> None:
    """A refusal has a code of §5.3; the dead, strangers and the unasked are always refused."""
    player = state.find(vote.player)
    if isinstance(verdict, Rejected):
        assert verdict.code in REASONS, verdict
        return
    assert player is not None, f"a stranger's vote was accepted: {vote}"
    assert player.alive or state.step == "last_moves", f"a dead player's vote was accepted: {vote}"
    assert vote.player in RS.asked(state), f"an unasked player's vote was accepted: {vote}"
    assert STRANGER not in vote.targets, f"a stranger was accepted: {vote}"


def check_step(before: GameState, after: GameState, events: Sequence[Any]) -> None:
    """Deaths, numbering (§4), event types and audiences (§13.3) of one resolved step."""
    view = RS.view(before)
    assert view.step in STEPS
    if view.step == "night":
        assert view.night == view.day >= 1
    else:
        assert view.day == view.night + 1
    asked = RS.asked(before)
    # The dead act only in `last_moves`, the lynched players' death-time moves (§6.9, §8.2).
    if view.step != "last_moves":
        assert all(before.get(name).alive for name in asked), "a dead player was asked"
    else:
        assert all(before.get(name).cause == "lynch" for name in asked), "a non-lynched mover"
    assert list(asked) == [p.name for p in before.players if p.name in asked], "not seat order"
    alive_before = {p.name for p in before.players if p.alive}
    dead_so_far: set[str] = set()
    for event in events:
        data = event.to_dict()
        assert data["type"] in EVENTS, data
        assert set(data) - {"type"} <= EVENTS[data["type"]] | {"partners"}, data
        assert isinstance(event, RS.event_types[data["type"]])
        if data["type"] == "death":
            assert data["cause"] in CAUSES and data["cause"] in RS.causes
            assert data["player"] in alive_before - dead_so_far, f"{data['player']} died twice"
            assert not after.get(data["player"]).alive
            dead_so_far.add(data["player"])
        # Results reach only the living (§7.11): nobody learns anything after his death event,
        # except a removed player's own count of missed votes (§13.4 order).
        if event.audience.kind is AudienceKind.PLAYERS and data["type"] != "inactive":
            for name in event.audience.names:
                assert name in alive_before - dead_so_far, f"an event for the dead {name}: {data}"
        if data["type"] not in PUBLIC:
            assert not event.audience.is_public, data
    died = {p.name for p in before.players if p.alive and not after.get(p.name).alive}
    # A death, or the Agent leaving the game (§17.1).
    kinds = ("death", "agent_left", "faceless_left")
    reported = {e.to_dict()["player"] for e in events if e.to_dict()["type"] in kinds}
    assert died == reported, f"deaths without an event: {died ^ reported}"


def check_round_trip(state: GameState) -> None:
    """dump_state/load_state is lossless."""
    assert RS.load_state(RS.dump_state(state)) == state


def check_end(state: GameState) -> None:
    """Winners are the members of the winning team, outcomes cover every player (§9.3)."""
    end = RS.transcript_end(state)
    assert end["end"] is True
    assert set(end["outcomes"]) == {p.name for p in state.players}
    if end["teams"]:
        (team,) = end["teams"]
        # Elite players (§17) win with the side they chose.
        main = [p.name for p in state.players if p.team.value == team and not p.is_elite]
        assert [n for n in end["winners"] if not state.get(n).is_elite] == main
        assert all(end["outcomes"][n] == "win" for n in end["winners"])
    else:  # a draw; only a Faceless who left the game wins it (§16.6)
        wins = {n for n, outcome in end["outcomes"].items() if outcome == "win"}
        assert all(state.get(n).faceless for n in wins)


def replay(game: Game) -> list[dict[str, Any]]:
    """Replay the recorded votes from the seed; return the transcript lines."""
    state: GameState = RS.new_game(game.seats, game.settings)
    lines: list[dict[str, Any]] = []
    for votes in game.script:
        for vote in votes:
            verdict = RS.apply(state, vote)
            if isinstance(verdict, Accepted):
                state = verdict.state
        resolution = RS.resolve(state)
        lines.append(
            {
                "step": state.step,
                "asked": list(RS.asked(state)),
                "events": [event.to_dict() for event in resolution.events],
            }
        )
        state = resolution.state
    return lines


GAMES = st.tuples(
    st.integers(min_value=6, max_value=20),
    st.integers(min_value=0, max_value=10_000),
    st.booleans(),
    st.integers(min_value=1, max_value=3),
    st.integers(min_value=0, max_value=10_000),
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_random_games_end_legally_and_replay(params: tuple[int, int, bool, int, int]) -> None:
    game = play(*params)
    assert replay(game) == list(game.lines)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=6, max_value=40), st.integers(min_value=0, max_value=10_000))
def test_deal_follows_the_distribution(n_players: int, seed: int) -> None:
    distribution = RS.pick_distribution(n_players, seed)
    seats = RS.deal(
        NAMES[: min(n_players, len(NAMES))]
        + tuple(f"P{chr(65 + i)}" for i in range(max(0, n_players - len(NAMES)))),
        distribution,
        seed,
    )
    peaceful = sorted(seat.role.partition("+")[0] for seat in seats)
    assert peaceful == sorted(distribution.roles)
    negative = sorted(seat.role.partition("+")[2] for seat in seats if "+" in seat.role)
    expected = distribution.options["negative"]
    assert isinstance(expected, dict)
    assert negative == sorted(role for role, n in expected.items() for _ in range(n))
    assert RS.deal([s.name for s in seats], distribution, seed) == seats
