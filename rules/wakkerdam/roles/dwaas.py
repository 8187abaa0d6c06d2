"""Role `dwaas` (Dwaas): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="dwaas",
    name_nl="Dwaas",
    name_en="Fool",
    team=Team.BURGERS,
    step="nacht",
    description="Believes he is a ziener, but every vision shows a wrong role.",
)

ACTIONS = (ActionSpec(action="dwaas", step="nacht", allow_self=False),)
