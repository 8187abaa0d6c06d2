"""Role `welp` (Welp): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="welp",
    team=Team.WEERWOLVEN,
    flags=frozenset({"evil", "burns"}),
    description="A young werewolf: joins the pack when a werewolf dies.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
