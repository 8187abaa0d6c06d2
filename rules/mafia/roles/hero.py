"""Role `hero` (Герой, §15.16, optional): saves a lynched player once; a barrier of 1."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="hero",
    team="red",
    step="vote_moves",
    flags=frozenset({"peaceful", "optional", "vote_time", "death_time"}),
    description="Once, cancels a red's lynch (or dies with a black); takes a voter when lynched.",
)

# His `save` is a vote-time move and his `take` a death-time move (rules.mafia.actions.SAVE,
# LAST_TAKE); his barrier is a counting stage (rules.mafia.tally).
ACTIONS: tuple[ActionSpec, ...] = ()
