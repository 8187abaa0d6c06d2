"""Role `necrofilo` (Necrofilo): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import LUPI, NERA
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="necrofilo",
    faction=LUPI,
    aura=NERA,
    mystic=False,
    power=power("necrofilo", Names.DEAD, Frequency.ONCE),
    knows="complici",
    description="Once: takes the role of a dead member of the lupi.",
)
