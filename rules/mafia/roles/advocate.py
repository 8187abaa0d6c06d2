"""Role `advocate` (Адвокат, §15.9, optional): private colour checks, defence, a heavier ballot."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="advocate",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional", "checker"}),
    description="Checks colours privately; defends a checked red; votes harder against blacks.",
)

# His `defend` is a pre-vote move and a black holder's `nobonus` a vote-time move
# (rules.mafia.actions.DEFEND, NOBONUS); his ballot bonus a counting stage (rules.mafia.tally).
ACTIONS = (
    ActionSpec(
        action="check", group="check", allow_self=True, default=True, secretary_untouchable=True
    ),
    ActionSpec(action="verify", group="check", evening=True, allow_self=True, dead_ok=True),
)
