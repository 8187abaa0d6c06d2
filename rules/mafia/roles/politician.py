"""Role `politician` (Политик, §15.1, optional): supporters, a shadow vertical, patronage."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="politician",
    team="red",
    step="pre_vote",
    flags=frozenset({"peaceful", "optional"}),
    description="Names supporters who weigh more with him; protects a player; hard to vote out.",
)

# `support` and `shadow` are pre-vote actions (rules.mafia.actions); the evening `patronage`
# (E12) is offered only while he is Mayor or Secretary.
ACTIONS = (ActionSpec(action="patronage", group="patronage", evening=True),)
