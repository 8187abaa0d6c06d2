"""Role `assassino` (Assassino): its declarative spec (docs/rules/lupus.md §1)."""

from __future__ import annotations

from rules.lupus.ids import LUPI, NERA
from rules.lupus.spec import Frequency, LupusRole, Names, power

SPEC = LupusRole(
    id="assassino",
    faction=LUPI,
    aura=NERA,
    mystic=False,
    power=power("assassino", Names.LIVING, Frequency.ALTERNATE, killing=True),
    knows="complici",
    description="Kills one of the other players who acted on his target, drawn.",
)
