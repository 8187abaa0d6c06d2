"""Role `witness` (Свидетель, §15.12, optional): vouches for up to four voters in the pre-vote."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="witness",
    team="red",
    step="pre_vote",
    flags=frozenset({"peaceful", "optional"}),
    description="Vouches for voters: when they vote with him, they and he weigh more.",
)

# No night move: his `vouch` is a pre-vote action (rules.mafia.actions.VOUCH), his bonus a
# counting stage (rules.mafia.tally).
ACTIONS: tuple[ActionSpec, ...] = ()
