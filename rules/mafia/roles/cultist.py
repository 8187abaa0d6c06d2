"""Role `cultist` (Культист, §15.21, optional): gathers souls, devours once, heals for souls."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="cultist",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Collects a soul when one of his three targets dies; spends them on heals.",
)

# `souls` (evening, E7) names three players; `kill` (devour, N9) once he has gained 3 souls;
# `heal` (N11, after the Doctor) costs souls (rules.mafia.night, rules.mafia.night_optional).
ACTIONS = (
    ActionSpec(action="souls", group="souls", min_names=3, max_names=3, evening=True),
    ActionSpec(action="kill", group="cult", kill=True, secretary_untouchable=True),
    ActionSpec(action="heal", group="cult", allow_self=True, default=True),
)
