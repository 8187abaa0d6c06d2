"""Role `rinnegato` (Rinnegato): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, LUPI
from rules.lupus.spec import LupusRole

SPEC = LupusRole(
    id="rinnegato",
    faction=LUPI,
    aura=BIANCA,
    mystic=False,
    knows="complici",
    description="No power.",
)
