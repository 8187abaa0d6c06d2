"""Declarative specs of Lupus roles and powers: who they may name, how often, what they are."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.core.model import RoleSpec


class Names(enum.Enum):
    """Which players one name of a power may be (§1.1); exiled players never are."""

    LIVING = "living"
    DEAD = "dead"
    ANY = "any"


class Frequency(enum.Enum):
    """How often a power may be used (§1.1)."""

    EVERY_NIGHT = "every"
    ALTERNATE = "alternate"
    ONCE = "once"


@dataclass(frozen=True)
class PowerSpec:
    """A night power: its id (role id or supernatural power id), names, frequency, kind.

    ``killing`` powers are not usable on night 1; ``mystic_only`` supernatural powers are given
    to mystic corpses only (§8.3); two-name powers need two different names.
    """

    id: str
    names: tuple[Names, ...]
    frequency: Frequency
    killing: bool = False
    mystic_only: bool = False

    def is_usable(self, night: int, uses: tuple[int, ...]) -> bool:
        """Whether the power may be used on ``night`` given the nights it was used (§1.1)."""
        if self.killing and night == 1:
            return False
        if self.frequency is Frequency.ONCE:
            return not uses
        if self.frequency is Frequency.ALTERNATE:
            return night - 1 not in uses
        return True


@dataclass(frozen=True)
class LupusRole:
    """A role of §1: faction, aura and mystic at the start, its power, its knowledge class."""

    id: str
    faction: str
    aura: str
    mystic: bool
    power: PowerSpec | None = None
    knows: str | None = None
    description: str = ""

    def role_spec(self) -> RoleSpec:
        """Return the core's description of the role (flags: ``mystic``, ``power``, the class)."""
        flags = {"mystic"} if self.mystic else set()
        if self.power is not None:
            flags.add("power")
            flags.add(self.power.frequency.value)
        if self.knows is not None:
            flags.add(f"class:{self.knows}")
        return RoleSpec(
            id=self.id,
            team=self.faction,
            step="notte" if self.power is not None else None,
            flags=frozenset(flags),
            description=self.description,
        )


def power(
    role_id: str,
    names: Names | tuple[Names, ...],
    frequency: Frequency,
    *,
    killing: bool = False,
    mystic_only: bool = False,
) -> PowerSpec:
    """Return a power spec; ``names`` may be one kind (a one-name power) or a tuple."""
    kinds = names if isinstance(names, tuple) else (names,)
    return PowerSpec(role_id, kinds, frequency, killing=killing, mystic_only=mystic_only)
