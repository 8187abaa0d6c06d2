"""Role `mason` (Масон, §17.2, optional): an elite player whose lynch ballots weigh 0."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="mason",
    team="elite",
    step="lynch",
    flags=frozenset({"elite", "optional"}),
    description="Public from the start and untouchable; votes with weight 0 in lynch-type votes, "
    "not in the election; chooses a side; stays until the end.",
)

# Day votes and the `side` choice only (rules.mafia.actions).
ACTIONS: tuple[ActionSpec, ...] = ()
