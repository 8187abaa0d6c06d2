"""Role `investigator` (Следователь, §7.10): copies of the checkers' results; a vigilante shot."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec, Values

SPEC = RoleSpec(
    id="investigator",
    team="red",
    step="night",
    flags=frozenset({"peaceful"}),
    description="Receives copies of the Commissar's and Detective's results; shoots once alone.",
)

# No default: every mail needs its keyword (keyword-required, §5.1).
ACTIONS = (
    ActionSpec(action="verify", group="act", evening=True, allow_self=True, dead_ok=True),
    ActionSpec(action="request", group="act", evening=True, values=Values.ROLES),
    ActionSpec(action="kill", group="act", kill=True, secretary_untouchable=True),
)
