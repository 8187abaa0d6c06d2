"""Root fixtures: the shared database fixtures of `tests/narrator/fixtures.py` for every suite;
and which tests are slow (`make test-fast` leaves them out)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.narrator.fixtures"]

TESTS = Path(__file__).resolve().parent

#: Folders whose every test is slow: real daemons and mail servers, waiting on the wall clock.
SLOW_FOLDERS = (TESTS / "daemon", TESTS / "faults")
#: Fixtures that make a test slow: a whole check of the shipped packs.
SLOW_FIXTURES = frozenset({"shipped_check"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark slow (besides the tests marked by hand) every test of `SLOW_FOLDERS` and every
    test that uses one of `SLOW_FIXTURES`."""
    for item in items:
        in_slow_folder = any(item.path.is_relative_to(folder) for folder in SLOW_FOLDERS)
        names = set(getattr(item, "fixturenames", ()))
        if in_slow_folder or names & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
