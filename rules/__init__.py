"""Pure game rules: state, roles, steps, resolution and win checks (no I/O, no clock).

``Audience``, ``AudienceKind`` and ``Event`` come from :mod:`rules.core.events` when first asked
for (as in :mod:`rules.core`): a read of a state loads no event class.
"""

from typing import TYPE_CHECKING, Any

from rules.core import (
    EVENT_NAMES,
    Accepted,
    ActionChoice,
    Choices,
    Distribution,
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

if TYPE_CHECKING:
    from rules.core.events import Audience, AudienceKind, Event

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


def __getattr__(name: str) -> Any:
    """The event classes of :data:`rules.core.EVENT_NAMES`; AttributeError for the rest."""
    if name in EVENT_NAMES:
        from rules.core import events

        return getattr(events, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
