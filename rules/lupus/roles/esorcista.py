"""Role `esorcista` (Esorcista): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="esorcista",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=True,
    power=power("esorcista", Names.ANY, Frequency.ALTERNATE),
    description="Every supernatural power whose first name is his target fails.",
)
