"""Role `executor` (Экзекутор, §16.4, optional): a werewolf who captures, then releases or
tortures; lynched, he destroys a player."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.roles import mafia
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="executor",
    team="black",
    step="night",
    flags=frozenset({"negative", "optional", "werewolf"}),
    description="Captures a player at the end of the night (his role is blocked), learns his role "
    "and team, then releases or cripples him; survives one night attack.",
)

# The capture (N19), the evening decision on the captive (E3), and the moves of every black.
# His death-time `destroy` is a `last_moves` action (rules.mafia.actions).
ACTIONS = (
    ActionSpec(action="capture", group="capture", allow_self=True),
    ActionSpec(action="release", group="captive", min_names=0, max_names=0, evening=True),
    ActionSpec(action="torture", group="captive", min_names=0, max_names=0, evening=True),
    *(spec for spec in mafia.ACTIONS if spec.action in ("kill", "suicide", "approve")),
)
