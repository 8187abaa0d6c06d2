"""Role `poisoner` (Отравитель, §16.3, optional): a werewolf whose poison kills a night later."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.roles import mafia
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="poisoner",
    team="black",
    step="night",
    flags=frozenset({"negative", "optional", "werewolf"}),
    description="Poisons a player at N12: he dies at N12 of the next night unless healed or "
    "given the antidote.",
)

# The poisoning (N12), the evening antidote (E4; also a pre-vote move, rules.mafia.actions), and
# the moves of every black: suicide and approval (§7.4.10).
ACTIONS = (
    ActionSpec(action="poison", group="poison"),
    ActionSpec(action="antidote", group="antidote", min_names=0, max_names=0, evening=True),
    *(spec for spec in mafia.ACTIONS if spec.action in ("kill", "suicide", "approve")),
)
