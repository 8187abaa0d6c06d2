"""The small core that every ruleset shares: values, votes, events, RNG, steps, registry."""

from rules.core.events import Audience, AudienceKind, Event
from rules.core.model import (
    Accepted,
    ActionChoice,
    Choices,
    Distribution,
    Rejected,
    Resolution,
    RoleSpec,
    Seat,
    Settings,
    Vote,
)
from rules.core.registry import UnknownRuleset, get_ruleset, ruleset_ids
from rules.core.rng import draw_index

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
    "draw_index",
    "get_ruleset",
    "ruleset_ids",
]
