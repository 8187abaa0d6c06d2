"""Role `custode` (Custode del cimitero): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="custode",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    power=power("custode", Names.DEAD, Frequency.ALTERNATE),
    description="Guards a corpse from the Negromanti; learns how many others acted on it.",
)
