"""The base of game events: frozen values with a transcript form and an audience."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any, ClassVar


class AudienceKind(enum.Enum):
    """Who may learn an event."""

    PUBLIC = "public"
    PLAYERS = "players"
    TEAM = "team"


@dataclass(frozen=True)
class Audience:
    """The receivers of an event: everybody, some players (usually one), or a team."""

    kind: AudienceKind
    names: tuple[str, ...] = ()

    @classmethod
    def public(cls) -> Audience:
        """Return the audience of every player."""
        return cls(AudienceKind.PUBLIC)

    @classmethod
    def player(cls, *names: str) -> Audience:
        """Return the audience of the named players only."""
        return cls(AudienceKind.PLAYERS, tuple(names))

    @classmethod
    def team(cls, team: str) -> Audience:
        """Return the audience of the living members of ``team``."""
        return cls(AudienceKind.TEAM, (team,))

    @property
    def is_public(self) -> bool:
        """Whether every player may learn the event."""
        return self.kind is AudienceKind.PUBLIC


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class Event:
    """An event: ``type`` names it, the dataclass fields are its transcript fields.

    Subclasses define ``type`` and their fields and override :attr:`audience`.
    """

    type: ClassVar[str] = "event"

    @property
    def audience(self) -> Audience:
        """Who may learn this event (not part of the transcript form)."""
        return Audience.public()

    def to_dict(self) -> dict[str, Any]:
        """Return the transcript form: ``{"type": ..., field: value, ...}`` with JSON values."""
        result: dict[str, Any] = {"type": self.type}
        for field in dataclasses.fields(self):
            result[field.name] = _plain(getattr(self, field.name))
        return result


@dataclass(frozen=True)
class RejectedVote(Event):
    """The vote of ``player`` was refused for ``reason`` (a rejection code; private).

    Every ruleset shares it: the scenario runner reports a refused scripted vote with it.
    """

    type: ClassVar[str] = "rejected"
    player: str
    reason: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Win(Event):
    """The game is over: ``teams`` won, ``winners`` are every winning player in seat order
    (public).  Every ruleset ends its games with it (interfaces: ``win`` [teams, winners])."""

    type: ClassVar[str] = "win"
    teams: tuple[str, ...]
    winners: tuple[str, ...]


class PrivateEvent(Event):
    """An event only its ``player`` learns (a subclass declares ``player`` as its first field)."""

    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Death(Event):
    """``player`` died of ``cause`` (public).  The death of most rulesets (Mafia has its own)."""

    type: ClassVar[str] = "death"
    player: str
    cause: str


@dataclass(frozen=True)
class Removed(Event):
    """The narrator's admin removed ``player`` from the running game (public): the ruleset's
    own record follows it (a ``death`` with its removal cause, Lupus's ``exile``)."""

    type: ClassVar[str] = "removed"
    player: str


@dataclass(frozen=True)
class Inactive(PrivateEvent):
    """``player`` missed a vote he was asked for; ``missed`` counts them in a row (private)."""

    type: ClassVar[str] = "inactive"
    player: str
    missed: int


@dataclass(frozen=True)
class RoleInfo(PrivateEvent):
    """Start of game: ``player`` has ``role`` (as he is told it) of ``team``; ``mates`` are the
    players he knows (the role mail; the default of :meth:`RulesetBase.start_events`)."""

    type: ClassVar[str] = "role"
    player: str
    role: str
    team: str
    mates: tuple[str, ...]


@dataclass(frozen=True)
class RoleChange(PrivateEvent):
    """``player`` now has ``role`` (private to him; a ruleset may tell him another role:
    :meth:`Ruleset.as_told`)."""

    type: ClassVar[str] = "role_change"
    player: str
    role: str


def event_fields(event_type: type[Event]) -> tuple[str, ...]:
    """Return the transcript fields of an event type, in declaration order."""
    return tuple(field.name for field in dataclasses.fields(event_type))
