"""Role `waarschuwer` (Waarschuwer): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="waarschuwer",
    team=Team.BURGERS,
    step="ochtend",
    description="Warns a player, whose next lynch vote counts double.",
)

ACTIONS = (ActionSpec(action="waarschuwer", step="ochtend", allow_self=False),)
