"""Role `burger` (Burger): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="burger",
    team=Team.BURGERS,
    description="An ordinary villager without a special gift.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
