"""The vampiri events: what players learn, in the transcript form of docs/rules/vampiri.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rules.core.events import Audience, Death, Event, Inactive, RejectedVote, Removed, Win


@dataclass(frozen=True)
class Execution(Event):
    """The night vote executed ``player`` (None: nobody); ``totals`` of the named (public)."""

    type: ClassVar[str] = "execution"
    player: str | None
    totals: dict[str, int]


@dataclass(frozen=True)
class Tie(Event):
    """``players`` share the highest total of the night vote (public)."""

    type: ClassVar[str] = "tie"
    players: tuple[str, ...]
    totals: dict[str, int]


@dataclass(frozen=True)
class Verdict(Event):
    """The ``decisione``: ``value`` ``condanna`` or ``risparmia`` for the tied ``players``."""

    type: ClassVar[str] = "verdict"
    value: str
    counts: dict[str, int]
    players: tuple[str, ...]


@dataclass(frozen=True)
class Blocked(Event):
    """The Monaco blocked ``player``'s ability today (told at nightfall; private)."""

    type: ClassVar[str] = "blocked"
    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Hunt(Event):
    """The hunters' choice at noon: ``target`` (None: no victim), told to ``hunters``."""

    type: ClassVar[str] = "hunt"
    target: str | None
    hunters: tuple[str, ...]

    @property
    def audience(self) -> Audience:
        return Audience.player(*self.hunters)


@dataclass(frozen=True)
class LoneHunt(Hunt):
    """The hunters' choice under ``lone_hunter``: in the transcript, but nobody is told."""

    @property
    def audience(self) -> Audience:
        return Audience.player()


@dataclass(frozen=True)
class Investigation(Event):
    """The investigator ``player`` learns ``target``'s ``category`` (private)."""

    type: ClassVar[str] = "investigation"
    player: str
    target: str
    category: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Silenced(Event):
    """The Bella took ``player``'s vote for the coming night (private to him)."""

    type: ClassVar[str] = "silenced"
    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Hunters(Event):
    """``Cacciatori Turisti``: ``player`` learns the hunters' group ``players`` (private)."""

    type: ClassVar[str] = "hunters"
    player: str
    players: tuple[str, ...]

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class RoleInfo(Event):
    """Start of game: ``player`` has ``role`` of ``team``; ``mates`` are the names he knows
    (the hunters' group, or the other werewolf).  Not a transcript event: the role mail."""

    type: ClassVar[str] = "role"
    player: str
    role: str
    team: str
    category: str
    mates: tuple[str, ...]
    undercover: bool = False

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Composition(Event):
    """Start of game (public): the players in seat order, how many of each team, and the
    special roles in play, a Lord or werewolf drawn at the deal shown only as ``signore`` /
    ``lupo_mannaro``.  Not a transcript event: the start mail."""

    type: ClassVar[str] = "composition"
    players: tuple[str, ...]
    teams: dict[str, int]
    specials: tuple[str, ...]


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Execution,
        Tie,
        Verdict,
        Blocked,
        Hunt,
        Investigation,
        Silenced,
        Hunters,
        Removed,
        Death,
        Inactive,
        RejectedVote,
        Win,
    )
}
"""Transcript event type -> its class: every event a vampiri step can produce."""

START_EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in (RoleInfo, Composition)}
"""The start mail's events (not in transcripts)."""
