"""Role `zondebok` (Zondebok): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="zondebok",
    team=Team.BURGERS,
    description="Dies on a tied lynch, and then names players who may not vote in the next lynch.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
