"""The elite players (§17): their side choice, the Agent's leaving, their outcomes."""

from __future__ import annotations

from dataclasses import replace

from rules.core.events import Event
from rules.mafia.events import AgentLeft
from rules.mafia.ids import TEAMS, Step
from rules.mafia.state import GameState


def record_sides(state: GameState) -> GameState:
    """§17: an elite player's `side` in force at a step's deadline is accepted and final."""
    sides = dict(state.sides)
    for vote in state.votes:
        if vote.action == "side" and vote.targets and vote.player not in sides:
            sides[vote.player] = vote.targets[0]
    return state if sides == state.sides else replace(state, sides=sides)


def side_team(state: GameState, name: str) -> str | None:
    """The team an elite player sided with: a team id, or the team of the player he named (at
    the end); None without a side."""
    chosen = state.sides.get(name)
    if chosen is None or chosen in TEAMS:
        return chosen
    player = state.find(chosen)
    return None if player is None or player.is_elite else player.team.value


def agents_leave(
    before: GameState, after: GameState, following: str
) -> tuple[GameState, tuple[Event, ...]]:
    """§17.1: the Agent leaves after the result of day 3's vote, or when he loses his post; his
    side is announced unless he chose it by a player's name."""
    events: list[Event] = []
    players = []
    for agent in after.players:
        posts = (before.mayor_in_office(), before.secretary_in_office())
        held = agent.name in posts
        lost = held and agent.name not in (after.mayor_in_office(), after.secretary_in_office())
        day_three = before.step != Step.NIGHT and following == Step.NIGHT and after.day == 3
        if agent.peaceful == "agent" and agent.alive and (lost or day_three):
            chosen = after.sides.get(agent.name)
            events.append(AgentLeft(agent.name, chosen if chosen in TEAMS else None))
            agent = replace(agent, alive=False, cause="left")
        players.append(agent)
    if not events:
        return after, ()
    return replace(after, players=tuple(players)), tuple(events)
