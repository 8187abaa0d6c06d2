"""Role `judge` (Судья, §15.14, optional): a heavy ballot (6) that shrinks with red lynches."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="judge",
    team="red",
    flags=frozenset({"peaceful", "optional"}),
    description="Votes with weight 6 (less after red lynches); his ballot settles lynch ties.",
)

# Passive: the weight lives in the role's memory (rules.mafia.tally, rules.mafia.day).
ACTIONS: tuple[ActionSpec, ...] = ()
