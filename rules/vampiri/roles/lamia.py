"""Role `lamia` (Lamia): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Effect, Option, Slot, Team

SPEC = RoleSpec(
    id="lamia",
    team=Team.VAMPIRI,
    step="giorno",
    flags=frozenset({"ability", "kill"}),
    description="At dawn must either visit a player (a kill attempt) or host one (protection).",
)

CATEGORY = Category.VAMPIRO_MAGGIORE
STAGE: str | None = "dawn.lamia"
# Ruling (docs/rules/vampiri.md, Rulings): the seed's "visit" is a killer's attempt, "hosting"
# one of the three protections; she must choose one, and the keyword says which.
SLOTS: tuple[Slot, ...] = (
    Slot(
        id="lamia",
        options=(
            Option(action="visita", effect=Effect.KILL, keyword="visita", min_names=1),
            Option(action="ospita", effect=Effect.PROTECT, keyword="ospita", min_names=1),
        ),
        must=True,
    ),
)
HUNT: Slot | None = None
