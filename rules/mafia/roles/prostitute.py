"""Role `prostitute` (Проститутка, §15.4, optional): takes a client for the night at N4."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="prostitute",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Takes a client: his later moves are stopped and moves on him fail; a kill on "
    "her kills him too (with `safe`, he is crippled instead).",
)

ACTIONS = (
    ActionSpec(action="take", group="take", default=True),
    ActionSpec(action="safe", group="take"),
)
