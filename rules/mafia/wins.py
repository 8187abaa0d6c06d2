"""The end of the game (§9): the draw by stalemate, the red win and the black win, and the
Faceless's outcomes (§16.6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from rules.core.events import Event, Win
from rules.mafia import elite, status
from rules.mafia.events import Draw, FacelessLeft
from rules.mafia.ids import Team
from rules.mafia.state import GameState, Player

FACELESS_DEATHS = status.FACELESS_DEATHS
"""T of §16.6: the deaths of the starting line-up after which the Faceless leaves with a win."""


def check_end(
    state: GameState, *, day_starts: bool, night_next: bool = False
) -> tuple[GameState, tuple[Event, ...]]:
    """Return the state (ended when the game is over) and its events (§9.2, §16.6).

    ``day_starts``: the step was a ``night`` (the R = B rule applies at the start of a day);
    ``night_next``: the day's votes are over (the reds' last day against the Faceless).
    """
    if state.draw:
        return replace(state, step=None), (Draw(reason="stalemate"),)
    faceless = _faceless(state)
    if faceless is not None:
        return _with_faceless(state, faceless, day_starts=day_starts, night_next=night_next)
    winner = _team_win(state, day_starts=day_starts)
    if winner is None:
        return state, ()
    return _win(state, winner)


def _team_win(state: GameState, *, day_starts: bool) -> Team | None:
    reds, blacks = status.counts(state)
    if blacks == 0:
        return Team.RED
    if reds < blacks or (day_starts and reds == blacks and not status.is_hunt_possible(state)):
        return Team.BLACK
    return None


def _win(state: GameState, winner: Team) -> tuple[GameState, tuple[Event, ...]]:
    """A team's win; after the Faceless left victorious it is a draw for that team (§16.6)."""
    winners = tuple(
        p.name
        for p in state.players
        if (not p.is_elite and p.team is winner)
        or (p.is_elite and elite.side_team(state, p.name) == winner.value)
    )
    if not state.faceless_left:
        ended = replace(state, step=None, winners=winners, teams=(winner.value,))
        return ended, (Win(teams=(winner.value,), winners=winners),)
    final = _final(state, draws=winners)
    return replace(state, step=None, final=final), (Draw(reason="faceless"),)


def _faceless(state: GameState) -> Player | None:
    """The Faceless while he is in the game (alive and not gone), else None."""
    return next((p for p in state.players if p.faceless and p.alive), None)


def _deaths(state: GameState) -> int:
    """E of §16.6: the main players of the starting line-up who have died."""
    return sum(1 for p in state.players if not p.alive and not p.is_elite and p.cause != "left")


def _leave(state: GameState, faceless: Player) -> tuple[GameState, Event]:
    """The Faceless leaves the game with a win; from now on he counts nowhere."""
    players = tuple(
        replace(p, alive=False, cause="left") if p.name == faceless.name else p
        for p in state.players
    )
    state = replace(state, players=players, faceless_left=True, blacks_ahead=False)
    return state, FacelessLeft(faceless.name, "win")


def _with_faceless(
    state: GameState, faceless: Player, *, day_starts: bool, night_next: bool
) -> tuple[GameState, tuple[Event, ...]]:
    """§16.6 outcomes 1-3 while the Faceless is in the game."""
    events: list[Event] = []
    if _deaths(state) >= status.faceless_threshold(state):  # 1. survival
        state, left = _leave(state, faceless)
        events.append(left)
        winner = _team_win(state, day_starts=day_starts)
        if winner is None:
            return state, tuple(events)
        state, more = _win(state, winner)
        return state, (*events, *more)
    blacks = status.counts(state)[1]
    if state.blacks_ahead and day_starts:  # 3. the night after the blacks' win at a vote
        state, left = _leave(state, faceless)
        final = _final(state, draws=_members(state, Team.BLACK))
        return replace(state, step=None, final=final), (left, Draw(reason="faceless"))
    if blacks == 0:  # 2. the reds have until the end of day D to lynch him
        if not state.reds_deadline:
            state = replace(state, reds_deadline=max(state.day + 1, 5))
        if night_next and state.day >= state.reds_deadline:
            state, left = _leave(state, faceless)
            final = _final(state, draws=_members(state, Team.RED))
            return replace(state, step=None, final=final), (left, Draw(reason="faceless"))
        return state, ()
    if _team_win(state, day_starts=day_starts) is Team.BLACK:  # 3. blacks ahead
        if day_starts:
            state, left = _leave(state, faceless)
            final = _final(state, draws=_members(state, Team.BLACK))
            return replace(state, step=None, final=final), (left, Draw(reason="faceless"))
        return replace(state, blacks_ahead=True), ()
    return state, ()


def _members(state: GameState, team: Team) -> tuple[str, ...]:
    """A team's members, alive or dead, and the elite players who sided with it."""
    return tuple(
        p.name
        for p in state.players
        if (not p.is_elite and p.team is team)
        or (p.is_elite and elite.side_team(state, p.name) == team.value)
    )


def _final(state: GameState, *, draws: tuple[str, ...]) -> Mapping[str, str]:
    """Every player's outcome when the Faceless shaped the end: he wins when he left, draws when
    killed at night or by his own suicide, loses when lynched; ``draws`` draw; the rest lose."""
    final: dict[str, str] = {}
    for p in state.players:
        if p.faceless:
            if state.faceless_left:
                final[p.name] = "win"
            elif p.cause == "lynch":
                final[p.name] = "loss"
            else:
                final[p.name] = "draw"
        else:
            final[p.name] = "draw" if p.name in draws else "loss"
    return final


def outcomes(state: GameState) -> dict[str, str]:
    """player -> ``win``/``draw``/``loss`` (§9.3); empty while the game goes on."""
    if not state.is_over:
        return {}
    if state.final:
        return dict(state.final)
    if state.draw:
        return {p.name: "draw" for p in state.players}
    found = {p.name: "win" if p.name in state.winners else "loss" for p in state.players}
    for p in state.players:
        if p.faceless and p.cause != "lynch" and p.cause is not None:
            found[p.name] = "draw"  # §16.6 outcome 4: killed at night, or his suicide
    return found
