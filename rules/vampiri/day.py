"""The day (``giorno``) as a declared pipeline of pure stages in the seed's call order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rules.core.events import Event
from rules.core.pipeline import Stage, run_pipeline
from rules.vampiri.actions import in_force, slots_for
from rules.vampiri.events import Blocked, Hunt, Investigation, LoneHunt, Silenced
from rules.vampiri.roles import CATEGORIES, HUNT_SLOTS, WITH_ABILITY, day_slots, stage_of
from rules.vampiri.spec import Effect, Option
from rules.vampiri.state import GameState, Player

HUNTERS_SOURCE = "cacciatori"
"""The source of the hunters' kill attempt (one visitor, whoever voted)."""


@dataclass(frozen=True)
class Attempt:
    """A kill attempt on ``target`` by ``source`` (a role id, ``cacciatori`` or ``agguato``)
    made by ``actor`` (the hunters: empty)."""

    source: str
    actor: str
    target: str


@dataclass(frozen=True)
class Day:
    """What the day's stages decided so far (each stage returns a new one)."""

    state: GameState
    blocked: str | None = None
    protected: frozenset[str] = frozenset()
    attempts: tuple[Attempt, ...] = ()
    investigations: tuple[tuple[str, str], ...] = ()
    silenced: str | None = None
    hunters: tuple[str, ...] = ()
    hunt: str | None = None
    hunt_voters: tuple[str, ...] = ()
    ambush: bool = False
    dead: tuple[str, ...] = ()


def _apply(day: Day, actor: Player, option: Option, names: tuple[str, ...]) -> Day:
    """Apply one unblocked ability with its names (none: a pass)."""
    if option.effect is Effect.AMBUSH:
        return replace(day, ambush=True)
    if not names:
        return day
    target = names[0]
    if option.effect is Effect.BLOCK:
        return replace(day, blocked=target)
    if option.effect is Effect.PROTECT:
        return replace(day, protected=day.protected | {target})
    if option.effect is Effect.KILL:
        attempt = Attempt(source=actor.role, actor=actor.name, target=target)
        return replace(day, attempts=(*day.attempts, attempt))
    if option.effect is Effect.INVESTIGATE:
        return replace(day, investigations=(*day.investigations, (actor.name, target)))
    if option.effect is Effect.SILENCE:
        return replace(day, silenced=target)
    raise ValueError(f"no day effect {option.effect}")


def role_stage(name: str) -> Stage[Day]:
    """Return the stage where the roles acting at ``name`` use their abilities (seat order)."""

    def run(day: Day) -> tuple[Day, Sequence[str]]:
        lines: list[str] = []
        wolf_den = day.state.flag("wolf_den")
        for actor in day.state.players:
            if not actor.alive or stage_of(actor.role, wolf_den=wolf_den) != name:
                continue
            for slot in day_slots(actor.role, wolf_den=wolf_den):
                chosen = in_force(day.state, actor.name, slot)
                if chosen is None:
                    lines.append(f"{actor.name} ({actor.role}) sent nothing")
                elif actor.name == day.blocked:
                    lines.append(f"{actor.name} ({actor.role}) is blocked")
                else:
                    option, names = chosen
                    day = _apply(day, actor, option, names)
                    lines.append(f"{actor.name} ({actor.role}) {option.action} {list(names)}")
        return day, lines

    return Stage(name, run)


def _hunt_ballots(day: Day) -> list[tuple[Player, str | None]]:
    """The hunters' votes in force: (voter, named player or None for "no victim")."""
    ballots: list[tuple[Player, str | None]] = []
    for voter in day.state.players:
        slot = HUNT_SLOTS[voter.role]
        if slot is None or slot not in slots_for(day.state, voter):
            continue
        chosen = in_force(day.state, voter.name, slot)
        if chosen is not None:
            ballots.append((voter, chosen[1][0] if chosen[1] else None))
    return ballots


def hunters_stage(day: Day) -> tuple[Day, Sequence[str]]:
    """Noon: the living group members' majority; a tie goes to an unblocked Leader's option
    if it is among the tied, else there is no victim (ruling "majority")."""
    voters = tuple(p.name for p in day.state.players if p.alive and p.name in day.state.group)
    if not voters:
        return day, ["no living hunter in the group"]
    ballots = _hunt_ballots(day)
    counts: dict[str | None, int] = {}
    for _voter, choice in ballots:
        counts[choice] = counts.get(choice, 0) + 1
    best = max(counts.values(), default=0)
    top = [choice for choice, votes in counts.items() if votes == best]
    lines = [f"ballots {[(v.name, c) for v, c in ballots]}"]
    chosen: str | None = None
    if len(top) == 1:
        chosen = top[0]
    elif top:
        leader = [(v, c) for v, c in ballots if v.role == "leader" and v.name != day.blocked]
        if leader and leader[0][1] in top:
            chosen = leader[0][1]
            lines.append(f"tie broken by the Leader {leader[0][0].name}")
        else:
            lines.append("tie without an unblocked Leader: no victim")
    lines.append(f"victim {chosen}")
    named = tuple(v.name for v, c in ballots if chosen is not None and c == chosen)
    day = replace(day, hunters=voters, hunt=chosen, hunt_voters=named)
    if chosen is not None:
        attempt = Attempt(source=HUNTERS_SOURCE, actor="", target=chosen)
        day = replace(day, attempts=(*day.attempts, attempt))
    return day, lines


def _nearest_attacker(day: Day, wolf: str) -> str:
    """The hunter who named the Licantropo first clockwise (seat order) after his seat."""
    seats = day.state.index
    count = len(day.state.players)
    return min(day.hunt_voters, key=lambda name: (seats[name] - seats[wolf]) % count)


def ambush_stage(day: Day) -> tuple[Day, Sequence[str]]:
    """Nightfall: the ambushing Licantropo's first visitor's attempt turns on the visitor."""
    if not day.ambush:
        return day, []
    wolf = next(p.name for p in day.state.players if p.role == "licantropo")
    visitors = [a for a in day.attempts if a.target == wolf]
    if not visitors:
        return day, [f"{wolf} waits in ambush; nobody visits"]
    first = visitors[0]
    victim = _nearest_attacker(day, wolf) if first.source == HUNTERS_SOURCE else first.actor
    attempts = [a for a in day.attempts if a is not first]
    attempts.append(Attempt(source="agguato", actor=wolf, target=victim))
    line = f"{wolf} ambushes {first.source}: the attempt on him turns on {victim}"
    return replace(day, attempts=tuple(attempts)), [line]


def deaths_stage(day: Day) -> tuple[Day, Sequence[str]]:
    """Nightfall: everyone with a remaining attempt who is not protected dies (seat order)."""
    struck = {a.target for a in day.attempts}
    dead = tuple(p.name for p in day.state.players if p.name in struck - day.protected)
    saved = sorted(struck & day.protected, key=day.state.index.__getitem__)
    return replace(day, dead=dead), [f"protected {saved}", f"dead {list(dead)}"]


STAGES: tuple[Stage[Day], ...] = (
    role_stage("dawn.monaco"),
    role_stage("dawn.lamia"),
    role_stage("dawn.regina"),
    role_stage("dawn.licantropo"),
    Stage("noon.cacciatori", hunters_stage),
    role_stage("dusk.signore"),
    role_stage("dusk.nosferatu"),
    role_stage("dusk.licantropo"),
    role_stage("dusk.kitsune"),
    role_stage("dusk.banshee"),
    role_stage("dusk.esploratore"),
    role_stage("dusk.bella"),
    Stage("nightfall.agguato", ambush_stage),
    Stage("nightfall.deaths", deaths_stage),
)
"""The day's stages in the seed's call order (docs/rules/vampiri.md, "Day")."""


def private_results(day: Day) -> list[Event]:
    """The nightfall's private events, in transcript order: blocked, hunt, investigations,
    silenced (a blocked plain vampire or hunter is told nothing: he has no ability)."""
    state = day.state
    events: list[Event] = []
    if day.blocked is not None and state.player(day.blocked).role in WITH_ABILITY:
        events.append(Blocked(player=day.blocked))
    if day.hunters:
        hunt: Callable[..., Hunt] = LoneHunt if state.flag("lone_hunter") else Hunt
        events.append(hunt(target=day.hunt, hunters=day.hunters))
    for investigator, target in day.investigations:
        category = CATEGORIES[state.player(target).role].value
        events.append(Investigation(player=investigator, target=target, category=category))
    if day.silenced is not None:
        events.append(Silenced(player=day.silenced))
    return events


def resolve_day(state: GameState) -> tuple[Day, tuple[str, ...]]:
    """Run the day's pipeline on the votes in force; return its decisions and trace."""
    return run_pipeline(STAGES, Day(state=state))
