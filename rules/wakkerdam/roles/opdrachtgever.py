"""Role `opdrachtgever` (Opdrachtgever): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="opdrachtgever",
    team=Team.BURGERS,
    step="opdrachtgever",
    description="Before night 1 hires a bodyguard, who dies in his place once.",
)

ACTIONS = (
    ActionSpec(action="opdrachtgever", step="opdrachtgever", allow_self=False, exclusive=True),
)
