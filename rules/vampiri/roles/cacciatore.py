"""Role `cacciatore` (Cacciatore): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import HUNT_PLAIN, Category, Slot, Team

SPEC = RoleSpec(
    id="cacciatore",
    team=Team.CACCIATORI,
    step="giorno",
    flags=frozenset({"hunter"}),
    description="Votes with the hunters at noon.",
)

CATEGORY = Category.CACCIATORE
STAGE: str | None = None
SLOTS: tuple[Slot, ...] = ()
HUNT: Slot | None = HUNT_PLAIN
