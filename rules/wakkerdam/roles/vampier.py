"""Role `vampier` (Vampier): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="vampier",
    name_nl="Vampier",
    name_en="Vampire",
    team=Team.VAMPIERS,
    step="nacht",
    evil=True,
    burns=True,
    description="Votes with the vampires for a victim every night.",
)

ACTIONS = (ActionSpec(action="vampier", step="nacht", pack="vampiers"),)
