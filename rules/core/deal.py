"""Dealing a distribution's roles to the players by a seeded shuffle (seat order kept)."""

from __future__ import annotations

from collections.abc import Sequence

from rules.core.model import Distribution, Seat
from rules.core.rng import shuffled


def deal_shuffled(
    names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
) -> tuple[Seat, ...]:
    """Deal ``distribution``'s roles to ``names`` (or ``(name, gender)`` pairs), seat order kept.

    The roles are shuffled by ``seed`` (the same seed deals the same roles).  Raises ValueError
    when the distribution is for another number of players.
    """
    if len(names) != distribution.players:
        raise ValueError(f"{distribution.id} is for {distribution.players} players")
    roles = shuffled(seed, "deal", distribution.roles)
    seats: list[Seat] = []
    for entry, role in zip(names, roles, strict=True):
        name, gender = (entry, None) if isinstance(entry, str) else entry
        seats.append(Seat(name=name, role=role, gender=gender))
    return tuple(seats)
