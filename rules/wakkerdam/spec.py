"""Declarative pieces of the Wakkerdam role specs: teams, target rules and action specs."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Team(enum.StrEnum):
    """The teams of the ruleset (``lovers``/``bodyguard`` are pair wins, not teams of roles)."""

    BURGERS = "burgers"
    WEERWOLVEN = "weerwolven"
    VAMPIERS = "vampiers"
    FLUITSPELERS = "fluitspelers"
    EIGEN = "eigen"


class Targets(enum.Enum):
    """Which players a vote may name."""

    ALIVE = "alive"
    DEAD = "dead"


@dataclass(frozen=True)
class ActionSpec:
    """One kind of vote: in which step, how many names, and which names are valid.

    ``pack``: awake members of this pack may not be named (``pack-member``).
    ``exclusive``: a name already held by another current vote of this action is ``taken``.
    ``charm``: the fluitspeler rule (no fluitspelers, nobody enchanted already).
    """

    action: str
    step: str
    min_names: int = 1
    max_names: int = 1
    targets: Targets = Targets.ALIVE
    allow_self: bool = True
    no_repeat: bool = False
    exclusive: bool = False
    keyword: str | None = None
    pack: str | None = None
    charm: bool = False
    lynch: bool = False
    potions: bool = False
