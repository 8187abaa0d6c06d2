"""Property tests of the vampiri engine: random games with random and invalid votes.

Each game is dealt from a random distribution (the seed's table, its presets, Guardie al
Cancello) with random settings, played with random votes (valid ones built from ``choices``,
invalid ones of every kind, votes from players who are not asked) for a random number of steps,
then with every vote missed, which must end it.  Each step is checked against
docs/rules/vampiri.md and the transcript contract; the whole game must replay from its seed and
votes, and every state must survive ``dump_state``/``load_state``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Accepted, Rejected, Seat, Settings, Vote, get_ruleset
from rules.vampiri.state import GameState
from tests.spec_ids_vampiri import (
    CATEGORIES,
    CAUSES,
    EVENT_FIELDS,
    KEYWORDS,
    REASON_ORDER,
    STEP_IDS,
    TEAMS,
)

RS = get_ruleset("vampiri")
NAMES = (
    "Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Hugo", "Ilaria", "Luca",
    "Marta", "Nico", "Olga", "Piero", "Rita", "Sara", "Tino", "Ugo", "Vera", "Zeno",
)  # fmt: skip
STRANGER = "Sconosciuto"
NIGHT = frozenset({"votazione", "spareggio", "decisione"})
DAY_ROLES = frozenset(
    {"monaco", "lamia", "regina", "re", "principe", "conte", "nosferatu", "banshee"}
    | {"licantropo", "kitsune", "esploratore", "bella"}
)
HUNTER_ROLES = frozenset({"cacciatore", "monaco", "leader", "esploratore", "bella"})
PUBLIC = frozenset({"execution", "tie", "verdict", "death", "win"})
MAX_STEPS = 400

# docs/rules/vampiri.md, "Order of events within a step": event type -> rank.
NIGHT_ORDER = {
    "rejected": 0, "execution": 1, "tie": 1, "verdict": 1, "inactive": 2, "death": 3,
    "win": 4, "hunters": 5,
}  # fmt: skip
DAY_ORDER = {
    "rejected": 0, "blocked": 1, "hunt": 2, "investigation": 3, "silenced": 4, "death": 5,
    "win": 6,
}  # fmt: skip


@dataclass(frozen=True)
class Game:
    """A dealt game: its seats and settings."""

    seats: tuple[Seat, ...]
    settings: Settings


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A random distribution for a random count, dealt, with random settings it allows."""
    seed = draw(st.integers(0, 2**32))
    presets = [d for d in RS.distributions if not d.id.startswith(("tabella-", "lupo-"))]
    if draw(st.booleans()):
        distribution = draw(st.sampled_from(presets))
    else:
        count = draw(st.sampled_from((3, *range(6, 21))))
        distribution = RS.pick_distribution(count, seed)
    names = NAMES[: distribution.players]
    seats = RS.deal(names, distribution, seed)
    roles = {seat.role for seat in seats}
    options: dict[str, Any] = dict(distribution.options)
    for option in ("secret_vote", "tourist_hunters", "lone_hunter", "wolf_den"):
        options.setdefault(option, draw(st.booleans()))
    if roles & {"esploratore", "bella"}:
        options.setdefault("undercover", draw(st.booleans()))
    strictness = draw(st.integers(1, 3))
    return Game(seats, Settings(seed=seed, strictness=strictness, options=options))


def invalid_vote(rng: random.Random, state: GameState, name: str) -> Vote:
    """A vote that is often wrong: random keywords, strangers, the dead, himself."""
    everybody = [p.name for p in state.players]
    keywords = frozenset(rng.sample(sorted(KEYWORDS), rng.randint(0, 2)))
    targets = tuple(rng.sample([*everybody, STRANGER, name], rng.randint(0, 3)))
    return Vote(player=name, targets=targets, blanco=not targets, keywords=keywords)


def valid_votes(rng: random.Random, state: GameState, name: str) -> list[Vote]:
    """One vote per slot the player is asked for, built from his choices (a random option of
    the slot; names favouring the first few so that majorities form)."""
    by_slot: dict[object, list[Any]] = {}
    for action in RS.choices(state, name).actions:
        by_slot.setdefault(action.extra["slot"], []).append(action)
    votes = []
    for options in by_slot.values():
        action = rng.choice(options)
        keywords = frozenset({action.keyword}) if action.keyword else frozenset()
        targets: tuple[str, ...] = ()
        if action.targets and (not action.blanco or rng.random() < 0.8):
            pool = list(action.targets[:3]) if rng.random() < 0.7 else list(action.targets)
            targets = tuple(rng.sample(pool, rng.randint(1, min(action.max_names, len(pool)))))
        votes.append(Vote(player=name, targets=targets, blanco=not targets, keywords=keywords))
    return votes


def random_votes(rng: random.Random, state: GameState) -> list[Vote]:
    """This step's mail: most asked players vote, some miss, some send invalid votes, and a
    few who are not asked (the dead, the silenced, plain vampires by day) write anyway."""
    votes: list[Vote] = []
    asked = set(RS.asked(state))
    for player in state.players:
        if player.name in asked and rng.random() < 0.85:
            votes.extend(valid_votes(rng, state, player.name))
        if rng.random() < (0.15 if player.name in asked else 0.05):
            votes.append(invalid_vote(rng, state, player.name))
    rng.shuffle(votes)
    return votes


def check_step(before: GameState, line: dict[str, Any], after: GameState) -> None:
    """The per-step oracle: ids, fields, causes, who may act, order of events."""
    assert line["step"] in STEP_IDS
    alive_before = {p.name for p in before.players if p.alive}
    asked = set(line["asked"])
    assert asked <= alive_before, "the dead are never asked"
    if before.step in NIGHT:
        assert before.silenced not in asked
        assert line["night"] == before.night and line["day"] == before.night - 1
        assert asked == alive_before - {before.silenced}
    else:
        assert line["night"] == line["day"]
        for player in before.players:
            day_actor = player.role in DAY_ROLES or player.name in before.group
            assert (player.name in asked) == (player.alive and day_actor)
    types = [event["type"] for event in line["events"]]
    for event in line["events"]:
        assert event["type"] in EVENT_FIELDS
        assert set(event) - {"type"} == EVENT_FIELDS[event["type"]]
        if event["type"] == "death":
            assert event["cause"] in CAUSES
            assert event["player"] in alive_before
        if event["type"] == "rejected":
            assert event["reason"] in REASON_ORDER
        if event["type"] == "investigation":
            assert event["category"] in CATEGORIES
            assert before.step == "giorno"
        if event["type"] == "win":
            assert set(event["teams"]) <= TEAMS
            assert types[-1] == "win" or types[-1] == "hunters"
    if before.step == "giorno":
        causes = {e["cause"] for e in line["events"] if e["type"] == "death"}
        assert causes <= {"ucciso"}
        assert not {"execution", "tie", "verdict", "inactive"} & set(types)
    else:
        assert sum(t in ("execution", "tie", "verdict") for t in types) == 1
        causes = {e["cause"] for e in line["events"] if e["type"] == "death"}
        assert causes <= {"giustiziato", "inattivita"}
    order = DAY_ORDER if before.step == "giorno" else NIGHT_ORDER
    ranks = [order[kind] for kind in types]
    assert ranks == sorted(ranks), f"events out of order: {types}"
    deaths = [e["player"] for e in line["events"] if e["type"] == "death"]
    causes_in_order = [e["cause"] for e in line["events"] if e["type"] == "death"]
    executed_first = sorted(causes_in_order, key=lambda cause: cause != "giustiziato")
    assert causes_in_order == executed_first, "the executed die before the inactive"
    for cause in CAUSES:
        seats = [
            before.index[e["player"]]
            for e in line["events"]
            if e["type"] == "death" and e["cause"] == cause
        ]
        assert seats == sorted(seats), "deaths of one cause come in seat order"
    assert len(deaths) == len(set(deaths)), "a player dies once"
    assert {p.name for p in after.players if not p.alive} == (
        {p.name for p in before.players if not p.alive} | set(deaths)
    )
    assert after.over == ("win" in types)
    if after.over:
        assert after.step is None and after.winners
        team = after.teams[0]
        assert after.winners == tuple(p.name for p in after.players if p.team == team)


def play(game: Game, rng: random.Random, random_steps: int) -> tuple[list[Any], list[Any]]:
    """Play a game to its end; return its transcript lines and the votes sent per step."""
    state = RS.new_game(game.seats, game.settings)
    lines: list[Any] = []
    sent: list[list[Vote]] = []
    for step_number in range(MAX_STEPS):
        if state.over:
            break
        votes = random_votes(rng, state) if step_number < random_steps else []
        rejected = []
        for vote in votes:
            verdict = RS.apply(state, vote)
            if isinstance(verdict, Rejected):
                assert verdict.code in REASON_ORDER
                rejected.append({"type": "rejected", "player": vote.player, "reason": verdict.code})
            else:
                assert isinstance(verdict, Accepted)
                assert vote.player in RS.asked(state), "only the asked may vote"
                state = verdict.state
        assert RS.load_state(json.loads(json.dumps(RS.dump_state(state)))) == state
        resolution = RS.resolve(state)
        view = RS.view(state)
        line = {
            "step": view.step,
            "night": view.night,
            "day": view.day,
            "asked": list(RS.asked(state)),
            "votes": {key: list(names) for key, names in view.votes.items()},
            "events": [*rejected, *(event.to_dict() for event in resolution.events)],
        }
        check_step(state, line, resolution.state)
        for event in resolution.events:
            assert event.audience.is_public == (event.type in PUBLIC), event
        lines.append(line)
        sent.append(votes)
        state = resolution.state
    else:
        pytest.fail(f"the game did not end within {MAX_STEPS} steps")
    assert RS.load_state(json.loads(json.dumps(RS.dump_state(state)))) == state
    lines.append(RS.transcript_end(state))
    return lines, sent


def replay(game: Game, sent: list[list[Vote]]) -> list[Any]:
    """Replay the votes on a new game from the same seats and settings."""
    state = RS.new_game(game.seats, game.settings)
    lines: list[Any] = []
    for votes in sent:
        for vote in votes:
            verdict = RS.apply(state, vote)
            if isinstance(verdict, Accepted):
                state = verdict.state
        resolution = RS.resolve(state)
        lines.append([event.to_dict() for event in resolution.events])
        state = resolution.state
    lines.append(RS.transcript_end(state))
    return lines


@pytest.mark.slow
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(game=games(), rng=st.randoms(use_true_random=False), random_steps=st.integers(0, 40))
def test_random_games_end_legally_and_replay(
    game: Game, rng: random.Random, random_steps: int
) -> None:
    lines, sent = play(game, rng, random_steps)
    final = lines[-1]
    assert final["end"] is True
    assert set(final["teams"]) <= TEAMS and len(final["teams"]) == 1
    assert final["mayor"] is None
    events = [[e for e in line["events"] if e["type"] != "rejected"] for line in lines[:-1]]
    assert replay(game, sent) == [*events, final]


@settings(max_examples=60, deadline=None)
@given(game=games())
def test_deal_is_seeded_and_legal(game: Game) -> None:
    """The deal keeps seat order, draws placeholders into real roles, and the game starts."""
    roles = [seat.role for seat in game.seats]
    assert all(role in RS.roles for role in roles)
    state = RS.new_game(game.seats, game.settings)
    assert RS.view(state).step == "votazione"
    assert RS.asked(state) == tuple(seat.name for seat in game.seats)
    start = RS.start_events(state)
    assert [e.to_dict()["player"] for e in start if e.type == "role"] == list(RS.asked(state))
    composition = start[-1].to_dict()
    assert sum(composition["teams"].values()) == len(roles)
    for event in start:
        assert RS.recipients(state, event.audience) != frozenset()
    hunters = [seat.name for seat in game.seats if seat.role in HUNTER_ROLES]
    assert list(state.group) == [name for name in hunters if name != state.undercover]
