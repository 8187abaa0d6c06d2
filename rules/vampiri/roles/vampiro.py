"""Role `vampiro` (Vampiro): its declarative spec and the votes it casts by day."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.vampiri.spec import Category, Slot, Team

SPEC = RoleSpec(
    id="vampiro",
    team=Team.VAMPIRI,
    step=None,
    flags=frozenset(),
    description="Votes at night; no day ability.",
)

CATEGORY = Category.VAMPIRO
STAGE: str | None = None
SLOTS: tuple[Slot, ...] = ()
HUNT: Slot | None = None
