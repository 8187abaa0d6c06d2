"""Role `lupo` (Lupo): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import LUPI, NERA
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="lupo",
    faction=LUPI,
    aura=NERA,
    mystic=False,
    power=power("lupo", Names.LIVING, Frequency.EVERY_NIGHT, killing=True),
    knows="lupi",
    description="From night 2 the Lupi together kill a popolano.",
)
