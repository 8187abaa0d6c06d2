"""The Lupus events (§13.2): frozen dataclasses with their transcript fields and audience."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

from rules.core.events import (
    Audience,
    Death,
    Event,
    Inactive,
    RejectedVote,
    Removed,
    RoleChange,
    RoleInfo,
    Win,
)


class _Private(Event):
    """An event only its ``player`` learns."""

    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Knows(_Private):
    """``player`` learns that ``target`` has ``role`` (None: only a power) and ``power``."""

    type: ClassVar[str] = "knows"
    player: str
    target: str
    role: str | None
    power: str | None = None


@dataclass(frozen=True)
class Propositions(_Private):
    """Start: the Divinatore's four statements, ``[target, role]`` pairs, two of them true."""

    type: ClassVar[str] = "propositions"
    player: str
    statements: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Outcome(_Private):
    """Whether ``player``'s action with ``power`` (role or supernatural power id) succeeded."""

    type: ClassVar[str] = "outcome"
    player: str
    power: str
    success: bool


@dataclass(frozen=True)
class AuraSeen(_Private):
    """Veggente, Investigatore: ``target`` appears with ``aura``."""

    type: ClassVar[str] = "aura"
    player: str
    target: str
    aura: str


@dataclass(frozen=True)
class MysticSeen(_Private):
    """Mago: whether ``target`` appears mystic."""

    type: ClassVar[str] = "mystic"
    player: str
    target: str
    value: bool


@dataclass(frozen=True)
class Seen(_Private):
    """Diavolo, Medium, Visione: ``target`` appears to have ``role``."""

    type: ClassVar[str] = "seen"
    player: str
    target: str
    role: str


@dataclass(frozen=True)
class Visitors(_Private):
    """Guardia, Custode: how many other players acted on ``target``."""

    type: ClassVar[str] = "visitors"
    player: str
    target: str
    count: int


@dataclass(frozen=True)
class Tracked(_Private):
    """Stalker: on whom ``target`` acted (``()``: nobody)."""

    type: ClassVar[str] = "tracked"
    player: str
    target: str
    visited: tuple[str, ...]


@dataclass(frozen=True)
class Watched(_Private):
    """Voyeur: the living players who acted on ``target`` (seat order)."""

    type: ClassVar[str] = "watched"
    player: str
    target: str
    visitors: tuple[str, ...]


@dataclass(frozen=True)
class Ghost(_Private):
    """``player`` became a Spettro with ``power``, ``via`` ``negromanti`` or ``fantasma``."""

    type: ClassVar[str] = "ghost"
    player: str
    power: str
    via: str


@dataclass(frozen=True)
class NoGhost(_Private):
    """``player``, a Fantasma who just died, did not become a Spettro: no supernatural power
    was left for him (seed 001 FAQ 12)."""

    type: ClassVar[str] = "no_ghost"
    player: str


@dataclass(frozen=True)
class Resurrected(Event):
    """``player`` lives again (public)."""

    type: ClassVar[str] = "resurrected"
    player: str


@dataclass(frozen=True)
class Election(Event):
    """The election ballots' ``totals``; ``player`` was elected Sindaco, or None."""

    type: ClassVar[str] = "election"
    player: str | None
    totals: Mapping[str, int]


@dataclass(frozen=True)
class Mayor(Event):
    """``player`` is Sindaco ``via`` ``start``, ``election``, ``successor`` or ``draw``."""

    type: ClassVar[str] = "mayor"
    player: str
    via: str


@dataclass(frozen=True)
class Lynch(Event):
    """The rogo: ``player`` burnt or None; effective ``ballots`` and ``totals``; ``failed``
    is None, ``quorum`` or ``avvocato``."""

    type: ClassVar[str] = "lynch"
    player: str | None
    totals: Mapping[str, int]
    ballots: Mapping[str, str]
    failed: str | None


@dataclass(frozen=True)
class Defeat(Event):
    """Faction ``team`` is defeated; ``players`` are its members (seat order)."""

    type: ClassVar[str] = "defeat"
    team: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class Exile(Event):
    """``player`` is removed from the game for ``cause`` (``sconfitta``, ``inattivita``)."""

    type: ClassVar[str] = "exile"
    player: str
    cause: str


_TYPES: tuple[type[Event], ...] = (
    RoleInfo,
    Knows,
    Propositions,
    Outcome,
    AuraSeen,
    MysticSeen,
    Seen,
    Visitors,
    Tracked,
    Watched,
    Ghost,
    NoGhost,
    Resurrected,
    RoleChange,
    Death,
    Election,
    Mayor,
    Lynch,
    Defeat,
    Exile,
    Removed,
    Inactive,
    RejectedVote,
    Win,
)

EVENT_TYPES: Mapping[str, type[Event]] = MappingProxyType({cls.type: cls for cls in _TYPES})
"""Transcript event type -> its class, for every event a Lupus game emits."""
