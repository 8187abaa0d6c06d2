"""Role `liar` (Лжец, §15.13, optional): a scandal after each lynch-type vote voids ballots."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="liar",
    team="red",
    step="vote_moves",
    flags=frozenset({"peaceful", "optional", "vote_time"}),
    description="After a vote, names one or two voters whose ballots then count nothing.",
)

# No night move: his `scandal` (and a black Liar's `hidden` ballots) are vote-time moves
# (rules.mafia.actions.SCANDAL, HIDDEN), counted by rules.mafia.tally.
ACTIONS: tuple[ActionSpec, ...] = ()
