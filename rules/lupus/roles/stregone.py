"""Role `stregone` (Stregone): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import LUPI, NERA
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="stregone",
    faction=LUPI,
    aura=NERA,
    mystic=True,
    power=power("stregone", Names.LIVING, Frequency.EVERY_NIGHT),
    knows="stregoni",
    description="Every action of another living player on his target fails tonight.",
)
