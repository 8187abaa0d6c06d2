"""Death and its consequences (spec §8): bodyguard, lovers, welp, dorpsoudste, dead-actions."""

from __future__ import annotations

from collections.abc import Iterable

from rules.core.events import Death, RoleChange
from rules.wakkerdam.board import Board
from rules.wakkerdam.roles import ROLES
from rules.wakkerdam.spec import Team

QUIET = frozenset({"inactiviteit", "verwijderd"})
"""Deaths with no consequence but the office and the welps: inactivity and removal (no shot,
no grief, no Dorpsoudste's curse)."""
NO_BODYGUARD = QUIET | {"liefdesverdriet"}
PACK_ROLES = frozenset({"weerwolf", "witte_weerwolf"})


def substitute(board: Board, name: str, cause: str) -> tuple[str, str]:
    """Return who really dies for ``name``: his bodyguard (cause ``lijfwacht``) when one stands.

    Uses up every bond it applies (a bodyguard who is himself guarded passes it on).
    """
    while cause not in NO_BODYGUARD:
        player = board.get(name)
        guard = player.bodyguard
        if player.role != "opdrachtgever" or guard is None or player.bond_used:
            break
        if not board.get(guard).alive:
            break
        board.update(name, bond_used=True)
        board.note(f"bodyguard {guard} dies for {name}")
        name, cause = guard, "lijfwacht"
    return name, cause


def kill(board: Board, deaths: Iterable[tuple[str, str]], *, at_night: bool) -> list[str]:
    """Apply one step's deaths together, then their chain; return who died, in order.

    Events: one ``death`` per death in queue order (a consequence follows its cause), then
    ``role_change`` for promoted welps and for the burgers of a dead dorpsoudste.
    """
    queue = list(deaths)
    died: list[str] = []
    wolf_died = False
    elder_died = False
    asleep = board.value("asleep") if at_night else frozenset()
    position = 0
    while position < len(queue):
        name, cause = queue[position]
        position += 1
        if not board.get(name).alive:
            continue
        name, cause = substitute(board, name, cause)
        player = board.get(name)
        if not player.alive:
            continue
        due = list(player.due)
        if player.role == "jager" and cause not in QUIET and name not in asleep:
            due.append("jager")
        if board.value("mayor") == name:
            board.set(mayor=None)
            due.append("testament")
        board.update(name, alive=False, cause=cause, due=tuple(due))
        board.emit(Death(player=name, cause=cause))
        board.note(f"{name} dies ({cause})")
        board.changed = True
        died.append(name)
        wolf_died = wolf_died or player.role in PACK_ROLES
        elder_died = elder_died or (player.role == "dorpsoudste" and cause not in QUIET)
        lover = player.lover
        if lover is not None and board.get(lover).alive:
            if cause in QUIET:
                board.update(lover, lover=None)
                board.update(name, lover=None)
                board.note(f"{lover} survives the {cause} of his lover {name}")
            else:
                queue.append((lover, "liefdesverdriet"))
    if wolf_died:
        promote_welps(board)
    if elder_died:
        strip_burgers(board)
    return died


def promote_welps(board: Board) -> None:
    """Every living welp becomes a weerwolf."""
    for player in board.living():
        if player.role == "welp":
            board.put(player.with_role("weerwolf"))
            board.emit(RoleChange(player=player.name, role="weerwolf"))
            board.note(f"welp {player.name} becomes weerwolf")
            board.changed = True


def strip_burgers(board: Board) -> None:
    """Every living player of the burgers team becomes a plain burger (statuses stay)."""
    for player in board.living():
        if ROLES[player.role].team == Team.BURGERS and player.role != "burger":
            board.put(player.with_role("burger"))
            board.emit(RoleChange(player=player.name, role="burger"))
            board.note(f"{player.name} loses his gift ({player.role} -> burger)")
            board.changed = True
