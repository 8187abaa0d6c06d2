"""A player removed from a running game by an admin (docs/rules/wakkerdam.md, Rulings 29-31)."""

from __future__ import annotations

from dataclasses import replace

from rules.core.events import Removed, Win
from rules.core.model import Resolution
from rules.core.votes import withdraw
from rules.wakkerdam.board import Board
from rules.wakkerdam.deaths import kill
from rules.wakkerdam.engine import NIGHT_STEPS
from rules.wakkerdam.state import GameState
from rules.wakkerdam.wins import check

CAUSE = "verwijderd"
"""The cause of a death by removal."""


def remove(state: GameState, name: str) -> Resolution[GameState]:
    """Return the state after ``name``'s death by removal and its events (``removed``, the
    ``death``, a welp's promotion, the ``win``); the step and its deadline stay.

    Like a death of inactivity, it is quiet: no bodyguard dies for him, no Jager shot, his
    lover lives on (the bond breaks), a Dorpsoudste strips nobody; he owes no dead-action (no
    testament: a removed mayor's office is vacant and an election is due).  His votes and
    every vote naming him are withdrawn.  Raises ValueError for an unknown or dead player or
    an ended game.
    """
    if state.step is None or state.is_over:
        raise ValueError("the game is over")
    player = state.find(name)
    if player is None:
        raise ValueError(f"{name} is not a player of this game")
    if not player.alive:
        raise ValueError(f"{player.name} is already dead")
    name = player.name
    board = Board(state)
    board.note(f"{name} is removed by an admin ({state.step}, night {state.night})")
    board.emit(Removed(player=name))
    was_mayor = state.mayor == name
    kill(board, [(name, CAUSE)], at_night=state.step in NIGHT_STEPS)
    board.update(name, due=())  # a removed player owes nothing: he is out of the game
    if was_mayor:
        board.set(election_due=not state.elections_abolished)
        board.note(f"the office of mayor is vacant: election due {not state.elections_abolished}")
    board.set(
        votes=withdraw(state.votes.items(), name),
        wounded=tuple(w for w in state.wounded if w[0] != name),
    )
    after = board.freeze()
    events = list(board.events)
    outcome = check(after.players)
    if outcome.over:
        board.note(f"game over: {list(outcome.teams)} win: {list(outcome.winners)}")
        events.append(Win(teams=outcome.teams, winners=outcome.winners))
        after = replace(
            after, over=True, step=None, votes={}, winners=outcome.winners, teams=outcome.teams
        )
    return Resolution(after, tuple(events), tuple(board.trace))
