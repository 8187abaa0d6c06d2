"""Role `dief` (Dief): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="dief",
    team=Team.BURGERS,
    step="dief",
    description="Before night 1 steals the role of another player, who becomes a burger.",
)

ACTIONS = (ActionSpec(action="dief", step="dief", allow_self=False),)
