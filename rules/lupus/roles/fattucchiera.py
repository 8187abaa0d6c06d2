"""Role `fattucchiera` (Fattucchiera): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, LUPI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="fattucchiera",
    faction=LUPI,
    aura=BIANCA,
    mystic=True,
    power=power("fattucchiera", Names.ANY, Frequency.EVERY_NIGHT),
    knows="stregoni",
    description="Her target's apparent aura is the opposite tonight.",
)
