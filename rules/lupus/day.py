"""The sunset resolution (§7): election, effective ballots, quorum, verdict, inactivity."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from rules.core.events import Death, Event, Inactive
from rules.core.pipeline import Stage, run_pipeline
from rules.core.votes import count, leaders
from rules.lupus.common import aftermath, awaken_fantasmi
from rules.lupus.dice import Dice
from rules.lupus.events import Election, Exile, Lynch, Mayor
from rules.lupus.ids import DEAD, EXILED, SINDACO, SUCCESSORE
from rules.lupus.state import GameState, Marks


@dataclass
class Sunset:
    """What the stages of one sunset decide; it lives only while :func:`resolve_day` runs."""

    state: GameState
    dice: Dice
    ballots: dict[str, str | None] = field(default_factory=dict)
    condemned: str | None = None
    events: list[Event] = field(default_factory=list)


def _votes_of(state: GameState, keyword: str) -> dict[str, tuple[str, ...]]:
    """Voter -> names of the votes in force with ``keyword`` ("" = the rogo ballot)."""
    found: dict[str, tuple[str, ...]] = {}
    for key, names in state.votes:
        voter, _, word = key.partition(":")
        if word == keyword:
            found[voter] = names
    return found


def _designation(sunset: Sunset) -> list[str]:
    state = sunset.state
    for voter, names in _votes_of(state, SUCCESSORE).items():
        if voter == state.mayor:
            heir = names[0] if names else None
            sunset.state = replace(state, successor=heir)
            return [f"the Sindaco designates {heir}"]
    return []


def _election(sunset: Sunset) -> list[str]:
    state = sunset.state
    if not state.has_mayor:
        return []
    living = [p.name for p in state.in_play()]
    named = [names[0] for names in _votes_of(state, SINDACO).values() if names]
    if not named:
        return []
    totals = count(named)
    top = [name for name, votes in totals.items() if 2 * votes > len(living)]
    elected = top[0] if top else None
    in_seat_order = {p.name: totals[p.name] for p in state.players if p.name in totals}
    sunset.events.append(Election(player=elected, totals=in_seat_order))
    if elected is None:
        return [f"no absolute majority: {totals}"]
    if elected != state.mayor:
        # A change of hands clears the designation: it was the old Sindaco's choice (ruling).
        sunset.state = replace(state, mayor=elected, successor=None)
    sunset.events.append(Mayor(player=elected, via="election"))
    return [f"{elected} elected Sindaco"]


def _ballots(sunset: Sunset) -> list[str]:
    """Effective ballots (§7.3): amnesia, ipnosi, hypnosis chains, frauds."""
    state = sunset.state
    marks = state.marks
    living = [p.name for p in state.in_play()]
    sent = _votes_of(state, "")
    ballots: dict[str, str | None] = {
        name: (sent[name][0] if sent.get(name) else None) for name in living
    }
    detached: set[str] = set()
    trace: list[str] = []
    for name in living:
        if name in marks.amnesia:
            ballots[name] = None
            detached.add(name)
    for voter, forced in marks.ipnosi:
        if voter in ballots and voter not in detached and forced in ballots:
            ballots[voter] = forced
            detached.add(voter)
            trace.append(f"ipnosi: {voter} votes {forced}")
    links = {
        name: controller
        for name in living
        if name not in detached
        and (controller := state.get(name).controller) is not None
        and controller in ballots
        and controller != name
    }
    while (cycle := _cycle(links, living)) is not None:
        broken = sunset.dice.pick(cycle)
        del links[broken]
        trace.append(f"hypnosis cycle {cycle}: {broken}'s link ignored today")
    base = dict(ballots)
    for name in links:
        root = name
        while root in links:
            root = links[root]
        ballots[name] = base[root]
        trace.append(f"{name} votes as {root}: {base[root]}")
    frauds = [(s, x) for s, x in marks.frauds if s in ballots]
    by_target: dict[str, list[str]] = {}
    for scrutatore, target in frauds:
        by_target.setdefault(target, []).append(scrutatore)
    standing = [(sunset.dice.pick(users), target) for target, users in by_target.items()]
    if len(standing) > 1:
        standing = sunset.dice.shuffle(standing)
    for scrutatore, target in standing:
        moved = ballots[scrutatore]
        for voter, voted in ballots.items():
            if voted == target:
                ballots[voter] = moved
        trace.append(f"fraud of {scrutatore}: ballots on {target} -> {moved}")
    sunset.ballots = ballots
    return trace


def _cycle(links: dict[str, str], order: Sequence[str]) -> list[str] | None:
    """Return the members of one cycle of ``links`` (voter -> controller), or None."""
    for start in order:
        seen: list[str] = []
        node = start
        while node in links and node not in seen:
            seen.append(node)
            node = links[node]
        if node in seen:
            return seen[seen.index(node) :]
    return None


def _verdict(sunset: Sunset) -> list[str]:
    state = sunset.state
    living = state.in_play()
    effective = {voter: voted for voter, voted in sunset.ballots.items() if voted is not None}
    totals = count(effective[p.name] for p in living if p.name in effective)
    ordered_totals = {p.name: totals[p.name] for p in living if p.name in totals}
    failed: str | None = None
    condemned: str | None = None
    trace: list[str] = []
    if 2 * len(effective) < len(living):
        failed = "quorum"
        trace.append(f"no quorum: {len(effective)} ballots, {len(living)} living")
    else:
        top = leaders(ordered_totals)
        mayor_choice = effective.get(state.mayor) if state.mayor is not None else None
        if len(top) == 1:
            condemned = top[0]
        elif mayor_choice in top:
            condemned = mayor_choice
            trace.append(f"tie {list(top)} broken by the Sindaco")
        else:
            condemned = sunset.dice.pick(top)
            trace.append(f"tie {list(top)}: {condemned} drawn")
        if condemned in state.marks.letters:
            # The Avvocato's letter annuls the sentence; nobody is named (ruling, FAQ 9).
            trace.append(f"{condemned} saved by the Avvocato")
            condemned, failed = None, "avvocato"
    sunset.condemned = condemned
    sunset.events.append(
        Lynch(
            player=condemned,
            totals=ordered_totals,
            ballots={p.name: effective[p.name] for p in living if p.name in effective},
            failed=failed,
        )
    )
    return trace


def _death(sunset: Sunset) -> list[str]:
    name = sunset.condemned
    if name is None:
        return []
    player = sunset.state.get(name)
    state = sunset.state.with_player(replace(player, status=DEAD, death_faction=player.faction))
    sunset.events.append(Death(player=name, cause="rogo"))
    state, events, trace = awaken_fantasmi(state, [name], sunset.dice)
    sunset.state = state
    sunset.events.extend(events)
    return [f"{name} burnt", *trace]


def _inactivity(sunset: Sunset) -> list[str]:
    state = sunset.state
    sent = _votes_of(state, "")
    exiles: list[Event] = []
    trace: list[str] = []
    for player in state.in_play():
        if player.name in sent:
            state = state.with_player(replace(player, missed=0))
            continue
        missed = player.missed + 1
        state = state.with_player(replace(player, missed=missed))
        sunset.events.append(Inactive(player=player.name, missed=missed))
        if missed >= state.settings.strictness:
            state = state.with_player(replace(state.get(player.name), status=EXILED))
            exiles.append(Exile(player=player.name, cause="inattivita"))
            trace.append(f"{player.name} exiled after {missed} missed ballots")
    sunset.events.extend(exiles)
    sunset.state = replace(state, marks=Marks())
    return trace


def _aftermath(sunset: Sunset) -> list[str]:
    state, events, trace = aftermath(sunset.state, sunset.dice)
    sunset.state = state
    sunset.events.extend(events)
    return trace


def _stage(name: str, run: Callable[[Sunset], Sequence[str]]) -> Stage[Sunset]:
    def step(sunset: Sunset) -> tuple[Sunset, Sequence[str]]:
        return sunset, run(sunset)

    return Stage(name, step)


STAGES: tuple[Stage[Sunset], ...] = (
    _stage("designation", _designation),
    _stage("election", _election),
    _stage("ballots", _ballots),
    _stage("verdict", _verdict),
    _stage("death", _death),
    _stage("inactivity", _inactivity),
    _stage("aftermath", _aftermath),
)
"""The steps of §7.1, in order (the marks expire with the inactivity stage's state)."""


def resolve_day(state: GameState) -> tuple[GameState, list[Event], tuple[str, ...]]:
    """Resolve the sunset of ``state``'s day: the new state (votes not yet cleared), events,
    trace."""
    sunset = Sunset(state=state, dice=Dice(state.seed, state.draws))
    sunset, trace = run_pipeline(STAGES, sunset)
    return replace(sunset.state, draws=sunset.dice.counter), sunset.events, trace
