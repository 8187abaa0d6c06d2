"""Role `trasformista` (Trasformista): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import NERA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="trasformista",
    faction=POPOLANI,
    aura=NERA,
    mystic=False,
    power=power("trasformista", Names.DEAD, Frequency.ONCE),
    description="Once: takes the role of a dead popolano whose power is every night or alternate.",
)
