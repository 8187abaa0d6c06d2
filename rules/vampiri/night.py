"""The night's vote (docs/rules/vampiri.md, "Night"): approval votes, the tie procedure."""

from __future__ import annotations

from dataclasses import dataclass

from rules.core.events import Event
from rules.vampiri.actions import DECISION, in_force, slots_for
from rules.vampiri.events import Execution, Tie, Verdict
from rules.vampiri.spec import Effect
from rules.vampiri.state import GameState


@dataclass(frozen=True)
class NightResult:
    """What a night step decided: its public result, who is executed (seat order), and the
    players still tied (the next step of the tie procedure runs for them)."""

    events: tuple[Event, ...]
    executed: tuple[str, ...] = ()
    tied: tuple[str, ...] = ()
    trace: tuple[str, ...] = ()


def approval_totals(state: GameState) -> dict[str, int]:
    """Return player -> number of voters who named him: only players named, in seat order."""
    totals = dict.fromkeys((p.name for p in state.players), 0)
    for player in state.players:
        for slot in slots_for(state, player):
            chosen = in_force(state, player.name, slot)
            for name in chosen[1] if chosen else ():
                totals[name] += 1
    return {name: votes for name, votes in totals.items() if votes}


def resolve_vote(state: GameState) -> NightResult:
    """``votazione`` and ``spareggio``: nobody named -> nobody executed; a single highest ->
    executed; several highest -> a tie, and the next step of the procedure."""
    totals = approval_totals(state)
    best = max(totals.values(), default=0)
    top = tuple(name for name, votes in totals.items() if votes == best)
    line = f"totals {totals or 'none'}"
    if not top:
        return NightResult((Execution(player=None, totals=totals),), trace=(line, "nobody named"))
    if len(top) == 1:
        return NightResult(
            (Execution(player=top[0], totals=totals),),
            executed=top,
            trace=(line, f"{top[0]} executed"),
        )
    tied = (Tie(players=top, totals=totals),)
    if state.step == "spareggio":
        return NightResult(tied, tied=top, trace=(line, f"tie again: decisione for {list(top)}"))
    return NightResult(tied, tied=top, trace=(line, f"tie: spareggio for {list(top)}"))


def resolve_decision(state: GameState) -> NightResult:
    """``decisione``: strictly more ``condanna`` than ``risparmia`` executes every tied player
    (ruling "threshold"); anything else spares them all."""
    counts = {Effect.CONDEMN.value: 0, Effect.SPARE.value: 0}
    for player in state.players:
        chosen = in_force(state, player.name, DECISION) if slots_for(state, player) else None
        if chosen is not None and chosen[0].effect in (Effect.CONDEMN, Effect.SPARE):
            counts[chosen[0].effect.value] += 1
    condemned = counts[Effect.CONDEMN.value] > counts[Effect.SPARE.value]
    value = Effect.CONDEMN.value if condemned else Effect.SPARE.value
    tied = tuple(name for name in state.candidates if state.player(name).alive)
    verdict = Verdict(value=value, counts=counts, players=tied)
    return NightResult(
        (verdict,),
        executed=tied if condemned else (),
        trace=(f"counts {counts}: {value} {list(tied)}",),
    )
