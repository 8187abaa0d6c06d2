"""The example's events: the shared kinds of interfaces §3 plus one of its own (``visione``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rules.core.events import Audience, Death, Event, Inactive, RejectedVote, Win


@dataclass(frozen=True)
class Lynch(Event):
    """The day's vote: ``player`` is burnt (None: a tie or no votes); ``totals`` per name."""

    type: ClassVar[str] = "lynch"
    player: str | None
    totals: dict[str, int]


@dataclass(frozen=True)
class Spared(Event):
    """The wolves spared everybody tonight (they wrote ``risparmia``); public: nobody died."""

    type: ClassVar[str] = "spared"


@dataclass(frozen=True)
class Vision(Event):
    """The event of the example's own: the seer ``player`` learns the ``team`` of ``target``."""

    type: ClassVar[str] = "visione"
    player: str
    target: str
    team: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls for cls in (Death, Lynch, Spared, Vision, Inactive, RejectedVote, Win)
}
"""Transcript event type -> class: every event an example step can produce."""
