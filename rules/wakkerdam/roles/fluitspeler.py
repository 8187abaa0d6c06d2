"""Role `fluitspeler` (Fluitspeler): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="fluitspeler",
    name_nl="Fluitspeler",
    name_en="Piper",
    team=Team.FLUITSPELERS,
    step="heks",
    evil=True,
    burns=True,
    description=(
        "Enchants one or two players each night; wins when every other living player is enchanted."
    ),
)

ACTIONS = (ActionSpec(action="fluitspeler", step="heks", min_names=1, max_names=2, charm=True),)
