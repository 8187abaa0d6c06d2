"""Role `weerwolf` (Weerwolf): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="weerwolf",
    team=Team.WEERWOLVEN,
    flags=frozenset({"evil", "burns", "pack:weerwolven", "circle:weerwolven"}),
    step="nacht",
    description="Votes with the pack for a victim every night.",
)

ACTIONS = (ActionSpec(action="weerwolf", step="nacht", pack="weerwolven"),)
