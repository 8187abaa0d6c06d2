"""Role `onschuldige_meisje` (Onschuldige Meisje): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="onschuldige_meisje",
    team=Team.BURGERS,
    description="Hears the anonymous tallies of the werewolf and vampire votes.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
