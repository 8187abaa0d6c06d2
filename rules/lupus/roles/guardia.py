"""Role `guardia` (Guardia del corpo): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="guardia",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    power=power("guardia", Names.LIVING, Frequency.EVERY_NIGHT),
    description="Protects a living player from the Lupi; learns how many others acted on him.",
)
