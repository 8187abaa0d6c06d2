"""Role `messia` (Messia): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="messia",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=True,
    power=power("messia", Names.DEAD, Frequency.ONCE),
    description="Once: raises a dead player who is not a Spettro.",
)
