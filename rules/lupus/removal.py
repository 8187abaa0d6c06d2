"""A player disqualified by the game master: an exile (docs/rules/lupus.md, Ruling 27)."""

from __future__ import annotations

from dataclasses import replace

from rules.core.events import Event, Removed
from rules.core.model import Resolution
from rules.core.votes import withdraw
from rules.lupus.common import aftermath
from rules.lupus.dice import Dice
from rules.lupus.events import Exile
from rules.lupus.ids import EXILED
from rules.lupus.state import GameState, Marks

CAUSE = "squalifica"
"""The cause of an exile by disqualification."""


def remove(state: GameState, name: str) -> Resolution[GameState]:
    """Return the state after ``name``'s disqualification and its events: ``removed``, his
    ``exile`` (cause ``squalifica``), then the aftermath of §2 and §7.6 at once (defeats and
    their exiles, the win, the Sindaco's succession); the step and its deadline stay.

    A disqualified Sindaco's designation falls with him: the office is drawn among the living
    in play (``mayor`` via ``draw``), never given to the successor he named.  His votes, every
    vote naming him, a designation of him and the marks that name him are void.  A dead player
    (a Spettro, a corpse) may be disqualified too.  Raises ValueError for an unknown or
    already exiled player or an ended game.
    """
    if state.step is None:
        raise ValueError("the game is over")
    player = state.find(name)
    if player is None:
        raise ValueError(f"{name} is not a player of this game")
    if player.exiled:
        raise ValueError(f"{name} is already exiled")
    trace = [f"{name} is disqualified by the game master ({state.step} {state.night}/{state.day})"]
    events: list[Event] = [Removed(player=name), Exile(player=name, cause=CAUSE)]
    successor = state.successor
    if successor == name or state.mayor == name:
        successor = None
        trace.append("the designation falls")
    marks = state.marks
    state = replace(
        state.with_player(replace(player, status=EXILED)),
        votes=tuple(withdraw(state.votes, name).items()),
        successor=successor,
        marks=Marks(
            letters=marks.letters - {name},
            amnesia=marks.amnesia - {name},
            ipnosi=tuple(pair for pair in marks.ipnosi if name not in pair),
            frauds=tuple(pair for pair in marks.frauds if name not in pair),
        ),
    )
    dice = Dice(state.seed, state.draws)
    state, more, lines = aftermath(state, dice)
    state = replace(state, draws=dice.counter)
    return Resolution(state, tuple(events + more), tuple(trace + lines))
