"""Role `journalist` (Журналист, §15.7, optional): compares two players' colours at N17."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="journalist",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Learns whether two players have the same colour.",
)

ACTIONS = (
    ActionSpec(
        action="compare",
        group="compare",
        min_names=2,
        max_names=2,
        default=True,
        secretary_untouchable=True,
    ),
    # A clean comparison of the last pair's true colours, instead of the night's comparison.
    ActionSpec(action="verify", group="compare", min_names=0, max_names=0, evening=True),
)
