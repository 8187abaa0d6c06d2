"""Role `heks` (Heks): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="heks",
    team=Team.BURGERS,
    flags=frozenset({"burns"}),
    step="heks",
    description="Has one elixir (saves a wounded player) and one poison (kills a player).",
)

ACTIONS = (ActionSpec(action="heks", step="heks", min_names=0, max_names=2, potions=True),)
