"""Role `leader` (Leader): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import HUNT_PLAIN, Category, Slot, Team

SPEC = RoleSpec(
    id="leader",
    team=Team.CACCIATORI,
    step="giorno",
    flags=frozenset({"ability", "hunter"}),
    description="Votes with the hunters at noon; his vote breaks their ties.",
)

CATEGORY = Category.CACCIATORE_MAGGIORE
STAGE: str | None = None  # his tie-break is part of the hunters' vote (noon)
SLOTS: tuple[Slot, ...] = ()
HUNT: Slot | None = HUNT_PLAIN
