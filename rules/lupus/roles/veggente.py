"""Role `veggente` (Veggente): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="veggente",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=True,
    power=power("veggente", Names.LIVING, Frequency.EVERY_NIGHT),
    description="Learns the apparent aura of a living player.",
)
