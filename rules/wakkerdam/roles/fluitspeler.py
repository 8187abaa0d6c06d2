"""Role `fluitspeler` (Fluitspeler): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="fluitspeler",
    team=Team.FLUITSPELERS,
    flags=frozenset({"evil", "burns", "circle:fluitspelers"}),
    step="heks",
    description=(
        "Enchants one or two players each night; wins when every other living player is enchanted."
    ),
)

ACTIONS = (ActionSpec(action="fluitspeler", step="heks", min_names=1, max_names=2, charm=True),)
