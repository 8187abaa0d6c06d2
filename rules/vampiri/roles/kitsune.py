"""Role `kitsune` (Kitsune, Lupo Mannaro): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Slot, Team, single

SPEC = RoleSpec(
    id="kitsune",
    team=Team.LUPI_MANNARI,
    step="giorno",
    flags=frozenset({"ability", "kill", "werewolf"}),
    description="At dusk may kill one player (ruling: everything said of the werewolf).",
)

CATEGORY = Category.LUPO_MANNARO
STAGE: str | None = "dusk.kitsune"
SLOTS: tuple[Slot, ...] = (single("kitsune", Effect.KILL, must=False),)
HUNT: Slot | None = None
