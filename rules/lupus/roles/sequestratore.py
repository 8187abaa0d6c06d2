"""Role `sequestratore` (Sequestratore): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import LUPI, NERA
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="sequestratore",
    faction=LUPI,
    aura=NERA,
    mystic=False,
    power=power("sequestratore", Names.LIVING, Frequency.EVERY_NIGHT),
    knows="complici",
    description="Kidnaps a living player: his action tonight fails and is erased.",
)
