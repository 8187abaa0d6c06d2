"""Role `commissar` (Комиссар, §7.8): a colour check at N16, verifications in the evening."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec, Holder

SPEC = RoleSpec(
    id="commissar",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "public_result", "checker"}),
    description="Checks a player's colour; the result's kind is public.",
)

ACTIONS = (
    ActionSpec(
        action="check", group="check", allow_self=True, default=True, secretary_untouchable=True
    ),
    ActionSpec(action="verify", group="check", evening=True, allow_self=True, dead_ok=True),
    # A black holder substitutes what the Investigator's copy shows (§7.8).
    ActionSpec(action="fake_red", group="fake", min_names=0, max_names=0, holder=Holder.BLACK),
    ActionSpec(action="fake_black", group="fake", min_names=0, max_names=0, holder=Holder.BLACK),
    ActionSpec(action="fake_invert", group="fake", min_names=0, max_names=0, holder=Holder.BLACK),
)
