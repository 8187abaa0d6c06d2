"""Role `schout` (Schout): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="schout",
    team=Team.BURGERS,
    step="ochtend",
    no_repeat=True,
    description="Jails a player for the next lynch: he can neither vote nor be voted for.",
)

ACTIONS = (ActionSpec(action="schout", step="ochtend", no_repeat=True),)
