"""The parallel run's order (tests/conftest.py): each worker's share starts with its part of
the longest tests; every test is run once and the others keep their order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pytest

from tests.conftest import LONG_TESTS, longest_first


@dataclass(frozen=True)
class _Item:
    nodeid: str


def _items(count: int) -> list[pytest.Item]:
    """`count` short tests, then every listed long test (as a collection would have them)."""
    short = [_Item(f"tests/x/test_short.py::test_{n}") for n in range(count)]
    long = [_Item(f"tests/{start}") for start, _ in LONG_TESTS]
    return cast(list[pytest.Item], short + long)


def test_each_share_starts_with_long_tests_longest_first() -> None:
    items = _items(100)
    ordered = longest_first(items, 2)
    assert sorted(i.nodeid for i in ordered) == sorted(i.nodeid for i in items)
    half = len(items) // 2  # worksteal's first share
    seconds = dict((f"tests/{start}", weight) for start, weight in LONG_TESTS)
    shares = [ordered[:half], ordered[half:]]
    totals = []
    for share in shares:
        head = [seconds[i.nodeid] for i in share if i.nodeid in seconds]
        assert share[: len(head)] == [i for i in share if i.nodeid in seconds]  # long first
        assert head == sorted(head, reverse=True)
        totals.append(sum(head))
    assert ordered[0].nodeid.endswith("test_fuzz_the_pipeline[postgresql]")
    assert abs(totals[0] - totals[1]) <= max(seconds.values())
    short = [i.nodeid for i in ordered if i.nodeid not in seconds]
    assert short == [f"tests/x/test_short.py::test_{n}" for n in range(100)]


def test_one_worker_or_no_long_test_keeps_the_order() -> None:
    items = _items(10)
    assert longest_first(items, 1) == items
    plain = cast(list[pytest.Item], [_Item(f"tests/x/test_a.py::test_{n}") for n in range(9)])
    assert longest_first(plain, 2) == plain


def test_three_workers_each_start_with_a_long_test() -> None:
    items = _items(60)
    ordered = longest_first(items, 3)
    size = len(items) // 3  # worksteal's shares: n // 3, then half of the rest, then the rest
    starts = [ordered[0], ordered[size], ordered[size + (len(items) - size) // 2]]
    assert all(_weight_of(item) for item in starts), starts


def _weight_of(item: pytest.Item) -> int:
    return next((w for s, w in LONG_TESTS if item.nodeid == f"tests/{s}"), 0)
