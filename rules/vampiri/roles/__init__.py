"""The explicit registry of vampiri roles: one module per role, listed here.

Each role module declares ``SPEC`` (id, team, flags: ``ability``, ``kill``, ``lord``,
``werewolf``, ``hunter``), ``CATEGORY`` (what an investigation shows), ``STAGE`` (where its
ability acts in the day's pipeline), ``SLOTS`` (its own day votes) and ``HUNT`` (the form of its
hunters' vote when it belongs to the hunters' group).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.core.model import RoleSpec
from rules.vampiri.roles import (
    banshee,
    bella,
    cacciatore,
    conte,
    esploratore,
    kitsune,
    lamia,
    leader,
    licantropo,
    monaco,
    nosferatu,
    principe,
    re,
    regina,
    vampiro,
)
from rules.vampiri.spec import Category, Slot

_MODULES = (
    vampiro,
    re,
    principe,
    conte,
    lamia,
    regina,
    nosferatu,
    banshee,
    licantropo,
    kitsune,
    cacciatore,
    monaco,
    leader,
    esploratore,
    bella,
)

ROLES: Mapping[str, RoleSpec] = MappingProxyType({m.SPEC.id: m.SPEC for m in _MODULES})
"""Role id -> spec, in the order of the role table."""

CATEGORIES: Mapping[str, Category] = MappingProxyType({m.SPEC.id: m.CATEGORY for m in _MODULES})
"""Role id -> investigation category (the seed's Moderator cards)."""

STAGES: Mapping[str, str | None] = MappingProxyType({m.SPEC.id: m.STAGE for m in _MODULES})
"""Role id -> the day stage where its ability acts (None: no ability of its own)."""

DAY_SLOTS: Mapping[str, tuple[Slot, ...]] = MappingProxyType({m.SPEC.id: m.SLOTS for m in _MODULES})
"""Role id -> the day votes of its own ability."""

HUNT_SLOTS: Mapping[str, Slot | None] = MappingProxyType({m.SPEC.id: m.HUNT for m in _MODULES})
"""Role id -> the form of its hunters' vote when it is in the hunters' group."""

LORDS = frozenset(r.id for r in ROLES.values() if r.has("lord"))
WEREWOLVES = frozenset(r.id for r in ROLES.values() if r.has("werewolf"))
KILLERS = frozenset(r.id for r in ROLES.values() if r.has("kill"))
HUNTERS = frozenset(r.id for r in ROLES.values() if r.has("hunter"))
WITH_ABILITY = frozenset(r.id for r in ROLES.values() if r.has("ability"))
"""Every role but ``vampiro`` and ``cacciatore``: the special roles, dealt once at most."""


def team_of(role: str) -> str:
    """Return the team id of ``role``; raises KeyError for an unknown role."""
    return ROLES[role].team


def day_slots(role: str, *, wolf_den: bool) -> tuple[Slot, ...]:
    """Return the day votes of ``role``'s own ability (the wolf den adds the ambush)."""
    if role == licantropo.SPEC.id and wolf_den:
        return licantropo.DEN_SLOTS
    return DAY_SLOTS[role]


def stage_of(role: str, *, wolf_den: bool) -> str | None:
    """Return the stage where ``role``'s ability acts (the wolf den moves the Licantropo)."""
    if role == licantropo.SPEC.id and wolf_den:
        return licantropo.DEN_STAGE
    return STAGES[role]
