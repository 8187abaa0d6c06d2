"""Role `sciamano` (Sciamano): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import NERA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="sciamano",
    faction=POPOLANI,
    aura=NERA,
    mystic=True,
    power=power("sciamano", Names.DEAD, Frequency.ALTERNATE),
    description="The supernatural power of the Spettro he names fails tonight.",
)
