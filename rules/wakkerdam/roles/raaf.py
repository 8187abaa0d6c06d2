"""Role `raaf` (Raaf): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="raaf",
    team=Team.BURGERS,
    step="ochtend",
    description="Marks a player, who gets two extra votes against him in the next lynch.",
)

ACTIONS = (ActionSpec(action="raaf", step="ochtend"),)
