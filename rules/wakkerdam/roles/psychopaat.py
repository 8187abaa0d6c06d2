"""Role `psychopaat` (Psychopaat): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="psychopaat",
    team=Team.EIGEN,
    flags=frozenset({"evil", "burns"}),
    step="nacht",
    description="Kills a player every night; wins alone.",
)

ACTIONS = (ActionSpec(action="psychopaat", step="nacht", allow_self=False),)
