"""Role `slet` (Slet): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="slet",
    name_nl="Slet",
    name_en="Harlot",
    team=Team.BURGERS,
    step="nacht",
    no_repeat=True,
    burns=True,
    description="Sleeps in another player's bed.",
)

ACTIONS = (ActionSpec(action="slet", step="nacht", allow_self=False, no_repeat=True),)
