"""Role `priest` (Священник, §15.11, optional): a barrier at votes, and forgiveness."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="priest",
    team="red",
    step="vote_moves",
    flags=frozenset({"peaceful", "optional"}),
    description="Hard to lynch (barrier 3, less after red lynches); forgives the player he voted "
    "against: a rescued player brings a new vote without him.",
)

# Day moves only: `forgive` (vote_moves) and `instead` (last_moves) in rules.mafia.actions; the
# barrier in rules.mafia.tally; his visitors' roles at night (rules.mafia.night_optional).
ACTIONS: tuple[ActionSpec, ...] = ()
