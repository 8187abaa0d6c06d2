"""Role `divinatore` (Divinatore): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import LupusRole

SPEC = LupusRole(
    id="divinatore",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=True,
    description="No night power; receives four statements, two true, at the start.",
)
