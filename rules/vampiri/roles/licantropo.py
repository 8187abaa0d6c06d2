"""Role `licantropo` (Licantropo, the Lupo Mannaro): its spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Option, Slot, Team

SPEC = RoleSpec(
    id="licantropo",
    team=Team.LUPI_MANNARI,
    step="giorno",
    flags=frozenset({"ability", "kill", "werewolf"}),
    description="At dusk may kill one player; in the wolf den acts at dawn and may ambush.",
)

CATEGORY = Category.LUPO_MANNARO
STAGE: str | None = "dusk.licantropo"
DEN_STAGE = "dawn.licantropo"
"""Under ``wolf_den`` (La Tana del Lupo) he acts at dawn, after the Regina."""

KILL = Option(action="licantropo", effect=Effect.KILL)
AMBUSH = Option(action="agguato", effect=Effect.AMBUSH, keyword="agguato", max_names=0)

SLOTS: tuple[Slot, ...] = (Slot(id="licantropo", options=(KILL,)),)
DEN_SLOTS: tuple[Slot, ...] = (Slot(id="licantropo", options=(KILL, AMBUSH)),)
"""Under ``wolf_den``: a kill, the ambush, or nothing; each replaces the others."""
HUNT: Slot | None = None
