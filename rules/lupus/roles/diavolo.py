"""Role `diavolo` (Diavolo): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import LUPI, NERA
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="diavolo",
    faction=LUPI,
    aura=NERA,
    mystic=True,
    power=power("diavolo", Names.LIVING, Frequency.EVERY_NIGHT),
    knows="stregoni",
    description="Learns the apparent role of a living player who is not a negromante.",
)
