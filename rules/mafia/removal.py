"""A player removed from a running game by an admin: a day death (docs/rules/mafia.md, 94)."""

from __future__ import annotations

from dataclasses import replace

from rules.core.events import Event, Removed
from rules.core.model import Resolution
from rules.mafia import deaths, wins
from rules.mafia.ids import Cause
from rules.mafia.state import GameState


def remove(state: GameState, name: str) -> Resolution[GameState]:
    """Return the state after ``name``'s death by removal (cause ``removed``) and its events:
    ``removed``, then what an inactivity death brings (§5.5): the ``death`` showing both his
    roles, a title holder's post lost (reason ``removed``: the notice told the death), the
    roles he frees inherited (each ``role_change`` with reason ``removed``: the heir's mail
    tells a removal, not a death), then the end check (§9) as after a day's vote.  The step
    and its deadline stay; his votes and every vote naming him are withdrawn.

    Raises ValueError for an unknown, dead or elite player (an agent is outside every count)
    or an ended game.
    """
    if state.step is None:
        raise ValueError("the game is over")
    player = state.find(name)
    if player is None:
        raise ValueError(f"{name} is not a player of this game")
    if not player.alive:
        raise ValueError(f"{player.name} is already dead")
    if player.is_elite:
        raise ValueError(f"{player.name} is an elite player, outside every count")
    name = player.name
    trace = [f"{name} is removed by an admin ({state.step}, day {state.day})"]
    votes = tuple(v for v in state.votes if v.player != name and name not in v.targets)
    state = replace(state, votes=votes)
    state, died = deaths.kill(state, [(name, Cause.REMOVED)], at_night=False)
    state, posts = deaths.after_deaths(state, [name], reason="removed")
    state, heirs = deaths.inherit(state, [name], reason="removed")
    events: list[Event] = [Removed(player=name), *died, *posts, *heirs]
    state, ending = wins.check_end(state, day_starts=False)
    events.extend(ending)
    if state.is_over:
        state = replace(state, votes=())
        trace.append("the game is over")
    return Resolution(state, tuple(events), tuple(trace))
