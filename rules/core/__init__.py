"""The small core that every ruleset shares: values, votes, events, RNG, steps, registry.

The event classes (``Audience``, ``AudienceKind``, ``Event``) are imported from
:mod:`rules.core.events` when first asked for (``__getattr__``), so that what only reads a
state (``narrator game show``) loads no event class.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from rules.core.events import Audience, AudienceKind, Event

EVENT_NAMES = ("Audience", "AudienceKind", "Event")
"""The public names of :mod:`rules.core.events` this package gives when asked for."""

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


def __getattr__(name: str) -> Any:
    """The event classes of :data:`EVENT_NAMES`, from their module; AttributeError for the rest."""
    if name in EVENT_NAMES:
        return getattr(importlib.import_module("rules.core.events"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
