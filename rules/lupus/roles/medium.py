"""Role `medium` (Medium): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, NEGROMANTI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="medium",
    faction=NEGROMANTI,
    aura=BIANCA,
    mystic=True,
    power=power("medium", Names.DEAD, Frequency.EVERY_NIGHT),
    knows="adepti",
    description="Learns the apparent role of a dead player.",
)
