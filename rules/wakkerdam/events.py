"""The Wakkerdam events: what players learn, in the transcript form of interfaces §3."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rules.core.events import (
    Audience,
    Death,
    Event,
    Inactive,
    RejectedVote,
    Removed,
    RoleChange,
    Win,
)
from rules.core.votes import number


@dataclass(frozen=True)
class Saved(Event):
    """``player`` was hit or wounded this night and survives (private to him).

    ``extra_life``: the attack cost him his one extra life (the dorpsoudste, spec 6.3.4), so
    the next one kills him; in the transcript only when true (an optional field).
    """

    type: ClassVar[str] = "saved"
    player: str
    extra_life: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "player": self.player}
        if self.extra_life:
            data["extra_life"] = True
        return data

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Lovers(Event):
    """The two ``players`` are lovers (each of them is told)."""

    type: ClassVar[str] = "lovers"
    players: tuple[str, str]

    @property
    def audience(self) -> Audience:
        return Audience.player(*self.players)


@dataclass(frozen=True)
class Bodyguard(Event):
    """``player`` is the bodyguard of ``guards`` (the bodyguard is told)."""

    type: ClassVar[str] = "bodyguard"
    player: str
    guards: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Asleep(Event):
    """``player`` sleeps this night (Klaas Vaak); he is told."""

    type: ClassVar[str] = "asleep"
    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Seen(Event):
    """The ziener (or dwaas) ``player`` saw ``role`` in ``target``."""

    type: ClassVar[str] = "seen"
    player: str
    target: str
    role: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Burns(Event):
    """The priester ``player`` learns whether ``target`` burns (``value``)."""

    type: ClassVar[str] = "burns"
    player: str
    target: str
    value: bool

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Tally(Event):
    """The onschuldige meisje ``player`` hears the anonymous ``counts`` of ``pack``'s vote."""

    type: ClassVar[str] = "tally"
    player: str
    pack: str
    counts: dict[str, int]

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Enchanted(Event):
    """``player`` is enchanted by the fluitspelers (he is told, not by whom)."""

    type: ClassVar[str] = "enchanted"
    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Warned(Event):
    """``player`` was warned: his next lynch vote counts double (private)."""

    type: ClassVar[str] = "warned"
    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Marked(Event):
    """``player`` carries the raven's mark: two extra votes against him tomorrow (public)."""

    type: ClassVar[str] = "marked"
    player: str


@dataclass(frozen=True)
class Jailed(Event):
    """``player`` is jailed for tomorrow's lynch (public)."""

    type: ClassVar[str] = "jailed"
    player: str


@dataclass(frozen=True)
class Guilty(Event):
    """``players`` may not vote in the next lynch (the zondebok's choice; public)."""

    type: ClassVar[str] = "guilty"
    players: tuple[str, ...]


@dataclass(frozen=True)
class Mayor(Event):
    """``player`` became mayor ``via`` an ``election`` or a ``testament`` (public)."""

    type: ClassVar[str] = "mayor"
    player: str
    via: str


@dataclass(frozen=True)
class NoMayor(Event):
    """The election failed: there is no mayor for the rest of the game (public)."""

    type: ClassVar[str] = "no_mayor"


@dataclass(frozen=True)
class FoolRevealed(Event):
    """The lynched ``player`` is the dorpsgek: he lives, loses his vote (public)."""

    type: ClassVar[str] = "fool_revealed"
    player: str


@dataclass(frozen=True)
class Lynch(Event):
    """The lynch result: ``player`` put on the stake (or None) and every total (public)."""

    type: ClassVar[str] = "lynch"
    player: str | None
    totals: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "player": self.player,
            "totals": {name: number(value) for name, value in self.totals.items()},
        }


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Death,
        Saved,
        RoleChange,
        Lovers,
        Bodyguard,
        Asleep,
        Seen,
        Burns,
        Tally,
        Enchanted,
        Warned,
        Marked,
        Jailed,
        Guilty,
        Mayor,
        NoMayor,
        FoolRevealed,
        Lynch,
        Inactive,
        Removed,
        RejectedVote,
        Win,
    )
}
"""Transcript event type -> its class: every event a Wakkerdam step can produce."""
