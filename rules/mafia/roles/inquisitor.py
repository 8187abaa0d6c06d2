"""Role `inquisitor` (Инквизитор, §15.10, optional): private checks, a burn, a last kill."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="inquisitor",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional", "checker", "death_time"}),
    description="Checks colours privately; burns a player checked black; kills when lynched.",
)

# The burn (`kill`, N9) replaces the night's check; his death-time kill is a `last_moves` move
# (rules.mafia.actions.LAST_KILL).
ACTIONS = (
    ActionSpec(
        action="check", group="check", allow_self=True, default=True, secretary_untouchable=True
    ),
    ActionSpec(action="verify", group="check", evening=True, allow_self=True, dead_ok=True),
    ActionSpec(action="kill", group="check", kill=True, secretary_untouchable=True),
)
