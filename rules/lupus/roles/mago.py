"""Role `mago` (Mago): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="mago",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=True,
    power=power("mago", Names.ANY, Frequency.EVERY_NIGHT),
    description="Learns whether a player appears mystic.",
)
