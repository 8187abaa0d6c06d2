"""Root fixtures: the shared database fixtures of `tests/narrator/fixtures.py` for every suite;
which tests are slow (`make test-fast` leaves them out), and which are bounded by the wall clock
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
#: Test modules whose every test is bounded by seconds of the wall clock (a daemon that must act
#: within 2 s, timeouts and leases of seconds, crash storms killing at moments of the wall
#: clock): beside a busy parallel worker those seconds are not theirs, so `make test` runs them
#: alone, after the rest (scripts/test.sh).  A test elsewhere that is bounded so is marked
#: `wallclock` by hand (the scheduler's tests on the real clock).  The whole-game tests are not:
#: their deadlines come when the test moves the daemon's clock (tests/support/clock.py).  (The
#: parser's fuzz bounds the parsing thread's CPU time instead: it runs in parallel.)
WALL_CLOCK = tuple(
    TESTS / path
    for path in (
        "daemon/test_daemon_admin_commands.py",
        "daemon/test_daemon_lmtp.py",
        "daemon/test_daemon_outage_log.py",
        "daemon/test_daemon_outbound.py",
        "faults/test_crash.py",
        "faults/test_lease_reclaim.py",
        "faults/test_server_faults.py",
    )
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark slow (besides the tests marked by hand) every test of `SLOW_FOLDERS` and every
    test that uses one of `SLOW_FIXTURES`; mark wallclock every test of `WALL_CLOCK`."""
    for item in items:
        if item.path in WALL_CLOCK:
            item.add_marker(pytest.mark.wallclock)
        in_slow_folder = any(item.path.is_relative_to(folder) for folder in SLOW_FOLDERS)
        names = set(getattr(item, "fixturenames", ()))
        if in_slow_folder or names & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
