"""Role `espansivo` (Espansivo): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import BIANCA, POPOLANI
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="espansivo",
    faction=POPOLANI,
    aura=BIANCA,
    mystic=False,
    power=power("espansivo", Names.LIVING, Frequency.ALTERNATE),
    description="His target learns that he is the Espansivo.",
)
