"""Property tests of the Lupus engine: random games with random and invalid votes.

Each game is dealt from a random distribution (a default ``lupus-N`` or a random legal set),
played with random votes (valid ones built from ``choices``, invalid ones of every kind, votes
from players who are not asked, dead or exiled) for a random number of steps, then with every
vote missed, which must end it (inactivity exiles everybody).  Each step is checked against
docs/rules/lupus.md (§1.1, §2, §4, §5, §8, §13) and the transcript contract.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.events import Audience, Event
from rules.core.model import Accepted, Rejected, Seat, Settings, Vote
from rules.lupus import RULESET
from rules.lupus.distributions import default_roles
from rules.lupus.state import GameState
from tests.spec_ids_lupus import EVENTS, POWERS, REASONS, ROLES

FACTION = {
    **{r: "popolani" for r in ("contadino", "custode", "divinatore", "esorcista", "espansivo")},
    **{r: "popolani" for r in ("guardia", "investigatore", "mago", "massone", "messia")},
    **{r: "popolani" for r in ("sciamano", "stalker", "trasformista", "veggente", "voyeur")},
    "cacciatore": "popolani",
    **{r: "lupi" for r in ("lupo", "assassino", "avvocato", "diavolo", "fattucchiera")},
    **{r: "lupi" for r in ("necrofilo", "rinnegato", "sequestratore", "stregone")},
    **{r: "negromanti" for r in ("negromante", "fantasma", "ipnotista", "medium", "scrutatore")},
}
NIGHT_CAUSES = frozenset({"lupi", "assassino", "morte", "cacciatore"})
NAMES = tuple(
    [
        "Ada",
        "Bea",
        "Ciro",
        "Dino",
        "Eva",
        "Fede",
        "Gino",
        "Ilda",
        "Lino",
        "Mara",
        "Nico",
        "Olga",
        "Pino",
        "Rita",
        "Sara",
        "Tito",
        "Ugo",
        "Vera",
    ]
)
MAX_RANDOM_STEPS = 24


@dataclass(frozen=True)
class Setup:
    """One random game: seats, settings, and the seed of its vote policy."""

    seats: tuple[Seat, ...]
    settings: Settings
    policy_seed: int


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    """A legal game of 4..14 players (§2: a lupo, a negromante, a popolano), default or random."""
    size = draw(st.integers(4, 14))
    if draw(st.booleans()):
        roles = default_roles(size)
    else:
        roles = [
            "lupo",
            "negromante",
            draw(st.sampled_from(sorted(r for r in ROLES if FACTION[r] == "popolani"))),
        ]
        roles += draw(
            st.lists(st.sampled_from(sorted(ROLES)), min_size=size - 3, max_size=size - 3)
        )
    order = draw(st.permutations(roles))
    seats = tuple(Seat(name=name, role=role) for name, role in zip(NAMES, order, strict=False))
    mayor = draw(st.booleans())
    options: dict[str, Any] = {"mayor": mayor}
    settings = Settings(
        seed=draw(st.integers(0, 2**31)),
        strictness=draw(st.integers(1, 3)),
        options=options,
    )
    return Setup(seats=seats, settings=settings, policy_seed=draw(st.integers(0, 2**31)))


def random_votes(state: GameState, rng: random.Random) -> list[Vote]:
    """Valid votes from the choices of the asked players, and invalid ones of every kind."""
    names = [p.name for p in state.players]
    votes: list[Vote] = []
    for player in state.players:
        choices = RULESET.choices(state, player.name)
        for action in choices.actions:
            if rng.random() < 0.25:
                continue
            keywords = frozenset({action.keyword}) if action.keyword else frozenset()
            if rng.random() < 0.15:
                votes.append(Vote(player.name, (), blanco=True, keywords=keywords))
                continue
            slots = action.extra.get("slots")
            if isinstance(slots, list) and slots:
                picked = [rng.choice(slot) for slot in slots if isinstance(slot, list) and slot]
            else:
                picked = [rng.choice(action.targets)] if action.targets else []
            powers = action.extra.get("powers")
            if isinstance(powers, list) and powers:
                keywords = frozenset({str(rng.choice(powers))})
            votes.append(Vote(player.name, tuple(str(n) for n in picked), keywords=keywords))
        if rng.random() < 0.2:  # anything at all: wrong names, counts, keywords, voters
            count = rng.randint(0, 3)
            junk = tuple(rng.choice([*names, "Nessuno"]) for _ in range(count))
            keyword = rng.choice([None, "sindaco", "successore", *sorted(POWERS)])
            keywords = frozenset({keyword}) if keyword else frozenset()
            votes.append(Vote(player.name, junk, blanco=not junk, keywords=keywords))
    rng.shuffle(votes)
    return votes


def play(setup: Setup) -> tuple[list[dict[str, Any]], list[tuple[GameState, list[Vote]]]]:
    """Play a game to its end; return its transcript lines and each step's state and votes."""
    rng = random.Random(setup.policy_seed)
    state = RULESET.new_game(setup.seats, setup.settings)
    start = RULESET.transcript_start(state)
    lines: list[dict[str, Any]] = [start] if start is not None else []
    steps: list[tuple[GameState, list[Vote]]] = []
    for index in range(MAX_RANDOM_STEPS + 40):
        if state.is_over:
            break
        votes = random_votes(state, rng) if index < MAX_RANDOM_STEPS else []
        before = state
        for vote in votes:
            verdict = RULESET.apply(state, vote)
            check_verdict(state, vote, verdict)
            if isinstance(verdict, Accepted):
                state = verdict.state
        resolution = RULESET.resolve(state)
        check_step(state, resolution.state, list(resolution.events))
        check_round_trip(resolution.state)
        lines.append(
            {
                "step": state.step,
                "asked": list(RULESET.asked(state)),
                "votes": {key: list(names) for key, names in state.votes},
                "events": [event.to_dict() for event in resolution.events],
            }
        )
        steps.append((before, votes))
        state = resolution.state
    assert state.is_over, "a game with every vote missed must end (inactivity exiles everybody)"
    check_end(state)
    lines.append(RULESET.transcript_end(state))
    return lines, steps


def check_verdict(state: GameState, vote: Vote, verdict: Accepted[GameState] | Rejected) -> None:
    """A refusal has a stable code; an accepted vote comes from an asked player who may act."""
    if isinstance(verdict, Rejected):
        assert verdict.code in REASONS, verdict.code
        return
    player = state.get(vote.player)
    assert vote.player in RULESET.asked(state), f"{vote} accepted from a player not asked"
    assert not player.exiled, "an exile voted"
    if state.step == "giorno" or vote.keywords & {"sindaco", "successore"}:
        assert player.alive, "a dead player voted by day or as Sindaco"
    elif not player.alive:
        assert player.is_spettro, "a dead player who is not a Spettro used a power (§8.1)"
    for name in vote.targets:
        assert not state.get(name).exiled, "an exile is never a valid name (§1.1)"
    if state.step == "notte" and not vote.keywords & {"sindaco", "successore"}:
        assert vote.player not in vote.targets, "nobody names himself with a power (§1.1)"


def check_step(before: GameState, after: GameState, events: list[Event]) -> None:
    """Events have the spec's fields; deaths have causes; the dead stay dead unless raised."""
    raised = {e.to_dict()["player"] for e in events if e.type == "resurrected"}
    for event in events:
        data = event.to_dict()
        assert data["type"] in EVENTS, data
        assert set(data) - {"type"} == set(EVENTS[data["type"]]), data
        json.dumps(data)
        if data["type"] == "death":
            assert before.get(data["player"]).alive, f"{data['player']} died twice"
            expected = NIGHT_CAUSES if before.step == "notte" else {"rogo"}
            assert data["cause"] in expected, data
        if data["type"] == "ghost":
            assert data["power"] in POWERS
    for old, new in zip(before.players, after.players, strict=True):
        if old.exiled:
            assert new.exiled, f"{old.name} came back from exile"
        if old.dead and new.alive:
            assert old.name in raised, f"{old.name} lives again without a Messia"
        if new.is_spettro:
            assert new.faction == "negromanti"
    assigned = [p.ghost_power for p in after.players if p.ghost_power is not None]
    assert len(assigned) == len(set(assigned)), "a supernatural power given twice (§8.3)"
    for player in after.players:
        if not player.exiled:
            assert player.alive or player.dead


def check_round_trip(state: GameState) -> None:
    """dump/load restores the state exactly, through JSON."""
    data = json.loads(json.dumps(RULESET.dump_state(state)))
    assert RULESET.load_state(data) == state


def check_end(state: GameState) -> None:
    """§2: a game ends only when the living in play are one faction, or nobody."""
    living = state.in_play()
    factions = {p.faction for p in living}
    assert len(factions) <= 1
    assert list(state.teams) == sorted(factions, key=["popolani", "lupi", "negromanti"].index)
    expected = [p.name for p in state.players if p.faction in factions and not p.exiled]
    assert list(state.winners) == expected


def replay(setup: Setup, steps: list[tuple[GameState, list[Vote]]]) -> list[dict[str, Any]]:
    """Replay the recorded votes from the seed alone; return the events of each step."""
    state = RULESET.new_game(setup.seats, setup.settings)
    result: list[dict[str, Any]] = []
    for _, votes in steps:
        for vote in votes:
            verdict = RULESET.apply(state, vote)
            if isinstance(verdict, Accepted):
                state = verdict.state
        resolution = RULESET.resolve(state)
        result.append({"events": [e.to_dict() for e in resolution.events]})
        state = resolution.state
    return result


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(setups())
def test_random_games_end_legally_and_replay(setup: Setup) -> None:
    lines, steps = play(setup)
    replayed = replay(setup, steps)
    played = [{"events": line["events"]} for line in lines[1:-1]]
    assert replayed == played, "seed + votes must replay to the same events"


@settings(max_examples=80, deadline=None)
@given(setups())
def test_start_knowledge(setup: Setup) -> None:
    """§10: one ``role`` per player in seat order; class mates; the Divinatore's statements."""
    state = RULESET.new_game(setup.seats, setup.settings)
    events = [e.to_dict() for e in RULESET.start_events(state)]
    roles = [e for e in events if e["type"] == "role"]
    assert [e["player"] for e in roles] == [s.name for s in setup.seats]
    dealt = {s.name: s.role for s in setup.seats}
    for event in events:
        if event["type"] == "knows":
            assert dealt[event["target"]] == event["role"]
        if event["type"] == "propositions":
            statements = event["statements"]
            assert len(statements) == 4
            assert all(target != event["player"] for target, _ in statements)
            true = [1 for target, role in statements if dealt[target] == role]
            assert len(true) == 2, "exactly two statements are true (§10.3)"
    mayors = [e for e in events if e["type"] == "mayor"]
    assert len(mayors) == (1 if setup.settings.options["mayor"] else 0)


@settings(max_examples=80, deadline=None)
@given(st.integers(3, 1000))
def test_default_distributions_are_legal(players: int) -> None:
    """§11: lupus-N has N roles, one lupo at least, a negromante, and a popolano."""
    roles = default_roles(players)
    assert len(roles) == players
    assert "lupo" in roles and "negromante" in roles
    assert any(FACTION[r] == "popolani" for r in roles)
    assert set(roles) <= ROLES - {"cacciatore"}
    distribution = RULESET.pick_distribution(players, seed=players)
    assert distribution.players == players


def test_new_game_refuses_a_game_without_three_factions() -> None:
    """§2: a game needs a lupo, a negromante and a popolano (ValueError otherwise)."""
    seats = [Seat("Ada", "lupo"), Seat("Bea", "contadino"), Seat("Ciro", "contadino")]
    with pytest.raises(ValueError):
        RULESET.new_game(seats, Settings())
    seats = [Seat("Ada", "lupo"), Seat("Bea", "negromante"), Seat("Ciro", "rinnegato")]
    with pytest.raises(ValueError):
        RULESET.new_game(seats, Settings())


def test_default_distribution_examples() -> None:
    """§11's worked examples, written out from the document."""
    assert sorted(default_roles(6)) == sorted(
        ["lupo", "negromante", "contadino", "veggente", "guardia", "investigatore"]
    )
    ten = ["lupo", "sequestratore", "negromante", "contadino", "veggente", "guardia"]
    ten += ["investigatore", "mago", "stalker", "voyeur"]
    assert sorted(default_roles(10)) == sorted(ten)
    forty = ["lupo"] * 6 + ["sequestratore", "diavolo", "fattucchiera", "avvocato", "assassino"]
    forty += ["negromante"] * 3 + ["medium", "ipnotista", "fantasma", "scrutatore"]
    forty += ["contadino"] * 5 + ["veggente", "guardia", "investigatore", "mago", "stalker"]
    forty += ["voyeur", "massone", "massone", "esorcista", "messia", "custode", "espansivo"]
    forty += ["divinatore", "sciamano", "trasformista", "veggente", "guardia"]
    assert sorted(default_roles(40)) == sorted(forty)


def _small_game(mayor: bool = True) -> GameState:
    seats = [
        Seat("Ada", "lupo"),
        Seat("Bea", "negromante"),
        Seat("Ciro", "veggente"),
        Seat("Dino", "contadino"),
    ]
    return RULESET.new_game(seats, Settings(seed=1, options={"mayor": mayor, "sindaco": "Dino"}))


def test_close_early_waits_only_for_main_actions() -> None:
    """§3: the Sindaco's `successore` never holds a step open; a power vote (or nessuno) does."""
    state = _small_game()
    assert RULESET.asked(state) == ("Ciro", "Dino")
    assert not RULESET.all_voted(state)
    verdict = RULESET.apply(state, Vote("Dino", ("Ciro",), keywords=frozenset({"successore"})))
    assert isinstance(verdict, Accepted)
    assert not RULESET.all_voted(verdict.state)
    verdict = RULESET.apply(verdict.state, Vote("Ciro", (), blanco=True))
    assert isinstance(verdict, Accepted)
    assert RULESET.all_voted(verdict.state)


def test_choices_describe_every_vote() -> None:
    """§13.3: the step mail's facts: the power's names per slot, the Sindaco's designation, and
    by day the rogo and election ballots."""
    state = _small_game()
    ciro = RULESET.choices(state, "Ciro")
    assert ciro.targets == ("Ada", "Bea", "Dino")
    assert ciro.actions[0].extra["power"] == "veggente"
    dino = RULESET.choices(state, "Dino")
    assert dino.keywords == ("successore",)
    assert RULESET.choices(state, "Ada").actions == ()
    day = RULESET.resolve(state).state
    assert day.step == "giorno"
    ada = RULESET.choices(day, "Ada")
    assert [a.action for a in ada.actions] == ["rogo", "sindaco"]
    assert ada.targets == ("Ada", "Bea", "Ciro", "Dino")


def test_negromante_choices_list_the_powers_left() -> None:
    """§4, §13.3: a Negromante's step mail lists the powers not yet given."""
    seats = [
        Seat("Ada", "lupo"),
        Seat("Bea", "negromante"),
        Seat("Ciro", "veggente"),
        Seat("Dino", "contadino"),
        Seat("Eva", "contadino"),
    ]
    state = RULESET.new_game(seats, Settings(seed=2))
    state = RULESET.resolve(state).state
    for voter in ("Ada", "Bea", "Ciro"):
        verdict = RULESET.apply(state, Vote(voter, ("Dino",)))
        assert isinstance(verdict, Accepted)
        state = verdict.state
    state = RULESET.resolve(state).state
    assert state.step == "notte"
    powers = RULESET.choices(state, "Bea").actions[0].extra["powers"]
    assert powers == sorted(POWERS)
    vote = Vote("Bea", ("Dino",), keywords=frozenset({"visione"}))
    verdict = RULESET.apply(state, vote)
    assert isinstance(verdict, Accepted)
    state = RULESET.resolve(verdict.state).state
    state = RULESET.resolve(state).state
    powers = RULESET.choices(state, "Bea").actions[0].extra["powers"]
    assert powers == sorted(POWERS - {"visione"})


def test_a_fantasma_who_dies_when_no_power_is_left_is_told_he_is_no_spettro() -> None:
    """Seed 001 FAQ 12: no supernatural power left, no Spettro; he learns it, privately."""
    from dataclasses import replace

    from rules.lupus.ids import FANTASMA_POWERS

    seats = [
        Seat("Ada", "lupo"),
        Seat("Bea", "negromante"),
        Seat("Ciro", "fantasma"),
        Seat("Dino", "contadino"),
        Seat("Elio", "contadino"),
        Seat("Fede", "contadino"),
    ]
    state = RULESET.new_game(seats, Settings())
    state = replace(state, assigned=FANTASMA_POWERS)  # every power taken already
    assert RULESET.view(state).step == "giorno"
    for voter in ("Ada", "Bea", "Dino", "Elio", "Fede"):
        verdict = RULESET.apply(state, Vote(voter, ("Ciro",)))
        assert isinstance(verdict, Accepted), verdict
        state = verdict.state
    events = RULESET.resolve(state).events
    told = [e for e in events if e.type in ("ghost", "no_ghost")]
    assert [(e.type, e.player) for e in told] == [("no_ghost", "Ciro")]  # type: ignore[attr-defined]
    assert told[0].audience == Audience.player("Ciro")
