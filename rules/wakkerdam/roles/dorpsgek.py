"""Role `dorpsgek` (Dorpsgek): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="dorpsgek",
    team=Team.BURGERS,
    description="Survives his lynch once: his role is revealed and he loses his vote.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
