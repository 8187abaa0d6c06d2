"""Role `principe` (Principe, a Signore dei Vampiri): its spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="principe",
    team=Team.VAMPIRI,
    step="giorno",
    flags=frozenset({"ability", "lord"}),
    description="At dusk must protect another player from every attempt of the day.",
)

CATEGORY = Category.VAMPIRO_MAGGIORE
STAGE: str | None = "dusk.signore"
SLOTS: tuple[Slot, ...] = (single("principe", Effect.PROTECT, must=True),)
HUNT: Slot | None = None
