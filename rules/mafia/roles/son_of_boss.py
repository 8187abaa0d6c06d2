"""Role `son_of_boss` (Сын босса, §16.1, optional): a third mafia member who always reads red."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.roles import mafia
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="son_of_boss",
    team="black",
    step="night",
    flags=frozenset({"negative", "partners", "optional", "werewolf"}),
    description="A Mafia partner whose checks read red; names a successor every evening.",
)

# The mafia side's moves (shots, insurance, suicide, approval, rumour), plus the successor (E5).
ACTIONS = (*mafia.ACTIONS, ActionSpec(action="successor", group="successor", evening=True))
