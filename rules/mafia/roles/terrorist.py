"""Role `terrorist` (Террорист, §15.6, optional): an explosion when lynched, a detonator once."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="terrorist",
    team="red",
    step="pre_vote",
    flags=frozenset({"peaceful", "optional"}),
    description="Lynched, he blocks the roles of his voters; once per game his detonator takes a "
    "player with him instead of the day's vote.",
)

# Day moves only: `detonate` (arming, pre-vote; the target, vote_moves) in rules.mafia.actions;
# the explosion and the detonation in rules.mafia.day_roles.
ACTIONS: tuple[ActionSpec, ...] = ()
