"""Role `priester` (Priester): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="priester",
    team=Team.BURGERS,
    step="nacht",
    description="Learns whether a player burns in holy water.",
)

ACTIONS = (ActionSpec(action="priester", step="nacht", allow_self=False),)
