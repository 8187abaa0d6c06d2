"""Role `slet` (Slet): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="slet",
    team=Team.BURGERS,
    flags=frozenset({"burns"}),
    step="nacht",
    no_repeat=True,
    description="Sleeps in another player's bed.",
)

ACTIONS = (ActionSpec(action="slet", step="nacht", allow_self=False, no_repeat=True),)
