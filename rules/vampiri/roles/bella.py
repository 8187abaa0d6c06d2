"""Role `bella` (Bella): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import HUNT_KEYWORD, Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="bella",
    team=Team.CACCIATORI,
    step="giorno",
    flags=frozenset({"ability", "hunter"}),
    description="At dusk must take another player's vote for the coming night; hunts too.",
)

CATEGORY = Category.CACCIATORE_MAGGIORE
STAGE: str | None = "dusk.bella"
SLOTS: tuple[Slot, ...] = (single("bella", Effect.SILENCE, must=True),)
HUNT: Slot | None = HUNT_KEYWORD
