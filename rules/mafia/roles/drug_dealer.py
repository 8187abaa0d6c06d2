"""Role `drug_dealer` (Наркодилер, §15.15, optional): doses that make barriers; bought votes."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="drug_dealer",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Drugs players (a barrier at the next day's votes); buys votes from his bank.",
)

# One move group: single doses on one or two players, or a double or triple dose on one (not a
# triple on himself).  His `buy` is a pre-vote action (rules.mafia.actions.BUY).
ACTIONS = (
    ActionSpec(action="drug", group="drug", max_names=2, allow_self=True, default=True),
    ActionSpec(action="double", group="drug", allow_self=True),
    ActionSpec(action="triple", group="drug", allow_self=True),
)
