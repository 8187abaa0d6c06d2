"""Death and its consequences (§8): reveals, the Mayor's post, side elimination, inheritance."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from rules.core.events import Event
from rules.mafia import ledger
from rules.mafia.events import (
    Crippled,
    Death,
    Katana,
    KillTaken,
    LifeSpent,
    MayorLost,
    RoleChange,
    SecretaryLost,
    SideRoleChange,
)
from rules.mafia.ids import Side, Team
from rules.mafia.roles import INHERITED
from rules.mafia.state import GameState, Player


def revealed(player: Player, *, at_night: bool) -> dict[str, str]:
    """What a death shows (§8.1): a night death only the peaceful role, a day death all."""
    if at_night:
        return {"role": player.peaceful}
    shown = {"role": player.peaceful, "team": player.team.value}
    if player.negative is not None:
        shown["negative"] = player.negative
    if player.faceless:
        shown["negative"] = "faceless"  # the lynched Faceless is revealed (§16.6)
    return shown


def kill(
    state: GameState,
    deaths: Sequence[tuple[str, str]],
    *,
    at_night: bool,
    via: str | Mapping[str, str] | None = None,
) -> tuple[GameState, tuple[Event, ...]]:
    """Kill every (name, cause) at once; return the state and the ``death`` events (seat order).

    ``via``: the role that took the players at a vote (§8.7), one for all or by name.

    Sides that lose their last member pass their owed shots to the other side (§7.4.9).
    """
    causes = {name: str(cause) for name, cause in deaths}
    before = {side: ledger.is_eliminated(state, side) for side in ledger.SIDES}
    players = tuple(
        replace(p, alive=False, cause=causes[p.name]) if p.name in causes and p.alive else p
        for p in state.players
    )
    events: tuple[Event, ...] = tuple(
        Death(
            player=p.name,
            cause=causes[p.name],
            revealed=revealed(p, at_night=at_night),
            via=via.get(p.name) if isinstance(via, Mapping) else via,
        )
        for p in state.players
        if p.name in causes and p.alive
    )
    players, katana = _katana(players)
    players, wolf = _werewolf_kill(players)
    events = (*events, *katana, *wolf)
    state = _souls(replace(state, players=players), causes)
    owed = dict(state.ledger.owed)
    for side in ledger.SIDES:
        if not before[side] and ledger.is_eliminated(state, side):
            rival: Side = ledger.other(side)
            owed[rival.value] += owed[side.value]
            owed[side.value] = 0
    return replace(state, ledger=replace(state.ledger, owed=owed)), events


def _katana(players: tuple[Player, ...]) -> tuple[tuple[Player, ...], tuple[Event, ...]]:
    """§16.5: when no Maniac lives any more, the first living Geisha (seat order) takes the
    katana and becomes the maniac side (told by `katana`)."""
    maniacs = [p for p in players if p.negative == "maniac"]
    if not maniacs or any(p.alive for p in maniacs) or any(p.katana for p in players):
        return players, ()
    heir = next((p for p in players if p.alive and p.negative == "geisha"), None)
    if heir is None:
        return players, ()
    changed = tuple(replace(p, katana=True) if p.name == heir.name else p for p in players)
    return changed, (Katana(heir.name, maniacs[0].name),)


WOLF_SUCCESSION = ("joker", "executor", "poisoner")
"""§7.4.7: which werewolf takes the kill (the Poisoner always has a poisoning left)."""


def _werewolf_kill(players: tuple[Player, ...]) -> tuple[tuple[Player, ...], tuple[Event, ...]]:
    """§7.4.7: when both killing sides are eliminated, one living werewolf takes the kill: a
    one-member side (the maniac side's place: cap 1, every night, both sides' owed shots)."""
    if any(p.alive and p.side is not None for p in players):
        return players, ()
    for role in WOLF_SUCCESSION:
        heir = next((p for p in players if p.alive and p.negative == role), None)
        if heir is not None:
            changed = tuple(replace(p, katana=True) if p.name == heir.name else p for p in players)
            return changed, (KillTaken(heir.name),)
    return players, ()


def _souls(state: GameState, causes: Mapping[str, str]) -> GameState:
    """§15.21: the living Cultist gains a soul when one of his targets dies (not by his devour)."""
    cultist = state.holder("cultist")
    memory = state.memory_of("cultist")
    gained = sum(1 for n, c in causes.items() if n in memory.soul_targets and c != "cultist")
    if cultist is None or not gained:
        return state
    memory = replace(memory, souls=memory.souls + gained, souls_gained=memory.souls_gained + gained)
    return replace(state, memory={**state.memory, "cultist": memory})


def cripple(
    state: GameState, victims: Sequence[tuple[str, str]]
) -> tuple[GameState, tuple[Event, ...]]:
    """Cripple every living (name, by-role) (§8.4): his peaceful role is lost for good and he is
    told (`crippled`); an Immortal whose spare life is intact loses the life instead (§15.2)."""
    events: list[Event] = []
    for name, by in victims:
        player = state.get(name)
        if not player.alive or player.crippled:
            continue
        memory = state.memory_of("immortal")
        if player.peaceful == "immortal" and not memory.life_spent:
            memory = replace(memory, life_spent=True)
            state = replace(state, memory={**state.memory, "immortal": memory})
            events.append(LifeSpent(name))
            continue
        players = tuple(replace(p, crippled=True) if p.name == name else p for p in state.players)
        state = replace(state, players=players)
        events.append(Crippled(name, by))
    return state, tuple(events)


def lose_post(state: GameState, reason: str) -> tuple[GameState, tuple[Event, ...]]:
    """End the Mayor's post for the game, and the Secretary's with it (§6.11)."""
    if state.mayor_in_office() is None or state.mayor is None:
        return state, ()
    events: list[Event] = [MayorLost(player=state.mayor, reason=reason)]
    if state.secretary is not None:
        events.append(SecretaryLost(player=state.secretary, reason="mayor_lost"))
    return replace(state, post_over=True), tuple(events)


def after_deaths(
    state: GameState, dead: Sequence[str], reason: str = "dead"
) -> tuple[GameState, tuple[Event, ...]]:
    """The posts of dead title holders end (§6.11, §8.6), for ``reason``: ``dead``, or
    ``removed`` when an admin removed the holder (ruling 94; the notice told the death)."""
    events: list[Event] = []
    if state.mayor_in_office() in dead:
        state, lost = lose_post(state, reason)
        events.extend(lost)
    elif state.secretary_in_office() in dead and state.secretary is not None:
        events.append(SecretaryLost(player=state.secretary, reason=reason))
        state = replace(state, secretary=None)
    return state, tuple(events)


def pass_son(
    state: GameState, dead: Sequence[str], reason: str = ""
) -> tuple[GameState, tuple[Event, ...]]:
    """§16.1: a dead Son of the Boss's living successor becomes the Son, unless he would be the
    last `mafia` member alive (`reason`: as :func:`inherit`'s)."""
    sons = [name for name in dead if state.get(name).negative == "son_of_boss"]
    heir = state.find(state.successor) if state.successor else None
    if not sons or heir is None or not heir.alive or heir.negative != "mafia":
        return state, ()
    others = [p for p in state.living if p.negative == "mafia" and p.name != heir.name]
    if not others:
        return state, ()
    players = tuple(
        replace(p, negative="son_of_boss") if p.name == heir.name else p for p in state.players
    )
    partners = tuple(p.name for p in others)
    event = SideRoleChange(
        player=heir.name,
        role="son_of_boss",
        from_player=sons[0],
        history=(),
        reason=reason,
        partners=partners,
    )
    return replace(state, players=players, successor=None), (event,)


def inherit(
    state: GameState, dead: Sequence[str], reason: str = ""
) -> tuple[GameState, tuple[Event, ...]]:
    """Give the roles freed by ``dead`` to the living Active citizens, in order (§8.3), and pass
    a dead Son of the Boss's status to his successor (§16.1); each ``role_change`` tells the
    `reason` (``removed``: an admin's removal, ruling 94; "": a death)."""
    seat = {p.name: i for i, p in enumerate(state.players)}
    freed = sorted(
        (
            state.get(name)
            for name in dead
            if state.get(name).peaceful in INHERITED and not state.get(name).crippled
        ),
        key=lambda p: (p.team is not Team.RED, seat[p.name]),
    )
    heirs = [
        name
        for name in state.heirs
        if state.get(name).alive and state.get(name).peaceful == "active_citizen"
    ]
    events: list[Event] = []
    changes: dict[str, str] = {}
    for holder, heir in zip(freed, heirs, strict=False):
        changes[heir] = holder.peaceful
        history = tuple(json.loads(text) for text in state.memory_of(holder.peaceful).history)
        events.append(
            RoleChange(
                player=heir,
                role=holder.peaceful,
                from_player=holder.name,
                history=history,
                reason=reason,
            )
        )
    players = tuple(
        replace(p, peaceful=changes[p.name]) if p.name in changes else p for p in state.players
    )
    state = replace(state, players=players)
    if "hero" in changes.values():  # an inherited Hero gives only his night information (§8.3)
        hero = replace(state.memory_of("hero"), inherited=True)
        state = replace(state, memory={**state.memory, "hero": hero})
    state, son = pass_son(state, dead, reason)
    return state, (*events, *son)
