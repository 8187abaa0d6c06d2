"""Role `avvocato` (Avvocato): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import LUPI, NERA
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="avvocato",
    faction=LUPI,
    aura=NERA,
    mystic=False,
    power=power("avvocato", Names.LIVING, Frequency.ALTERNATE),
    knows="complici",
    description="If tomorrow's rogo condemns his target, the target does not die.",
)
