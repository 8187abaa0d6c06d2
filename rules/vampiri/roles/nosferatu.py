"""Role `nosferatu` (Nosferatu): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="nosferatu",
    team=Team.VAMPIRI,
    step="giorno",
    flags=frozenset({"ability", "kill"}),
    description="At dusk may kill one player.",
)

CATEGORY = Category.VAMPIRO_MAGGIORE
STAGE: str | None = "dusk.nosferatu"
SLOTS: tuple[Slot, ...] = (single("nosferatu", Effect.KILL, must=False),)
HUNT: Slot | None = None
