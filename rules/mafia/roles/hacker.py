"""Role `hacker` (Хакер, §15.5, optional): an evening hack blocks roles for a day-cycle."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="hacker",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Blocks a player's roles (moves and passive effects) for one day-cycle.",
)

ACTIONS = (ActionSpec(action="hack", group="hack", default=True, evening=True),)
