"""Role `witte_weerwolf` (Witte Weerwolf): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="witte_weerwolf",
    team=Team.EIGEN,
    flags=frozenset({"evil", "burns", "pack:weerwolven", "circle:weerwolven"}),
    step="nacht",
    description="Votes with the pack, and on even nights kills alone (keyword witte); wins alone.",
)

ACTIONS = (ActionSpec(action="weerwolf", step="nacht", pack="weerwolven"),)

SOLO = ActionSpec(action="witte", step="nacht", allow_self=False, keyword="witte")
"""The solo kill of even nights, selected by the keyword ``witte``."""


def has_solo_kill(night: int) -> bool:
    """Whether the white wolves kill alone in this night (every second night: 2, 4, ...)."""
    return night % 2 == 0
