"""Role `doctor` (Доктор, §7.6): heals one or two players at N11."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="doctor",
    team="red",
    step="night",
    no_repeat=True,
    flags=frozenset({"peaceful", "public_result"}),
    description="Heals one or two players against every attack of the night.",
)

# Himself is allowed alone only; the no-repeat limits are checked in rules.mafia.moves.
ACTIONS = (ActionSpec(action="heal", group="heal", max_names=2, allow_self=True, default=True),)
