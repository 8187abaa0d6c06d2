"""Hypothesis strategies and random vote makers for the property tests of the Wakkerdam engine."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from rules import ActionChoice, Seat, Settings, Vote, get_ruleset
from rules.wakkerdam.state import GameState

RS = get_ruleset("wakkerdam")
ROLE_IDS: tuple[str, ...] = tuple(sorted(RS.roles))
EVIL_ROLES = ("weerwolf", "welp", "witte_weerwolf", "vampier", "psychopaat", "fluitspeler")
VILLAGE_ROLES = tuple(role for role in ROLE_IDS if role not in EVIL_ROLES)

# Letters only (spec §11), 40 of them; a vote may also name someone who is not a player.
NAMES: tuple[str, ...] = (
    "Anna", "Bram", "Carla", "Dirk", "Eva", "Femke", "Gert", "Hanna", "Ilse", "Joris",
    "Kees", "Lotte", "Maarten", "Noor", "Otto", "Pien", "Quinten", "Roos", "Sander", "Tess",
    "Ulrike", "Vera", "Wim", "Xander", "Yara", "Zeger", "Aart", "Bep", "Cor", "Daan",
    "Elif", "Floor", "Gijs", "Hugo", "Iris", "Jet", "Koen", "Lieke", "Mees", "Nina",
)  # fmt: skip
STRANGER = "Onbekende"
SUFFIXES = ("", "Twee", "Drie", "Vier", "Vijf")


def names_for(size: int) -> tuple[str, ...]:
    """``size`` distinct letter-only names (up to 200)."""
    return tuple(NAMES[i % len(NAMES)] + SUFFIXES[i // len(NAMES)] for i in range(size))


@dataclass(frozen=True)
class Setup:
    """A game to play: where its roles came from, the seats and the settings."""

    source: str
    seats: tuple[Seat, ...]
    settings: Settings


@dataclass(frozen=True)
class Policy:
    """How the random players behave.

    Probabilities per asked player and step: ``miss`` (send nothing), ``invalid`` (each attempt
    is a deliberately invalid vote), ``blanco``; ``focus``: vote for the step's favourite target
    (so packs, lynches and elections reach a majority); ``outsiders``: votes from players who are
    not asked.  After ``random_steps`` steps everybody misses every vote until the game ends.
    """

    seed: int
    miss: float
    invalid: float
    blanco: float
    focus: float
    outsiders: float
    random_steps: int


@dataclass(frozen=True)
class Attempt:
    """One vote to cast and what must happen to it.

    ``valid``: it must be accepted, except for a code in ``excused`` that the test justifies
    (``taken``, the goochelaar's ``repeat``).  Otherwise it must be rejected, with a code in
    ``codes`` (any code when ``codes`` is empty).
    """

    vote: Vote
    kind: str
    valid: bool
    codes: frozenset[str] = frozenset()
    excused: frozenset[str] = frozenset()


TARGET_CODES = frozenset(
    {
        "target-dead",
        "target-alive",
        "target-self",
        "target-jailed",
        "target-fool",
        "pack-member",
        "repeat",
        "target-enchanted",
        "target-fluitspeler",
        "potion-used",
    }
)


def _seats(roles: Sequence[str], genders: Sequence[str | None]) -> tuple[Seat, ...]:
    return tuple(
        Seat(name=name, role=role, gender=gender)
        for name, role, gender in zip(names_for(len(roles)), roles, genders, strict=True)
    )


@st.composite
def builtin_setups(draw: st.DrawFn) -> Setup:
    """A game dealt from a built-in distribution (every default one, or one picked for 3..40)."""
    seed = draw(st.integers(0, 2**32 - 1))
    if draw(st.booleans()):
        distribution = draw(st.sampled_from(RS.distributions))
    else:
        distribution = RS.pick_distribution(draw(st.integers(3, 40)), seed)
    names = NAMES[: distribution.players]
    genders = draw(st.lists(st.sampled_from([None, "man", "vrouw"]), min_size=len(names)))
    seats = RS.deal(list(zip(names, genders[: len(names)], strict=True)), distribution, seed)
    settings = Settings(
        seed=seed,
        options={"mayor": distribution.options["mayor"]},
        strictness=draw(st.integers(1, 3)),
    )
    return Setup(source=distribution.id, seats=tuple(seats), settings=settings)


@st.composite
def random_setups(draw: st.DrawFn, low: int = 3, high: int = 40) -> Setup:
    """A game with a random role multiset of low..high players (rare roles, odd mixes)."""
    size = draw(st.integers(low, high))
    if draw(st.booleans()):
        roles = draw(st.lists(st.sampled_from(ROLE_IDS), min_size=size, max_size=size))
    else:
        evil = draw(st.integers(1, max(1, size // 4)))
        roles = draw(st.lists(st.sampled_from(EVIL_ROLES), min_size=evil, max_size=evil))
        roles += draw(
            st.lists(st.sampled_from(VILLAGE_ROLES), min_size=size - evil, max_size=size - evil)
        )
        roles = draw(st.permutations(roles))
    settings = Settings(
        seed=draw(st.integers(0, 2**32 - 1)),
        options={"mayor": draw(st.booleans())},
        strictness=draw(st.integers(1, 3)),
    )
    return Setup(source="random", seats=_seats(roles, [None] * size), settings=settings)


def setups() -> st.SearchStrategy[Setup]:
    """Built-in and random distributions, with and without mayor, strictness 1..3."""
    return st.one_of(builtin_setups(), random_setups())


def policies(max_random_steps: int = 120) -> st.SearchStrategy[Policy]:
    """Player behaviours from diligent to absent, with and without invalid votes."""
    return st.builds(
        Policy,
        seed=st.integers(0, 2**32 - 1),
        miss=st.sampled_from([0.0, 0.0, 0.02, 0.1, 0.5]),
        invalid=st.sampled_from([0.0, 0.1, 0.3]),
        blanco=st.sampled_from([0.0, 0.1, 0.3]),
        focus=st.sampled_from([0.0, 0.5, 0.9]),
        outsiders=st.sampled_from([0.0, 0.3]),
        random_steps=st.one_of(st.integers(0, max_random_steps), st.just(max_random_steps)),
    )


# --------------------------------------------------------------------------- votes


def _plain(player: str, names: Sequence[str], keyword: str | None) -> Vote:
    return Vote(
        player=player,
        targets=tuple(names),
        blanco=not names,
        keywords=frozenset({keyword}) if keyword else frozenset(),
    )


def _pick(rng: random.Random, pool: Sequence[str], favourites: Sequence[str], focus: float) -> str:
    if rng.random() < focus:
        for name in favourites:
            if name in pool:
                return name
    return rng.choice(list(pool))


def valid_vote(
    state: GameState,
    player: str,
    action: ActionChoice,
    rng: random.Random,
    policy: Policy,
    favourites: Sequence[str],
) -> Attempt | None:
    """A vote built from ``choices``: names from its targets (the right count) or blanco."""
    targets = list(action.targets)
    wanted_blanco = rng.random() < policy.blanco
    if (wanted_blanco or not targets) and action.blanco:
        return Attempt(_plain(player, (), action.keyword), "blanco", valid=True)
    if not targets:
        return None
    excused: set[str] = set()
    potions = action.extra
    if potions:  # the heks: a wounded and a healthy
        hurt = potions["wounded"]
        assert isinstance(hurt, list)
        wounded = [n for n in targets if n in hurt]
        healthy = [n for n in targets if n not in hurt]
        names = [rng.choice(group) for group in (wounded, healthy) if group and rng.random() < 0.6]
        if not names:
            names = [rng.choice(targets)]
    else:
        low = max(action.min_names, 1)
        high = min(action.max_names, len(targets), 4)
        if high < low:
            return None
        size = rng.randint(low, high)
        first = _pick(rng, targets, favourites, policy.focus)
        rest = [n for n in targets if n != first]
        names = [first, *rng.sample(rest, size - 1)]
    if action.action in ("cupido", "opdrachtgever"):
        excused.add("taken")
    if action.previous is not None and tuple(sorted(names)) == action.previous:
        excused.add("repeat")  # the goochelaar's pair: choices lists single names only
    return Attempt(
        _plain(player, names, action.keyword), "valid", valid=True, excused=frozenset(excused)
    )


def invalid_vote(
    state: GameState, player: str, action: ActionChoice, rng: random.Random
) -> Attempt | None:
    """A deliberately invalid vote of an asked player, with the code(s) it must get."""
    kw = action.keyword
    names = [p.name for p in state.players]
    kinds = ["unknown", "blanco-and-name", "too-many", "duplicate", "outside", "keyword"]
    kind = rng.choice(kinds)
    if kind == "unknown":
        named = [*action.targets[: action.max_names - 1], STRANGER]
        return Attempt(_plain(player, named, kw), kind, False, frozenset({"unknown-player"}))
    if kind == "blanco-and-name":
        vote = Vote(player, (rng.choice(names),), True, _plain(player, [], kw).keywords)
        return Attempt(vote, kind, False, frozenset({"wrong-count"}))
    if kind == "too-many":
        if action.action == "zondebok":  # any number of names
            return None
        size = 3 if action.action == "heks" else action.max_names + 1  # the heks: 0..2
        if size > len(names):
            return None
        chosen = rng.sample(names, size)
        return Attempt(_plain(player, chosen, kw), kind, False, frozenset({"wrong-count"}))
    if kind == "duplicate":
        if not action.targets:
            return None
        name = rng.choice(action.targets)
        # The heks (0..2) and the zondebok (0..n) may name several: their choices cap
        # max_names at the number of targets, the rules do not.
        several = action.max_names >= 2 or action.min_names == 0
        code = "duplicate-target" if several else "wrong-count"
        return Attempt(_plain(player, [name, name], kw), kind, False, frozenset({code}))
    if kind == "outside":
        # One name the step mail does not offer must get a target code (the names it offers
        # are accepted: valid_vote).  One-name votes only: a pair's count rule comes first.
        others = [n for n in names if n not in action.targets]
        if action.min_names > 1 or not others:
            return None
        name = rng.choice(others)
        if action.action == "grafrover":
            codes = {"target-alive"}
        elif not state.player(name).alive:
            codes = {"target-dead"}
        else:
            codes = set(TARGET_CODES - {"target-dead", "target-alive"})
        return Attempt(_plain(player, [name], kw), kind, False, frozenset(codes))
    # kind == "keyword": a special vote the player does not have
    if state.step == "nacht" and kw == "witte":
        return None
    if state.step == "doden":
        word = "burgemeester"
        player_state = state.player(player)
        if "testament" in player_state.due:
            return None
    else:
        word = "witte"
        solo_night = state.step == "nacht" and state.night % 2 == 0
        if solo_night and state.player(player).role == "witte_weerwolf":
            return None
    target = action.targets[0] if action.targets else rng.choice(names)
    vote = Vote(player, (target,), keywords=frozenset({word}))
    return Attempt(vote, f"keyword-{word}", False, frozenset({"no-special-vote"}))


def outsider_vote(state: GameState, player: str, rng: random.Random) -> Attempt:
    """A vote from someone who is not asked now (dead, asleep, not a player, ...)."""
    names = [p.name for p in state.players]
    targets = tuple(rng.sample(names, rng.randint(0, 2)))
    keywords = frozenset(rng.sample(["witte", "burgemeester"], rng.randint(0, 1)))
    vote = Vote(player, targets, blanco=not targets, keywords=keywords)
    return Attempt(vote, "outsider", False, frozenset({"not-asked"}))


def attempts_for_step(state: GameState, rng: random.Random, policy: Policy) -> list[Attempt]:
    """Every vote attempt of one step, in the order they are cast."""
    asked = RS.asked(state)
    favourites = [p.name for p in state.players]
    rng.shuffle(favourites)
    plans: list[Attempt] = []
    for player in asked:
        if rng.random() < policy.miss:
            continue
        actions = RS.choices(state, player).actions
        # Mostly one valid vote (a player who only sends invalid ones has missed the vote),
        # sometimes changed or preceded by invalid ones.
        kinds = [rng.random() < policy.invalid for _ in range(rng.choice((0, 0, 0, 1, 2)))]
        if rng.random() >= policy.invalid / 2:
            kinds.append(False)
        for invalid in kinds:
            action = rng.choice(actions)
            if invalid:
                attempt = invalid_vote(state, player, action, rng)
            else:
                attempt = valid_vote(state, player, action, rng, policy, favourites)
            if attempt is not None:
                plans.append(attempt)
    if rng.random() < policy.outsiders:
        idle = [p.name for p in state.players if p.name not in asked] + [STRANGER]
        for player in rng.sample(idle, min(len(idle), 3)):
            plans.append(outsider_vote(state, player, rng))
    rng.shuffle(plans)  # votes arrive in any order; a player's later vote replaces his earlier
    return plans
