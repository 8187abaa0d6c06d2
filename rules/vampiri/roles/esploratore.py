"""Role `esploratore` (Esploratore): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import HUNT_KEYWORD, Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="esploratore",
    team=Team.CACCIATORI,
    step="giorno",
    flags=frozenset({"ability", "hunter"}),
    description="At dusk must investigate another player; hunts with the group.",
)

CATEGORY = Category.CACCIATORE_MAGGIORE
STAGE: str | None = "dusk.esploratore"
SLOTS: tuple[Slot, ...] = (single("esploratore", Effect.INVESTIGATE, must=True),)
HUNT: Slot | None = HUNT_KEYWORD
