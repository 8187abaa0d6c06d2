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
    """§17.1: the Agent leaves after the result of day 3's vote, unless he holds a post then: he
    stays while he holds it (seed) and leaves when he loses it; a post lost before day 3's vote
    does not make him leave earlier (ruling 85).  His side is announced unless he chose it by a
    player's name."""
    events: list[Event] = []
    players = []
    posts = (after.mayor_in_office(), after.secretary_in_office())
    for agent in after.players:
        leaves = agent.peaceful == "agent" and agent.alive and agent.name not in posts
        if leaves and _is_due(before, after, following):
            chosen = after.sides.get(agent.name)
            events.append(AgentLeft(agent.name, chosen if chosen in TEAMS else None))
            agent = replace(agent, alive=False, cause="left")
        players.append(agent)
    if not events:
        return after, ()
    return replace(after, players=tuple(players)), tuple(events)


def _is_due(before: GameState, after: GameState, following: str) -> bool:
    """Whether day 3's vote has had its result: at the step that ends day 3's votes, and at every
    step after it (night n and day n share the counter n)."""
    if after.day > 3:
        return True
    return after.day == 3 and (before.step == Step.NIGHT or following == Step.NIGHT)
