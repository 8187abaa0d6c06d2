"""Role `goochelaar` (Goochelaar): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="goochelaar",
    team=Team.BURGERS,
    step="nacht",
    no_repeat=True,
    description="Swaps the beds of two players for the night's attacks.",
)

ACTIONS = (ActionSpec(action="goochelaar", step="nacht", min_names=2, max_names=2, no_repeat=True),)
