"""The black kill ledger (docs/rules/mafia.md §7.4): kill nights, owed shots, capacity, transfer."""

from __future__ import annotations

from dataclasses import replace

from rules.mafia.ids import Side
from rules.mafia.state import GameState, Ledger

SIDES = (Side.MAFIA, Side.MANIAC)


def other(side: Side) -> Side:
    """Return the opposite killing side."""
    return Side.MANIAC if side is Side.MAFIA else Side.MAFIA


def is_eliminated(state: GameState, side: Side) -> bool:
    """Whether ``side`` has no living member (§7.4.1)."""
    return not state.side_members(side)


def is_shared_night(state: GameState, night: int) -> bool:
    """Whether ``night`` belongs to both sides (Extended nights 1 and 2, §7.4.8)."""
    return state.format == "extended" and night in (1, 2)


def has_night(state: GameState, side: Side, night: int) -> bool:
    """Whether ``side`` has the kill night ``night`` (§7.4.1)."""
    if is_eliminated(state, side):
        return False
    if is_eliminated(state, other(side)) or is_shared_night(state, night):
        return True
    return (night % 2 == 1) == (side is Side.MAFIA)


def kill_order(state: GameState, night: int) -> tuple[Side, ...]:
    """The sides in the night's kill order (§7.4.6): the side whose night it is first."""
    mafia_first = night % 2 == 1
    if is_shared_night(state, night):
        mafia_first = night == 1
    elif is_eliminated(state, Side.MANIAC):
        mafia_first = True
    elif is_eliminated(state, Side.MAFIA):
        mafia_first = False
    order = SIDES if mafia_first else (Side.MANIAC, Side.MAFIA)
    return tuple(side for side in order if not is_eliminated(state, side))


def capacity(state: GameState, side: Side) -> int:
    """How many kill moves ``side`` can make at once (§7.4.2 point 3)."""
    members = state.side_members(side)
    if side is Side.MAFIA:
        return len(members)
    if any(m.negative == "maniac" for m in members):
        return 2
    return 1 if members else 0  # a Geisha with the katana (§16.5)


def open_night(state: GameState, night: int) -> tuple[Ledger, tuple[str, ...]]:
    """Return the ledger as the ``night`` step of ``night`` opens (§7.4.2), with a trace."""
    owed = {side.value: state.ledger.owed.get(side.value, 0) for side in SIDES}
    due = {
        side.value: int(has_night(state, side, night) and not state.ledger.no_due) for side in SIDES
    }
    cap = {side.value: capacity(state, side) for side in SIDES}
    trace = [f"night {night}: due {due}, cap {cap}"]
    for side in SIDES:
        owed[side.value] += due[side.value]
    for side in SIDES:
        rival = other(side)
        if (
            due[side.value] == 1
            and owed[side.value] > cap[side.value]
            and not is_eliminated(state, rival)
            and owed[rival.value] < cap[rival.value]
        ):
            owed[side.value] -= 1
            owed[rival.value] += 1
            trace.append(f"transfer: a shot of {side.value} passes to {rival.value}")
    shots = {side.value: max(0, min(owed[side.value], cap[side.value])) for side in SIDES}
    trace.append(f"owed {owed}, shots {shots}")
    ledger = replace(state.ledger, owed=owed, shots=shots, no_due=False)
    return ledger, tuple(trace)


def shots(state: GameState, side: Side) -> int:
    """The kill moves ``side`` may make tonight."""
    return state.ledger.shots.get(side.value, 0)
