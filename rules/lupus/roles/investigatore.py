"""Role `investigatore` (Investigatore): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="investigatore",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    power=power("investigatore", Names.DEAD, Frequency.EVERY_NIGHT),
    description="Learns the apparent aura of a dead player.",
)
