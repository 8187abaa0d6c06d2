"""The vampiri step table, the resolver of each step, and the advance to the next step."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rules.core.events import Death, Event, Inactive, Removed, Win
from rules.core.model import Resolution, Seat, Settings
from rules.core.votes import withdraw
from rules.vampiri import day, night
from rules.vampiri.actions import NIGHT_STEPS, asked, has_voted, slots_for
from rules.vampiri.distributions import (
    GUARDIE_PLAYERS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLACEHOLDERS,
    RESERVED,
)
from rules.vampiri.events import Hunters
from rules.vampiri.roles import LORDS, ROLES, WITH_ABILITY
from rules.vampiri.spec import Team
from rules.vampiri.state import UNDERCOVER_ORDER, GameState, Player
from rules.vampiri.steps import GIUSTIZIATO, INATTIVITA, OPTIONS, RIMOSSO, STEP_TABLE, UCCISO
from rules.vampiri.wins import Outcome, award, check


def _check_seats(seats: Sequence[Seat]) -> None:
    """Raise ValueError for a table the rules refuse (docs/rules/vampiri.md, "Start")."""
    n = len(seats)
    if n != GUARDIE_PLAYERS and not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"a game has 3 or {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
    names = [seat.name for seat in seats]
    if len({name.casefold() for name in names}) != n:
        raise ValueError("player names must be unique (ignoring case)")
    for seat in seats:
        if seat.role in PLACEHOLDERS:
            raise ValueError(f"{seat.name}: {seat.role!r} is a placeholder, not a role")
        if seat.role in RESERVED:
            raise ValueError(f"{seat.name}: {seat.role!r} is reserved, not playable yet")
        if seat.role not in ROLES:
            raise ValueError(f"unknown role {seat.role!r} for {seat.name}")
    counts = Counter(seat.role for seat in seats)
    if sum(counts[lord] for lord in LORDS) > 1:
        raise ValueError("a game has one Signore dei Vampiri at most")
    twice = sorted(role for role in WITH_ABILITY if counts[role] > 1)
    if twice:
        raise ValueError(f"special roles dealt twice: {', '.join(twice)}")
    if n == GUARDIE_PLAYERS and counts != Counter({"vampiro": 2, "cacciatore": 1}):
        raise ValueError("Guardie al Cancello is two vampiro and one cacciatore")


def new_game(seats: Sequence[Seat], settings: Settings) -> GameState:
    """Return the state of a new game at ``votazione`` of night 1.

    Raises ValueError for a refused table or settings (docs/rules/vampiri.md, "Start").
    """
    _check_seats(seats)
    if settings.strictness < 1:
        raise ValueError("strictness must be at least 1")
    settings.check_options(OPTIONS)
    if settings.option("mayor", False):
        raise ValueError("La Notte dei Vampiri has no mayor")
    roles = {seat.role for seat in seats}
    if settings.option("undercover", False) and not roles & set(UNDERCOVER_ORDER):
        raise ValueError("undercover needs an esploratore or a bella")
    players = tuple(Player(name=s.name, role=s.role, gender=s.gender) for s in seats)
    return GameState(settings=settings, players=players)


class _Turn:
    """The private working copy of one resolution: players, fields, events, trace."""

    def __init__(self, state: GameState) -> None:
        self.start = state
        self.players = list(state.players)
        self.fields: dict[str, Any] = {}
        self.events: list[Event] = []
        self.trace: list[str] = []
        self.skipped = 0

    def state(self) -> GameState:
        return replace(self.start, players=tuple(self.players), **self.fields)

    def set(self, **fields: Any) -> None:
        self.fields.update(fields)

    def update(self, name: str, **changes: Any) -> None:
        seat = self.start.index[name]
        self.players[seat] = replace(self.players[seat], **changes)

    def kill(self, deaths: Sequence[tuple[str, str]]) -> None:
        """Apply deaths in order (a player dies once) with their public events."""
        for name, cause in deaths:
            if self.players[self.start.index[name]].alive:
                self.update(name, alive=False, cause=cause)
                self.events.append(Death(player=name, cause=cause))
                self.trace.append(f"{name} dies ({cause})")

    def finish(self, outcome: Outcome) -> None:
        assert outcome.team is not None
        self.events.append(Win(teams=(outcome.team,), winners=outcome.winners))
        self.trace.append(f"game over: {outcome.team} win: {list(outcome.winners)}")
        self.set(step=None, over=True, winners=outcome.winners, teams=(outcome.team,))

    def won(self) -> bool:
        """Check the win conditions now; end the game when one holds."""
        outcome = check(self.players)
        if outcome.over:
            self.finish(outcome)
        return outcome.over


def _inactivity(turn: _Turn) -> list[tuple[str, str]]:
    """Night steps only: count misses of the asked players; return the inactivity deaths."""
    state = turn.start
    deaths: list[tuple[str, str]] = []
    for player in state.players:
        if not slots_for(state, player):
            continue
        if has_voted(state, player):
            turn.update(player.name, missed=0)
            continue
        missed = player.missed + 1
        turn.update(player.name, missed=missed)
        turn.events.append(Inactive(player=player.name, missed=missed))
        turn.trace.append(f"{player.name} missed a night vote ({missed} in a row)")
        if missed >= state.settings.strictness:
            deaths.append((player.name, INATTIVITA))
    return deaths


def _resolve_night(turn: _Turn) -> None:
    state = turn.start
    result = (
        night.resolve_decision(state) if state.step == "decisione" else night.resolve_vote(state)
    )
    turn.events.extend(result.events)
    turn.trace.extend(result.trace)
    deaths = [(name, GIUSTIZIATO) for name in result.executed]
    deaths += _inactivity(turn)
    turn.kill(deaths)
    if deaths and turn.won():
        return
    following = "spareggio" if state.step == "votazione" else "decisione"
    tied = tuple(name for name in result.tied if turn.players[state.index[name]].alive)
    if tied:
        turn.set(step=following, candidates=tied)
        _open(turn)
    else:
        if result.tied:
            turn.trace.append("every tied player died: the night ends")
        _end_night(turn)


def _end_night(turn: _Turn) -> None:
    """The night is over: Guardie al Cancello ends, tourists learn the group, the day opens."""
    state = turn.state()
    if state.is_guardie:
        turn.trace.append("Guardie al Cancello: the hunters survived night 1")
        turn.finish(award(turn.players, Team.CACCIATORI.value))
        return
    if state.night == 1 and state.flag("tourist_hunters"):
        for name in state.group:
            if state.player(name).alive:
                turn.events.append(Hunters(player=name, players=state.group))
    turn.set(step="giorno", day=state.night, candidates=(), silenced=None)
    _open(turn)


def _resolve_day(turn: _Turn) -> None:
    decided, trace = day.resolve_day(turn.start)
    turn.trace.extend(trace)
    turn.events.extend(day.private_results(decided))
    turn.kill([(name, UCCISO) for name in decided.dead])
    if decided.dead and turn.won():
        return
    turn.set(silenced=decided.silenced)
    _end_day(turn)


def _end_day(turn: _Turn) -> None:
    state = turn.state()
    turn.set(step="votazione", night=state.night + 1, day=state.night, candidates=())
    _open(turn)


def _open(turn: _Turn) -> None:
    """Enter the step set on ``turn``; a step with nobody asked is skipped as if it ended
    without a result (it takes no time and sends no mail)."""
    state = turn.state()
    if asked(state):
        return
    turn.trace.append(f"{state.step}: nobody asked, skipped")
    turn.skipped += 1
    # While nobody has won, someone is always asked by night or by day; more than a full
    # cycle of skips would be a bug in the win check, not a game to play on.
    if turn.skipped > len(STEP_TABLE.steps):
        raise RuntimeError("no step has anyone asked, yet nobody has won")
    if state.step in NIGHT_STEPS:
        _end_night(turn)
    else:
        _end_day(turn)


def resolve(state: GameState) -> Resolution[GameState]:
    """Resolve the current step at its deadline and advance (or end the game).

    Raises ValueError when the game is already over.
    """
    if state.step is None or state.over:
        raise ValueError("the game is over")
    turn = _Turn(state)
    turn.trace.append(f"step {state.step}, night {state.night}, day {state.day}")
    if state.step in NIGHT_STEPS:
        _resolve_night(turn)
    else:
        _resolve_day(turn)
    turn.set(votes={})
    return Resolution(turn.state(), tuple(turn.events), tuple(turn.trace))


def remove(state: GameState, name: str) -> Resolution[GameState]:
    """Return the state after ``name``'s death by removal (an admin's decision: cause
    ``rimosso``) and its events: ``removed``, the ``death``, the ``win`` when a team now wins.
    The step and its deadline stay; his votes and every vote naming him are withdrawn.

    Raises ValueError for an unknown or dead player or an ended game.
    """
    if state.step is None or state.over:
        raise ValueError("the game is over")
    player = state.find(name)
    if player is None:
        raise ValueError(f"{name} is not a player of this game")
    if not player.alive:
        raise ValueError(f"{player.name} is already dead")
    turn = _Turn(state)
    turn.trace.append(f"{player.name} is removed by an admin ({state.step}, night {state.night})")
    turn.events.append(Removed(player=player.name))
    turn.kill([(player.name, RIMOSSO)])
    turn.set(votes=withdraw(state.votes.items(), player.name))
    if turn.won():
        turn.set(votes={})
    return Resolution(turn.state(), tuple(turn.events), tuple(turn.trace))
