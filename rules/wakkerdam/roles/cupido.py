"""Role `cupido` (Cupido): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="cupido",
    team=Team.BURGERS,
    step="cupido",
    description="Before night 1 names two players (himself allowed) who become lovers.",
)

ACTIONS = (ActionSpec(action="cupido", step="cupido", min_names=2, max_names=2, exclusive=True),)
