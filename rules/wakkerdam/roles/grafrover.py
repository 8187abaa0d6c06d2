"""Role `grafrover` (Grafrover): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Targets, Team

SPEC = RoleSpec(
    id="grafrover",
    team=Team.BURGERS,
    flags=frozenset({"burns"}),
    step="grafrover",
    description="Once, from night 2 on, takes the role of a dead player.",
)

ACTIONS = (ActionSpec(action="grafrover", step="grafrover", targets=Targets.DEAD),)
