"""Role `klaas_vaak` (Klaas Vaak): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="klaas_vaak",
    team=Team.BURGERS,
    step="klaas_vaak",
    no_repeat=True,
    description="Puts one player to sleep for the rest of the night.",
)

ACTIONS = (ActionSpec(action="klaas_vaak", step="klaas_vaak", allow_self=False, no_repeat=True),)
