"""Role `bum` (Бомж, §15.8, optional): watches a house (twice running) or gets drunk."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="bum",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Watches who comes to a house; drunk, every move on him fails.",
)

# Not offered on the night after a chosen watch: that night repeats it (rules.mafia.status).
ACTIONS = (
    ActionSpec(action="watch", group="watch", default=True),
    ActionSpec(action="drink", group="watch", min_names=0, max_names=0),
)
