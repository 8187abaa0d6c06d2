"""Role `mafia` (Мафия, §7.4): the mafia side's shooters, with partners, insurance, rumours."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="mafia",
    team="black",
    step="night",
    flags=frozenset({"negative", "partners"}),
    description="Kills on odd nights with the partners; insures a partner's shot.",
)

ACTIONS = (
    ActionSpec(action="kill", group="kill", kill=True, secretary_untouchable=True),
    ActionSpec(action="insure", group="kill", min_names=0, secretary_untouchable=True),
    ActionSpec(action="noinsure", group="kill", min_names=0, max_names=0),
    ActionSpec(action="suicide", group="suicide", min_names=0, max_names=0),
    ActionSpec(action="approve", group="approve", min_names=0, max_names=0),
    ActionSpec(action="rumour", group="rumour", evening=True, allow_self=True),
)
