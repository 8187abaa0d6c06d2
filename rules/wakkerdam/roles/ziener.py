"""Role `ziener` (Ziener): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="ziener",
    team=Team.BURGERS,
    step="nacht",
    description="Learns the role of a player every night.",
)

ACTIONS = (ActionSpec(action="ziener", step="nacht", allow_self=False),)
