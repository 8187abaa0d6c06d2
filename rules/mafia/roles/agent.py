"""Role `agent` (Агент, §17.1, optional): an elite player who votes, may hold a post, leaves after
day 3's vote."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="agent",
    team="elite",
    step="lynch",
    flags=frozenset({"elite", "optional"}),
    description="Public from the start and untouchable; votes with weight 1, may be elected Mayor "
    "or appointed Secretary; chooses a side; leaves after day 3's vote.",
)

# Day votes and the `side` choice only (rules.mafia.actions).
ACTIONS: tuple[ActionSpec, ...] = ()
