"""Role `massone` (Massone): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import LupusRole

SPEC = LupusRole(
    id="massone",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    knows="massoni",
    description="No power; the Massoni know each other.",
)
