"""What the rest of the program may read of any ruleset's state: a frozen, typed view."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

JsonValue: TypeAlias = str | int | float | bool | list["JsonValue"] | dict[str, "JsonValue"] | None
"""A value that JSON (and so the database, the game log and a scenario file) can hold."""


@dataclass(frozen=True)
class SeatView:
    """One player as the narrator sees him: his true role and team, life, missed votes.

    ``alive`` is False for a player out of play (dead, or exiled where a ruleset has exile);
    ``exiled`` tells the exiled apart (out of play, but living: Lupus); ``revealed``: his
    role is public while he lives (Wakkerdam's Dorpsgek, shown at the stake).
    The role is the truth; what the player was *told* is :meth:`Ruleset.told_role`.
    """

    name: str
    alive: bool
    role: str
    team: str
    missed: int = 0
    exiled: bool = False
    revealed: bool = False


_new = object.__new__


def seat_view(
    name: str,
    alive: bool,
    role: str,
    team: str,
    missed: int = 0,
    exiled: bool = False,
    revealed: bool = False,
) -> SeatView:
    """``SeatView(name, alive, ...)``, made as the codec makes a record
    (:func:`rules.core.records.made`), not by the frozen dataclass's ``__init__``, which sets
    the seven fields one by one: half the cost, and a view of a game of 50 builds one for
    every player.  ``made``'s two lines are written out here (its call was a sixth of a
    seat)."""
    seat = _new(SeatView)
    vars(seat).update(
        {
            "name": name,
            "alive": alive,
            "role": role,
            "team": team,
            "missed": missed,
            "exiled": exiled,
            "revealed": revealed,
        }
    )
    return seat


@dataclass(frozen=True)
class GameView:
    """A game at one moment, as every ruleset can describe it.

    ``step`` is None once the game is over; ``phase`` is the step's phase from the ruleset's
    step table (e.g. ``start``, ``night``, ``day``; None when over).  ``night``/``day`` number
    the moment as the transcripts do.  ``votes`` are the votes in force (admin view: key
    ``Name`` or ``Name:keyword`` -> names, ``()`` = blank), in arrival order.  ``facts`` are
    the ruleset's public facts that stories may show
    (Wakkerdam: ``{"mayor": "Anna", "has_mayor": True}``).
    """

    step: str | None
    phase: str | None
    night: int
    day: int
    over: bool
    winners: tuple[str, ...]
    teams: tuple[str, ...]
    players: tuple[SeatView, ...]
    votes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    facts: Mapping[str, JsonValue] = field(default_factory=dict)

    def find(self, name: str) -> SeatView | None:
        """Return the player with exactly this name, or None."""
        for seat in self.players:
            if seat.name == name:
                return seat
        return None

    def by_name(self) -> dict[str, SeatView]:
        """Return name -> seat, for callers that look up many players."""
        return {seat.name: seat for seat in self.players}

    @property
    def alive(self) -> tuple[str, ...]:
        """The names of the players still in play, in seat order."""
        return tuple(seat.name for seat in self.players if seat.alive)
