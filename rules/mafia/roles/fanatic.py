"""Role `fanatic` (Фанатик, §15.17, optional): avenges his favourite; takes one when lynched."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="fanatic",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional", "death_time"}),
    description="Names a favourite on night 1; once the favourite is dead, kills to avenge him.",
)

# `favourite` only on night 1 (evening, E6), `kill` only while his revenge is on
# (rules.mafia.actions decides when each is offered).
ACTIONS = (
    ActionSpec(action="favourite", group="favourite", evening=True),
    ActionSpec(action="kill", group="revenge", kill=True, secretary_untouchable=True),
)
