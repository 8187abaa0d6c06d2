"""Pure game rules: state, roles, steps, resolution and win checks (no I/O, no clock)."""

from rules.core import (
    Accepted,
    ActionChoice,
    Audience,
    AudienceKind,
    Choices,
    Distribution,
    Event,
    Rejected,
    Resolution,
    RoleSpec,
    Seat,
    Settings,
    UnknownRuleset,
    Vote,
    get_ruleset,
    ruleset_ids,
)

__all__ = [
    "Accepted",
    "ActionChoice",
    "Audience",
    "AudienceKind",
    "Choices",
    "Distribution",
    "Event",
    "Rejected",
    "Resolution",
    "RoleSpec",
    "Seat",
    "Settings",
    "UnknownRuleset",
    "Vote",
    "get_ruleset",
    "ruleset_ids",
]
