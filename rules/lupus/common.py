"""Mechanics shared by dawn and sunset: Fantasmi who awaken, defeats, the win, succession."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.core.events import Event, Win
from rules.lupus.dice import Dice
from rules.lupus.events import Defeat, Exile, Ghost, Knows, Mayor, NoGhost
from rules.lupus.ids import EXILED, FACTIONS, FANTASMA_POWERS, LUPI, NEGROMANTI
from rules.lupus.state import GameState

# The role whose living members keep a faction undefeated (§2: "no lupo alive and in play").
LEADERS = ((LUPI, "lupo"), (NEGROMANTI, "negromante"))


def awaken_fantasmi(
    state: GameState, dead: Sequence[str], dice: Dice
) -> tuple[GameState, list[Event], list[str]]:
    """Turn the Fantasmi among ``dead`` (who just died) into Spettri with drawn powers (§8.3).

    When too few powers are left, those who get one are drawn (seed 001 FAQ 12).
    """
    fantasmi = [name for name in dead if state.get(name).role == "fantasma"]
    if not fantasmi:
        return state, [], []
    left = [power for power in FANTASMA_POWERS if power not in state.assigned]
    order = dice.shuffle(fantasmi) if len(fantasmi) > len(left) else fantasmi
    given: dict[str, str] = {}
    for name in order:
        if not left:
            break
        power = dice.pick(left)
        left.remove(power)
        given[name] = power
    trace = [f"fantasma {name} awakens with {power}" for name, power in given.items()]
    trace += [f"fantasma {name}: no power left" for name in fantasmi if name not in given]
    events: list[Event] = []
    for name in fantasmi:
        if name not in given:
            events.append(NoGhost(player=name))  # told, privately: he stays a plain corpse
            continue
        power = given[name]
        player = state.get(name)
        state = state.with_player(
            replace(player, ghost_power=power, faction=NEGROMANTI, ghost_uses=())
        )
        state = replace(state, assigned=(*state.assigned, power))
        negromanti = [
            p.name
            for p in state.players
            if p.role == "negromante" and not p.exiled and p.name != name
        ]
        events.append(Ghost(player=name, power=power, via="fantasma"))
        events.extend(Knows(player=name, target=n, role="negromante") for n in negromanti)
        events.extend(
            Knows(player=n, target=name, role="fantasma", power=power) for n in negromanti
        )
    return state, events, trace


def aftermath(state: GameState, dice: Dice) -> tuple[GameState, list[Event], list[str]]:
    """Defeats and their exiles, the win check, then the Sindaco's succession (§2, §7.6)."""
    events: list[Event] = []
    trace: list[str] = []
    for faction, leader in LEADERS:
        if faction in state.defeated:
            continue
        if any(p.alive and p.role == leader for p in state.players):
            continue
        members = tuple(p.name for p in state.players if p.faction == faction)
        events.append(Defeat(team=faction, players=members))
        trace.append(f"{faction} defeated: no {leader} alive")
        for name in members:
            player = state.get(name)
            if not player.exiled:
                state = state.with_player(replace(player, status=EXILED))
                events.append(Exile(player=name, cause="sconfitta"))
        state = replace(state, defeated=(*state.defeated, faction))
    state, more, lines = win_or_succession(state, dice)
    return state, events + more, trace + lines


def win_or_succession(state: GameState, dice: Dice) -> tuple[GameState, list[Event], list[str]]:
    """The win check (§2), then, if the game goes on, the Sindaco's succession (§7.6)."""
    living = state.in_play()
    factions = {p.faction for p in living}
    if not living or len(factions) == 1:
        teams = tuple(f for f in FACTIONS if f in factions)
        winners = tuple(p.name for p in state.players if p.faction in teams and not p.exiled)
        mayor = state.mayor if state.mayor in {p.name for p in living} else None
        state = replace(state, step=None, winners=winners, teams=teams, mayor=mayor, votes=())
        return state, [Win(teams=teams, winners=winners)], [f"game over: {list(teams)} win"]
    if not state.has_mayor or (state.mayor is not None and state.get(state.mayor).alive):
        return state, [], []
    heir = state.successor
    if heir is not None and state.get(heir).alive:
        via = "successor"
    else:
        heir, via = dice.pick([p.name for p in living]), "draw"
    state = replace(state, mayor=heir, successor=None)
    return state, [Mayor(player=heir, via=via)], [f"the office passes to {heir} ({via})"]
