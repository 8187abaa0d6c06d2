"""The parallel run's order (tests/conftest.py): each worker's share starts with its part of
the longest tests; every test is run once and the others keep their order.  The wall-clock
run's: every wall-clock file listed, longest first, their tests before the others."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import pytest

from tests.conftest import (
    LONG_TESTS,
    TESTS,
    WALL_CLOCK,
    WALL_CLOCK_ORDER,
    longest_first,
    pytest_collection_modifyitems,
)


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


def test_every_wall_clock_file_is_ordered_longest_first() -> None:
    listed = [TESTS / path for path, _ in WALL_CLOCK_ORDER]
    by_hand = {
        path
        for path in TESTS.rglob("test_*.py")
        if "@pytest.mark.wallclock" in path.read_text(encoding="utf-8").split()
    }
    assert sorted(set(WALL_CLOCK) | by_hand) == sorted(listed)
    seconds = [weight for _, weight in WALL_CLOCK_ORDER]
    assert seconds == sorted(seconds, reverse=True)


@dataclass
class _FileItem:
    path: Path
    name: str
    markers: set[str] = field(default_factory=set)

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.add(marker.name)

    def get_closest_marker(self, name: str) -> object:
        return name if name in self.markers else None


def test_the_wall_clock_tests_come_first_longest_file_first() -> None:
    lmtp, crash = (TESTS / path for path in ("daemon/test_daemon_lmtp.py", "faults/test_crash.py"))
    scheduler = TESTS / "daemon/test_daemon_scheduler.py"
    plain = TESTS / "x/test_plain.py"
    items = [
        _FileItem(plain, "a"),
        _FileItem(lmtp, "b"),
        _FileItem(scheduler, "c"),
        _FileItem(scheduler, "d", {"wallclock"}),  # marked by hand
        _FileItem(crash, "e"),
        _FileItem(lmtp, "f"),
        _FileItem(crash, "g"),
        _FileItem(plain, "h"),
    ]
    pytest_collection_modifyitems(cast(list[pytest.Item], items))
    assert [item.name for item in items] == ["e", "g", "d", "b", "f", "a", "c", "h"]
    assert all("wallclock" in item.markers for item in items[:5])
