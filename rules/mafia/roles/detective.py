"""Role `detective` (Детектив, §7.9): tracks a player, sees a role, or requests a role's history."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec, Holder, Values

SPEC = RoleSpec(
    id="detective",
    team="red",
    step="night",
    flags=frozenset({"peaceful"}),
    description="Tracks where a player went, or sees his role, or requests a role's visits.",
)

ACTIONS = (
    ActionSpec(action="track", group="track", default=True),
    ActionSpec(action="role", group="track"),
    ActionSpec(action="request", group="track", evening=True, values=Values.ROLES),
    # A black holder substitutes what the Investigator's copy shows (§7.9).
    ActionSpec(action="fake", group="fake", min_names=0, max_names=1, holder=Holder.BLACK),
)
