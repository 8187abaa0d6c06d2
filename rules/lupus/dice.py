"""Seeded draws for one resolution: each draw advances the state's counter (rules/core/rng.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from rules.core.rng import draw_index

T = TypeVar("T")


class Dice:
    """The draws of one resolution, starting at the state's counter.

    A Dice lives only while one pure function runs; the caller stores :attr:`counter` in the
    new state, so seed + votes replay the same draws.
    """

    def __init__(self, seed: int, counter: int) -> None:
        self.seed = seed
        self.counter = counter

    def index(self, size: int) -> int:
        """Return a drawn index in ``range(size)`` (ValueError when ``size`` is not positive)."""
        result = draw_index(self.seed, self.counter, size)
        self.counter += 1
        return result

    def pick(self, items: Sequence[T]) -> T:
        """Return one of ``items``, drawn; a single item is returned without a draw."""
        if len(items) == 1:
            return items[0]
        return items[self.index(len(items))]

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """Return ``items`` in a drawn order (Fisher-Yates)."""
        result = list(items)
        for position in range(len(result) - 1, 0, -1):
            other = self.index(position + 1)
            result[position], result[other] = result[other], result[position]
        return result
