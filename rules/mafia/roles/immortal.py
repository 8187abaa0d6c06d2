"""Role `immortal` (Бессмертный, §15.2, optional): a spare life, and a link to share it."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="immortal",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Survives the first deadly attack; may link a player to share that life.",
)

# Evening moves (E1): `link X` once per game, `unlink` on a later evening.
ACTIONS = (
    ActionSpec(action="link", group="link", evening=True),
    ActionSpec(action="unlink", group="link", min_names=0, max_names=0, evening=True),
)
