"""Role `jager` (Jager): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="jager",
    team=Team.BURGERS,
    description="When he dies (not of inactivity, not asleep) he shoots a player.",
)

ACTIONS = (ActionSpec(action="jager", step="doden", allow_self=False),)
