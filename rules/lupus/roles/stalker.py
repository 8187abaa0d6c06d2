"""Role `stalker` (Stalker): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="stalker",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    power=power("stalker", Names.LIVING, Frequency.ALTERNATE),
    description="Learns on whom his target acted.",
)
