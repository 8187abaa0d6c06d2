"""Role `psychopaat` (Psychopaat): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="psychopaat",
    name_nl="Psychopaat",
    name_en="Psychopath",
    team=Team.EIGEN,
    step="nacht",
    evil=True,
    burns=True,
    description="Kills a player every night; wins alone.",
)

ACTIONS = (ActionSpec(action="psychopaat", step="nacht", allow_self=False),)
