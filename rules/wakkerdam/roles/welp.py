"""Role `welp` (Welp): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="welp",
    name_nl="Welp",
    name_en="Cub",
    team=Team.WEERWOLVEN,
    evil=True,
    burns=True,
    description="A young werewolf: joins the pack when a werewolf dies.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
