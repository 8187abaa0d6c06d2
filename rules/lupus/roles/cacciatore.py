"""Role `cacciatore` (Cacciatore): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="cacciatore",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    power=power("cacciatore", Names.LIVING, Frequency.ONCE, killing=True),
    description="Extra role (ruling): once, from night 2, kills a living player of any faction.",
)
