"""Role `regina` (Regina): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="regina",
    team=Team.VAMPIRI,
    step="giorno",
    flags=frozenset({"ability"}),
    description="At dawn must protect another player from every attempt of the day.",
)

CATEGORY = Category.VAMPIRO_MAGGIORE
STAGE: str | None = "dawn.regina"
SLOTS: tuple[Slot, ...] = (single("regina", Effect.PROTECT, must=True),)
HUNT: Slot | None = None
