"""Role `maniac` (Маньяк, §7.4): the maniac side, up to two kills at once on even nights."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="maniac",
    team="black",
    step="night",
    flags=frozenset({"negative"}),
    description="Kills on even nights, up to two players at once.",
)

ACTIONS = (
    ActionSpec(action="kill", group="kill", max_names=2, kill=True, secretary_untouchable=True),
    ActionSpec(action="insure", group="kill", secretary_untouchable=True),
    ActionSpec(action="suicide", group="suicide", min_names=0, max_names=0),
    ActionSpec(action="approve", group="approve", min_names=0, max_names=0),
    ActionSpec(action="rumour", group="rumour", evening=True, allow_self=True),
)
