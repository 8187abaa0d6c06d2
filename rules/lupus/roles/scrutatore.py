"""Role `scrutatore` (Scrutatore): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, NEGROMANTI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="scrutatore",
    faction=NEGROMANTI,
    aura=BIANCA,
    mystic=False,
    power=power("scrutatore", Names.LIVING, Frequency.ALTERNATE),
    knows="adepti",
    description="At the next rogo every ballot on his target becomes his own ballot.",
)
