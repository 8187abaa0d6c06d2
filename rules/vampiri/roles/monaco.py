"""Role `monaco` (Monaco): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import HUNT_KEYWORD, Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="monaco",
    team=Team.CACCIATORI,
    step="giorno",
    flags=frozenset({"ability", "hunter"}),
    description="At dawn must block another player's ability for the day; hunts with the group.",
)

CATEGORY = Category.CACCIATORE_MAGGIORE
STAGE: str | None = "dawn.monaco"
SLOTS: tuple[Slot, ...] = (single("monaco", Effect.BLOCK, must=True),)
HUNT: Slot | None = HUNT_KEYWORD
