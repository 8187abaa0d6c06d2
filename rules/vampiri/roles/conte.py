"""Role `conte` (Conte, Signore dei Vampiri): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="conte",
    team=Team.VAMPIRI,
    step="giorno",
    flags=frozenset({"ability", "lord"}),
    description="At dusk must investigate another player: learns his category.",
)

CATEGORY = Category.VAMPIRO_MAGGIORE
STAGE: str | None = "dusk.signore"
SLOTS: tuple[Slot, ...] = (single("conte", Effect.INVESTIGATE, must=True),)
HUNT: Slot | None = None
