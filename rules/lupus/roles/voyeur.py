"""Role `voyeur` (Voyeur): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="voyeur",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    power=power("voyeur", Names.LIVING, Frequency.ALTERNATE),
    description="Learns which living players acted on his target.",
)
