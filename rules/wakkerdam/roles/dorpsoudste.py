"""Role `dorpsoudste` (Dorpsoudste): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="dorpsoudste",
    team=Team.BURGERS,
    description="Survives the first night attack; when he dies the burgers lose their gifts.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
