"""The game's course (§4): the step table, a new game, entering steps and resolving them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.core.events import Event
from rules.core.model import Resolution, Seat, Settings
from rules.core.pipeline import run_pipeline
from rules.core.rng import shuffled
from rules.mafia import actions, day, elite, ledger, night, night_results, wins
from rules.mafia.ids import Close, Step
from rules.mafia.moves import Night
from rules.mafia.roles import ELITE, NEGATIVE, PEACEFUL
from rules.mafia.state import Day, GameState, Player
from rules.mafia.steps import DISTRIBUTION_KEYS, OPTIONS, STEP_TABLE

FORMATS = ("standard", "extended")
EXTENDED_FROM = 16


def parse_seat_role(text: str) -> tuple[str, str | None, bool]:
    """Split a scenario role value into (peaceful, negative, faceless) (§13.1): ``faceless`` alone
    or ``peaceful+faceless`` is the Faceless.  Raises ValueError for an unknown role."""
    peaceful, _, grey = text.partition("+")
    if text == "faceless":
        return "citizen", None, True
    if grey == "faceless":
        return parse_role(peaceful)[0], None, True
    return (*parse_role(text), False)


def parse_role(text: str) -> tuple[str, str | None]:
    """Split a scenario role value: ``peaceful``, ``peaceful+negative`` or ``negative`` alone
    (= ``citizen+negative``) (§13.1).  Raises ValueError for an unknown role."""
    peaceful, _, negative = text.partition("+")
    if not negative and peaceful in ELITE:
        return peaceful, None
    if not negative and peaceful in NEGATIVE:
        peaceful, negative = "citizen", peaceful
    if peaceful not in PEACEFUL:
        raise ValueError(f"unknown peaceful role {peaceful!r}")
    if negative and negative not in NEGATIVE:
        raise ValueError(f"unknown negative role {negative!r}")
    return peaceful, negative or None


def _check_roles(players: Sequence[Player]) -> None:
    counts: dict[str, int] = {}
    for player in players:
        counts[player.peaceful] = counts.get(player.peaceful, 0) + 1
    for role, number in counts.items():
        limit = {"citizen": len(players), "active_citizen": 2}.get(role, 1)
        if number > limit:
            raise ValueError(f"peaceful role {role} appears {number} times (at most {limit})")


def new_game(seats: Sequence[Seat], settings: Settings) -> GameState:
    """Return a new game at its first step (ValueError on bad seats or settings)."""
    settings.check_options({**OPTIONS, **DISTRIBUTION_KEYS})
    names = [seat.name for seat in seats]
    if len(set(names)) != len(names) or len(names) < 3:
        raise ValueError("a game needs at least 3 players with distinct names")
    players = []
    for seat in seats:
        peaceful, negative, faceless = parse_seat_role(seat.role)
        players.append(Player(seat.name, peaceful, negative, seat.gender, faceless=faceless))
    _check_roles(players)
    if sum(1 for p in players if p.faceless) > 1:
        raise ValueError("at most one Faceless")
    game_format = str(settings.option("format", "") or "")
    if not game_format:
        main = [p for p in players if not p.is_elite]
        game_format = "extended" if len(main) >= EXTENDED_FROM else "standard"
    if game_format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {game_format!r}")
    if len([p for p in players if not p.is_elite]) < 3:
        raise ValueError("a game needs at least 3 main players")
    heirs = [p.name for p in players if p.peaceful == "active_citizen"]
    state = GameState(
        settings=settings,
        players=tuple(players),
        format=game_format,
        peaceful_roles=tuple(sorted({p.peaceful for p in players if not p.is_elite})),
        heirs=tuple(shuffled(settings.seed, "heirs", heirs)),
        day=1,
    )
    if settings.option("mayor", True):
        return replace(state, step=STEP_TABLE.following(None).id)
    return enter(state, STEP_TABLE.first_of("night").id)[0]


def enter(state: GameState, step: str) -> tuple[GameState, tuple[str, ...]]:
    """Open ``step``: a night opens the ledger (§7.4.2); the day after a night starts fresh."""
    state = replace(state, step=str(step), votes=())
    if step == Step.NIGHT:
        number = state.day
        blocks = tuple(block for block in state.blocks if block.ends > number)
        state = replace(state, night=number, blocks=blocks, drugged={})
        if "drug_dealer" in state.memory:  # today's bought votes are spent (§15.15)
            dealer = replace(state.memory["drug_dealer"], bought=0)
            state = replace(state, memory={**state.memory, "drug_dealer": dealer})
        opened, trace = ledger.open_night(state, number)
        return replace(state, ledger=opened), trace
    if step == Step.PRE_VOTE:
        return replace(state, day=state.night + 1, today=Day()), ()
    return state, ()


def _resolve_night(state: GameState) -> day.Outcome:
    context, trace = run_pipeline(night.STAGES, Night(state, state.night))
    after, events, more = night_results.finish_night(context)
    return after, events, (*trace, *more), Close.DONE


def resolve(state: GameState) -> Resolution[GameState]:
    """Resolve the current step, check the end (§9), and open the next step that asks anyone.

    A step that asks nobody is resolved at once (its events join this resolution).  Raises
    ValueError when the game is over.
    """
    if state.step is None:
        raise ValueError("the game is over")
    events: list[Event] = []
    trace: list[str] = []
    while True:
        step = state.step
        resolver = _resolve_night if step == Step.NIGHT else day.RESOLVERS[Step(step)]
        before = elite.record_sides(state)
        state, new_events, new_trace, close = resolver(before)
        following = STEP_TABLE.following(step, close).id
        events.extend(new_events)
        state, left = elite.agents_leave(before, state, following)
        events.extend(left)
        trace.extend(f"{step}: {line}" for line in new_trace)
        state, ending = wins.check_end(
            state, day_starts=step == Step.NIGHT, night_next=following == Step.NIGHT
        )
        events.extend(ending)
        if state.is_over:
            return Resolution(state, tuple(events), tuple(trace))
        state, opened = enter(state, following)
        trace.extend(f"{following}: {line}" for line in opened)
        if actions.asked(state):
            return Resolution(state, tuple(events), tuple(trace))
        trace.append(f"{following}: nobody is asked, resolved at once")
