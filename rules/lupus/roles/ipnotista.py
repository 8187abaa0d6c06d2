"""Role `ipnotista` (Ipnotista): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, NEGROMANTI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="ipnotista",
    faction=NEGROMANTI,
    aura=BIANCA,
    mystic=False,
    power=power("ipnotista", Names.LIVING, Frequency.ALTERNATE),
    knows="adepti",
    description="From tomorrow his target's rogo ballot is his own.",
)
