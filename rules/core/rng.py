"""Deterministic randomness: a draw is a pure function of the game's seed and a draw counter."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def draw_index(seed: int, counter: int, size: int) -> int:
    """Return an index in ``range(size)`` for draw number ``counter`` of a game seeded ``seed``.

    The same seed and counter always give the same index; the caller stores ``counter + 1``
    in its state so the next draw differs.  Raises ValueError when ``size`` is not positive.
    """
    if size <= 0:
        raise ValueError("cannot draw from an empty range")
    digest = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % size


def draw_from(seed: int, counter: int, items: Sequence[T]) -> T:
    """Return the item of ``items`` chosen by draw number ``counter`` (see :func:`draw_index`)."""
    return items[draw_index(seed, counter, len(items))]


def shuffled(seed: int, salt: str, items: Sequence[T]) -> list[T]:
    """Return a deterministic permutation of ``items`` (Fisher-Yates on seeded draws)."""
    result = list(items)
    for position in range(len(result) - 1, 0, -1):
        digest = hashlib.sha256(f"{seed}:{salt}:{position}".encode()).digest()
        other = int.from_bytes(digest[:8], "big") % (position + 1)
        result[position], result[other] = result[other], result[position]
    return result
