"""Starting a game (§10) and moving it through its steps (§4): the pure game loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.core.events import Event, RoleInfo
from rules.core.model import Resolution, Seat, Settings
from rules.lupus.actions import asked
from rules.lupus.day import resolve_day
from rules.lupus.dice import Dice
from rules.lupus.events import Knows, Mayor, Propositions
from rules.lupus.ids import POPOLANI
from rules.lupus.night import resolve_night
from rules.lupus.roles import LUPUS_ROLES
from rules.lupus.state import GameState, Player
from rules.lupus.steps import OPTIONS, STEP_TABLE

MAX_SKIPPED = 4
"""Steps in which nobody is asked are resolved at once (§4); a run of them ends quickly."""


def check_seats(seats: Sequence[Seat]) -> None:
    """Raise ValueError unless the seats are a playable Lupus game (§2's last paragraph)."""
    names = [seat.name for seat in seats]
    if len(set(names)) != len(names):
        raise ValueError("player names must differ")
    if len(seats) < 3:
        raise ValueError("a game needs at least 3 players")
    unknown = sorted({seat.role for seat in seats} - set(LUPUS_ROLES))
    if unknown:
        raise ValueError(f"unknown roles {unknown}")
    roles = {seat.role for seat in seats}
    if "lupo" not in roles or "negromante" not in roles:
        raise ValueError("a Lupus game needs at least one lupo and one negromante")
    if not any(LUPUS_ROLES[role].faction == POPOLANI for role in roles):
        raise ValueError("a Lupus game needs at least one popolano")


def new_game(seats: Sequence[Seat], settings: Settings) -> GameState:
    """Return the state of a new game at night 1 (ValueError on bad seats or settings)."""
    settings.check_options(OPTIONS)
    check_seats(seats)
    has_mayor = settings.option("mayor", False)
    first = settings.option("sindaco")
    if not isinstance(has_mayor, bool):
        raise ValueError("mayor must be true or false")
    if first is not None and (not isinstance(first, str) or first not in {s.name for s in seats}):
        raise ValueError(f"sindaco {first!r} is not a player")
    if first is not None and not has_mayor:
        raise ValueError("sindaco needs mayor = true")
    players = tuple(
        Player(
            name=seat.name,
            role=seat.role,
            faction=LUPUS_ROLES[seat.role].faction,
            aura=LUPUS_ROLES[seat.role].aura,
            mystic=LUPUS_ROLES[seat.role].mystic,
            gender=seat.gender,
        )
        for seat in seats
    )
    dice = Dice(settings.seed, 0)
    mayor: str | None = None
    if has_mayor:
        mayor = first if isinstance(first, str) else dice.pick([p.name for p in players])
    propositions = tuple(
        (p.name, _statements(players, p, dice)) for p in players if p.role == "divinatore"
    )
    state = GameState(
        settings=settings,
        players=players,
        step=STEP_TABLE.following(None).id,
        night=1,
        day=0,
        draws=dice.counter,
        has_mayor=has_mayor,
        mayor=mayor,
        propositions=propositions,
    )
    # A first night in which nobody is asked resolves at once; it cannot change anything,
    # since every faction is alive and nobody may kill on night 1.
    state, _, _ = _skip_empty(state, [], [])
    return state


def _statements(
    players: Sequence[Player], divinatore: Player, dice: Dice
) -> tuple[tuple[str, str], ...]:
    """Two true and two false statements about others, shuffled (§10.3, seed 000 §2.3)."""
    others = [p for p in players if p.name != divinatore.name]
    every_role = sorted(LUPUS_ROLES)
    found: list[tuple[str, str]] = []
    for _ in range(2):
        target = dice.pick(others)
        found.append((target.name, target.role))
    for _ in range(2):
        target = dice.pick(others)
        found.append((target.name, dice.pick([r for r in every_role if r != target.role])))
    return tuple(dice.shuffle(found))


def start_events(state: GameState) -> tuple[Event, ...]:
    """The start's events (§13.1): ``role`` and ``knows`` per player, ``propositions``, the
    first ``mayor``.  Read from the state ``new_game`` returned."""
    events: list[Event] = []
    for player in state.players:
        klass = LUPUS_ROLES[player.role].knows
        mates = [
            p
            for p in state.players
            if klass is not None and p.name != player.name and LUPUS_ROLES[p.role].knows == klass
        ]
        events.append(
            RoleInfo(
                player=player.name,
                role=player.role,
                team=player.faction,
                mates=tuple(p.name for p in mates),
            )
        )
        events.extend(Knows(player=player.name, target=p.name, role=p.role) for p in mates)
    events.extend(
        Propositions(player=name, statements=statements) for name, statements in state.propositions
    )
    if state.mayor is not None:
        events.append(Mayor(player=state.mayor, via="start"))
    return tuple(events)


def resolve(state: GameState) -> Resolution[GameState]:
    """Resolve the current step, advance, and resolve at once the steps nobody is asked in."""
    if state.step is None:
        raise ValueError("the game is over")
    state, events, trace = _resolve_one(state)
    state, more, lines = _skip_empty(state, events, list(trace))
    return Resolution(state=state, events=tuple(more), trace=tuple(lines))


def _resolve_one(state: GameState) -> tuple[GameState, list[Event], tuple[str, ...]]:
    """Resolve the step and move to the one the step table plays next: day n after night n,
    night n + 1 after day n."""
    spec = STEP_TABLE.get(state.step or "")
    if spec.phase == "night":
        state, events, trace = resolve_night(state)
    else:
        state, events, trace = resolve_day(state)
    if state.step is not None:
        following = STEP_TABLE.following(spec.id)
        if following.phase == "day":
            state = replace(state, step=following.id, day=state.night)
        else:
            state = replace(state, step=following.id, night=state.night + 1)
    return replace(state, votes=()), events, trace


def _skip_empty(
    state: GameState, events: list[Event], trace: list[str]
) -> tuple[GameState, list[Event], list[str]]:
    """Resolve steps in which nobody is asked (§4), adding their events to this resolution."""
    for _ in range(MAX_SKIPPED):
        if state.step is None or asked(state):
            break
        trace.append(f"{state.step} {state.night}/{state.day}: nobody is asked, resolved at once")
        state, more, lines = _resolve_one(state)
        events = [*events, *more]
        trace.extend(lines)
    return state, events, trace
