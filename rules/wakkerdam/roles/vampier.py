"""Role `vampier` (Vampier): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="vampier",
    team=Team.VAMPIERS,
    flags=frozenset({"evil", "burns", "pack:vampiers", "circle:vampiers"}),
    step="nacht",
    description="Votes with the vampires for a victim every night.",
)

ACTIONS = (ActionSpec(action="vampier", step="nacht", pack="vampiers"),)
