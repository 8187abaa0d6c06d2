"""The end of the game (§9): the draw by stalemate, the red win and the black win."""

from __future__ import annotations

from dataclasses import replace

from rules.core.events import Event, Win
from rules.mafia import elite, status
from rules.mafia.events import Draw
from rules.mafia.ids import Team
from rules.mafia.state import GameState


def check_end(state: GameState, *, day_starts: bool) -> tuple[GameState, tuple[Event, ...]]:
    """Return the state (ended when the game is over) and its ``win``/``draw`` event (§9.2).

    ``day_starts``: the step was a ``night`` (the R = B rule applies at the start of a day).
    """
    if state.draw:
        return replace(state, step=None), (Draw(reason="stalemate"),)
    reds, blacks = status.counts(state)
    winner: Team | None = None
    if blacks == 0:
        winner = Team.RED
    elif reds < blacks or (day_starts and reds == blacks and not status.is_hunt_possible(state)):
        winner = Team.BLACK
    if winner is None:
        return state, ()
    winners = tuple(
        p.name
        for p in state.players
        if (not p.is_elite and p.team is winner)
        or (p.is_elite and elite.side_team(state, p.name) == winner.value)
    )
    ended = replace(state, step=None, winners=winners, teams=(winner.value,))
    return ended, (Win(teams=(winner.value,), winners=winners),)


def outcomes(state: GameState) -> dict[str, str]:
    """player -> ``win``/``draw``/``loss`` (§9.3); empty while the game goes on."""
    if not state.is_over:
        return {}
    if state.draw:
        return {p.name: "draw" for p in state.players}
    return {p.name: "win" if p.name in state.winners else "loss" for p in state.players}
