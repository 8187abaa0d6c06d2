"""Root fixtures: the shared database fixtures of `tests/narrator/fixtures.py` for every suite;
which tests are slow (`make test-fast` leaves them out), and which wait on the wall clock
(`make test` runs them after the rest, one at a time)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.narrator.fixtures"]

TESTS = Path(__file__).resolve().parent

#: Folders whose every test is slow: real daemons and mail servers, waiting on the wall clock.
SLOW_FOLDERS = (TESTS / "daemon", TESTS / "faults")
#: Fixtures that make a test slow: a whole check of the shipped packs.
SLOW_FIXTURES = frozenset({"shipped_check"})
#: Tests whose bounds are seconds of the wall clock (daemons that must act within a deadline,
#: crash storms): beside a busy parallel worker those seconds are not theirs, so `make test`
#: runs them alone, after the rest (scripts/test.sh).  (The parser's fuzz bounds the parsing
#: thread's CPU time instead: it runs in parallel.)
WALL_CLOCK = (TESTS / "daemon", TESTS / "faults")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark slow (besides the tests marked by hand) every test of `SLOW_FOLDERS` and every
    test that uses one of `SLOW_FIXTURES`; mark wallclock every test of `WALL_CLOCK`."""
    for item in items:
        if any(item.path.is_relative_to(place) for place in WALL_CLOCK):
            item.add_marker(pytest.mark.wallclock)
        in_slow_folder = any(item.path.is_relative_to(folder) for folder in SLOW_FOLDERS)
        names = set(getattr(item, "fixturenames", ()))
        if in_slow_folder or names & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
