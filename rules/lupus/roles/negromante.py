"""Role `negromante` (Negromante): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, NEGROMANTI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="negromante",
    faction=NEGROMANTI,
    aura=BIANCA,
    mystic=True,
    power=power("negromante", Names.DEAD, Frequency.EVERY_NIGHT),
    knows="negromanti",
    description="The Negromanti together give a dead popolano a supernatural power.",
)
