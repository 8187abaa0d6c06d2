"""Optional roles' day moves: the Advocate's defence, bought votes, examination, Judge, Hero."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.core.events import Event
from rules.core.rng import draw_from
from rules.mafia import validate
from rules.mafia.events import Examination, Explosion, HeroSave, Interrogation, SavedTeam
from rules.mafia.state import Ballot, GameState, RoleBlock

MAX_JUDGE_WEIGHT = 6


def hero_save(
    state: GameState, lynched: tuple[str, ...]
) -> tuple[GameState, tuple[str, ...], tuple[Event, ...]]:
    """§15.16: the Hero's save of a player the result lynches: a red's lynch (any for a black
    Hero) is cancelled; a red Hero saving a black is lynched with him."""
    hero = state.holder("hero")
    vote = state.vote_of(hero.name, "save") if hero is not None else None
    if hero is None or vote is None or not vote.targets or vote.targets[0] not in lynched:
        return state, lynched, ()
    target = state.get(vote.targets[0])
    memory = replace(
        state.memory_of("hero"),
        save_used=True,
        saved_on={**state.memory_of("hero").saved_on, target.name: state.day},
    )
    events: list[Event] = []
    if target.is_black and not hero.is_black and not hero.faceless:  # §15.16: he saves anyone
        lynched = (*lynched, hero.name)
        events.append(HeroSave(hero.name, target.name, "joined"))
    else:
        lynched = tuple(n for n in lynched if n != target.name)
        events.append(HeroSave(hero.name, target.name, "cancelled"))
        state = replace(state, today=replace(state.today, hero_cancelled=True))
        if not target.is_black and not hero.faceless:
            memory = replace(memory, cancelled_red=True)
        if hero.is_black:
            events.append(SavedTeam(hero.name, target.name, target.team.value))
            if target.is_black:
                memory = replace(memory, no_kill=(hero.name, target.name), no_kill_night=state.day)
            else:
                memory = replace(memory, spared=target.name)
    return replace(state, memory={**state.memory, "hero": memory}), lynched, tuple(events)


def defended(state: GameState) -> str | None:
    """§15.9: the Advocate's legal protection for today (a day move: a role block stops it)."""
    holder = state.holder("advocate")
    vote = state.vote_of(holder.name, "defend") if holder is not None else None
    if holder is None or vote is None or not vote.targets or state.is_role_blocked(holder.name):
        return None
    return vote.targets[0]


def buy(state: GameState) -> GameState:
    """§15.15: votes the Drug dealer buys weigh on his ballots today and leave his bank."""
    holder = state.holder("drug_dealer")
    vote = state.vote_of(holder.name, "buy") if holder is not None else None
    if holder is None or vote is None or not vote.targets or state.is_role_blocked(holder.name):
        return state
    bought = validate.parse_half(vote.targets[0]) or 0
    memory = state.memory_of("drug_dealer")
    memory = replace(memory, bought=bought, bank=memory.bank - bought)
    return replace(state, memory={**state.memory, "drug_dealer": memory})


def examine(state: GameState) -> GameState:
    """§15.22: the Criminalist's examination is a day move (a role block stops it)."""
    holder = state.holder("criminalist")
    vote = state.vote_of(holder.name, "examine") if holder is not None else None
    if holder is None or vote is None or not vote.targets or state.is_role_blocked(holder.name):
        return state
    memory = replace(state.memory_of("criminalist"), corpse=vote.targets[0], corpse_day=state.day)
    return replace(state, memory={**state.memory, "criminalist": memory})


def examination(state: GameState) -> tuple[Event, ...]:
    """§15.22: at the result of the day's last vote the Criminalist learns the killing role and
    the corpse's team."""
    holder = state.holder("criminalist")
    memory = state.memory_of("criminalist")
    if holder is None or memory.corpse is None or memory.corpse_day != state.day:
        return ()
    role, _ = state.killers[memory.corpse]
    return (Examination(holder.name, memory.corpse, role, state.get(memory.corpse).team.value),)


def politician_pre_vote(state: GameState) -> tuple[tuple[str, ...], str | None]:
    """§15.1: today's supporters and shadow vertical (a day move: a role block stops them); the
    shadow vertical only while a Mayor is in office."""
    holder = state.holder("politician")
    if holder is None or state.is_role_blocked(holder.name):
        return (), None
    support = state.vote_of(holder.name, "support")
    shadow = state.vote_of(holder.name, "shadow")
    supporters = support.targets if support is not None else ()
    if holder.name == state.mayor_in_office():
        supporters = ()
    named = shadow.targets[0] if shadow is not None and shadow.targets else None
    return supporters, named if state.mayor_in_office() is not None else None


def politician_cap(
    state: GameState, lynched: Sequence[str], ballots: Sequence[Ballot]
) -> GameState:
    """§15.1: the Politician's cap of supporters: +1 per lynched black, -1 (not below 0) per
    lynched red his own ballot named."""
    holder = state.holder("politician")
    if holder is None or not lynched:
        return state
    own = {t for b in ballots if b.voter == holder.name and not b.auto for t in b.targets}
    cap = state.memory_of("politician").support_cap
    for name in lynched:
        if state.get(name).is_black:
            cap += 1
        elif name in own:
            cap = max(cap - 1, 0)
    memory = replace(state.memory_of("politician"), support_cap=cap)
    return replace(state, memory={**state.memory, "politician": memory})


def judge_weight(state: GameState, lynched: Sequence[str], ballots: Sequence[Ballot]) -> GameState:
    """§15.14: the Judge's weight after a result: -3 per lynched red he voted against, -2 per
    other lynched red, +1 per lynched black he voted against (at most 6, never below 1)."""
    judge = state.holder("judge")
    if judge is None or not lynched:
        return state
    against = {t for b in ballots if b.voter == judge.name and not b.auto for t in b.targets}
    weight = state.memory_of("judge").weight
    for name in lynched:
        if state.get(name).is_black:
            weight = min(weight + (1 if name in against else 0), MAX_JUDGE_WEIGHT)
        else:
            weight -= 3 if name in against else 2
    memory = replace(state.memory_of("judge"), weight=max(weight, 1))
    return replace(state, memory={**state.memory, "judge": memory})


def arm(state: GameState) -> GameState:
    """§15.6: a Terrorist who sent `detonate` in the pre-vote arms his detonator (once per game;
    a role block stops it): today's main vote ends with his detonation."""
    holder = state.holder("terrorist")
    if holder is None or state.vote_of(holder.name, "detonate") is None:
        return state
    if state.is_role_blocked(holder.name) or state.memory_of("terrorist").detonator_used:
        return state
    memory = replace(state.memory_of("terrorist"), detonator_used=True)
    today = replace(state.today, armed=holder.name)
    return replace(state, memory={**state.memory, "terrorist": memory}, today=today)


def detonator_target(state: GameState, ballots: Sequence[Ballot]) -> tuple[GameState, str]:
    """§15.6: the armed Terrorist's target: his `detonate X`, else the player his own ballot named,
    else one drawn with the seed (RULING) among the living but him and the Mayor."""
    armed = state.today.armed or ""
    mayor = state.mayor_in_office()
    vote = state.vote_of(armed, "detonate")
    if vote is not None and vote.targets and state.get(vote.targets[0]).alive:
        return state, vote.targets[0]
    own = next((b for b in ballots if b.voter == armed and not b.auto), None)
    if own is not None and own.targets[0] not in (armed, mayor):
        return state, own.targets[0]
    pool = [p.name for p in state.living if p.name not in (armed, mayor)]
    return replace(state, draws=state.draws + 1), draw_from(state.seed, state.draws, pool)


def explode(
    state: GameState, lynched: Sequence[str], ballots: Sequence[Ballot], also: str | None = None
) -> tuple[GameState, tuple[Event, ...]]:
    """§15.6: every lynched Terrorist (role not blocked) blocks the roles of the players whose
    ballots named him (or ``also``, his detonator's target) until the next night but one opens;
    a black Terrorist's explosion leaves negative roles alone."""
    events: list[Event] = []
    blocks: list[RoleBlock] = []
    for name in lynched:
        terrorist = state.get(name)
        if terrorist.peaceful != "terrorist" or state.is_role_blocked(name):
            continue
        named = {name, also} - {None}
        voters = tuple(dict.fromkeys(b.voter for b in ballots if set(b.targets) & named))
        ends = state.day + 1
        for voter in voters:
            blocks.append(RoleBlock(voter, False, ends))
            if not terrorist.is_black and state.get(voter).is_black:
                blocks.append(RoleBlock(voter, True, ends))
        events.append(Explosion(name, voters))
    return replace(state, blocks=(*state.blocks, *blocks)), tuple(events)


def priest_barrier(state: GameState, lynched: Sequence[str]) -> GameState:
    """§15.11: the Priest's barrier falls by 1 (not below 0) after each lynched red."""
    holder = state.holder("priest")
    reds = sum(1 for name in lynched if state.get(name).is_red)
    if holder is None or not reds:
        return state
    memory = state.memory_of("priest")
    memory = replace(memory, priest_barrier=max(memory.priest_barrier - reds, 0))
    return replace(state, memory={**state.memory, "priest": memory})


def interrogation(state: GameState) -> tuple[GameState, tuple[Event, ...]]:
    """§16.4: at the result of the day's vote after a capture the living Executor learns his
    captive's peaceful role and team (once)."""
    captive = state.captive
    if captive is None or captive.told or captive.night != state.night:
        return state, ()
    state = replace(state, captive=replace(captive, told=True))
    if not state.get(captive.executor).alive:
        return state, ()
    events: list[Event] = []
    for name in captive.targets:
        target = state.get(name)
        events.append(Interrogation(captive.executor, name, target.peaceful, target.team.value))
    return state, tuple(events)


def recover(state: GameState, lynched: Sequence[str]) -> GameState:
    """§16.6: the lynch of a slash's target gives its victim her role back; the lynch of the
    Faceless gives every victim hers."""
    freed = [
        victim
        for victim, target in state.slashed.items()
        if target in lynched or any(state.get(n).faceless for n in lynched)
    ]
    if not freed:
        return state
    slashed = {v: t for v, t in state.slashed.items() if v not in freed}
    return replace(state, slashed=slashed, recovered=(*state.recovered, *freed))
