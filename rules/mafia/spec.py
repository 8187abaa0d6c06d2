"""Declarative pieces of the Mafia role specs: what each action takes and where it applies."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Values(enum.Enum):
    """What the names of an action are."""

    PLAYERS = "players"
    ROLES = "roles"
    NUMBER = "number"
    SIDE = "side"


class Holder(enum.Enum):
    """Which holders of a peaceful role have an action (§7.8, §7.9: the overlay variants)."""

    ANY = "any"
    BLACK = "black"


@dataclass(frozen=True)
class ActionSpec:
    """One night action of a role (docs/rules/mafia.md §7.1).

    ``group``: a new vote for any action of the group replaces the player's vote for the others.
    ``default``: the role's default move (a mail without keyword selects it, §5.1).
    ``evening``: applied at the start of the resolution, stopped only by role blocks (§7.2).
    ``kill``: a kill move (§7.3).  ``dead_ok``: the name may be a dead player (verifications).
    ``secretary_untouchable``: killer moves and colour checks may not name the Secretary (§1.3).
    ``blank``: an empty vote withdraws the move (night) or abstains (day votes that allow it).
    """

    action: str
    group: str
    min_names: int = 1
    max_names: int = 1
    allow_self: bool = False
    values: Values = Values.PLAYERS
    default: bool = False
    evening: bool = False
    kill: bool = False
    dead_ok: bool = False
    secretary_untouchable: bool = False
    holder: Holder = Holder.ANY
    blank: bool = True

    @property
    def keyword(self) -> str:
        """The keyword that selects this action in a mail (it is the action id)."""
        return self.action
