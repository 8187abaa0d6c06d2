"""Role `criminalist` (Криминалист, §15.22, optional): examines a corpse, compares samples."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="criminalist",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional", "stays_home"}),
    description="Learns what killed a corpse, and whether one of his samples is the killer.",
)

# The examination is a pre-vote move (rules.mafia.actions.EXAMINE); the samples, taken in the
# evening, are a night move compared at N18 that visits nobody (he always stays home).
ACTIONS = (ActionSpec(action="samples", group="samples", max_names=3, default=True),)
