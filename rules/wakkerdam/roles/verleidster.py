"""Role `verleidster` (Verleidster): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="verleidster",
    team=Team.BURGERS,
    flags=frozenset({"burns"}),
    step="nacht",
    no_repeat=True,
    description="Lures a player into her own bed.",
)

ACTIONS = (ActionSpec(action="verleidster", step="nacht", allow_self=False, no_repeat=True),)
