"""The example's role distributions: a wolf per four players, a seer from four players."""

from __future__ import annotations

from collections.abc import Sequence

from rules.core.model import Distribution
from rules.core.rng import draw_from
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


def pick_distribution(
    n_players: int, seed: int, extra: Sequence[Distribution] = ()
) -> Distribution:
    """Draw (seeded) among the built-in and the admins' distributions for ``n_players``.

    Raises ValueError when none fits.
    """
    fitting = [d for d in (*DEFAULT_DISTRIBUTIONS, *extra) if d.players == n_players]
    if not fitting:
        raise ValueError(f"no distribution for {n_players} players")
    return draw_from(seed, 0, fitting)
