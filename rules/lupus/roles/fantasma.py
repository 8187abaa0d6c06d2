"""Role `fantasma` (Fantasma): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import NEGROMANTI, NERA
from rules.lupus.spec import LupusRole

SPEC = LupusRole(
    id="fantasma",
    faction=NEGROMANTI,
    aura=NERA,
    mystic=False,
    description="No power; becomes a Spettro with a drawn power when he dies.",
)
