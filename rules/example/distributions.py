"""The example's role distributions: a wolf per four players, a seer from four players."""

from __future__ import annotations

from rules.core.model import Distribution
from rules.example.roles import CONTADINO, LUPO, VEGGENTE

MIN_PLAYERS, MAX_PLAYERS = 3, 40


def build(players: int) -> Distribution:
    """The built-in distribution for ``players`` seats (``esempio-N``)."""
    wolves = max(1, players // 4)
    seers = 1 if players >= 4 else 0
    roles = (LUPO.id,) * wolves + (VEGGENTE.id,) * seers
    roles += (CONTADINO.id,) * (players - len(roles))
    return Distribution(id=f"esempio-{players}", players=players, roles=roles)


DEFAULT_DISTRIBUTIONS: tuple[Distribution, ...] = tuple(
    build(players) for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)
)
"""The built-in distributions; a game draws among those for its players (seeded: the base's
``pick_distribution``)."""
