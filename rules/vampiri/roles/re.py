"""Role `re` (Re, Signore dei Vampiri): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="re",
    team=Team.VAMPIRI,
    step="giorno",
    flags=frozenset({"ability", "kill", "lord"}),
    description="At dusk may kill one player.",
)

CATEGORY = Category.VAMPIRO_MAGGIORE
STAGE: str | None = "dusk.signore"
SLOTS: tuple[Slot, ...] = (single("re", Effect.KILL, must=False),)
HUNT: Slot | None = None
