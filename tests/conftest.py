"""Root fixtures: the shared database fixtures of `tests/narrator/fixtures.py` and the browser of
`tests/support/browser.py` for every suite;
which tests are slow (`make test-fast` leaves them out), which need PostgreSQL, which are bounded
by the wall clock (`make test` runs them after the rest, by themselves); and, in a parallel run,
the order that starts the longest tests first on every worker."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["tests.narrator.fixtures", "tests.support.browser"]

TESTS = Path(__file__).resolve().parent

#: Folders whose every test is slow: real daemons and mail servers, waiting on the wall clock.
SLOW_FOLDERS = (TESTS / "daemon", TESTS / "faults")
#: Fixtures that make a test slow: a whole check of the shipped packs.
SLOW_FIXTURES = frozenset({"shipped_check"})
#: Fixtures that need a PostgreSQL server: a test using one is marked `postgres` (as the
#: PostgreSQL run of a test of both databases is), so `make test-fast` (SQLite) leaves it out.
POSTGRES_FIXTURES = frozenset({"postgres_url", "postgres_db_url"})
#: Test modules whose every test is bounded by seconds of the wall clock (a daemon that must act
#: within 2 s, timeouts and leases of seconds, crash storms killing at moments of the wall
#: clock): beside a busy parallel worker those seconds are not theirs, so `make test` runs them
#: by themselves, after the rest (scripts/test.sh: two at a time, a file's on one worker).  A
#: test elsewhere that is bounded so is marked `wallclock` by hand (the scheduler's tests on the
#: real clock).  The whole-game tests are not: their deadlines come when the test moves the
#: daemon's clock (tests/support/clock.py).  (The parser's fuzz bounds the parsing thread's CPU
#: time instead: it runs in parallel.)
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

#: The files of the wall-clock run (`WALL_CLOCK` and the tests marked by hand) and about how many
#: seconds their wall-clock tests take one after another on a busy 2-CPU machine, longest first:
#: the collection puts their tests first in this order, and `make test`'s wall-clock run hands
#: the files out in it (``--no-loadscope-reorder``; pytest-xdist would hand out first the files
#: with the most tests, and the crash storms, the longest file with two tests, came last, to one
#: worker, while the other had nothing left to do).  pytest-xdist gives a worker a second file
#: at once when its first has two tests or fewer left: the crash storms share their worker with
#: the third file, the other worker takes the second and then what is left, file by file.
WALL_CLOCK_ORDER = (
    ("faults/test_crash.py", 150),
    ("faults/test_server_faults.py", 95),
    ("daemon/test_daemon_scheduler.py", 35),
    ("daemon/test_daemon_admin_commands.py", 30),
    ("faults/test_lease_reclaim.py", 25),
    ("daemon/test_daemon_outbound.py", 10),
    ("web/test_web_server.py", 7),
    ("daemon/test_daemon_outage_log.py", 6),
    ("daemon/test_daemon_worker.py", 6),
    ("daemon/test_daemon_lmtp.py", 4),
    ("daemon/test_change_watcher.py", 2),
    ("daemon/test_daemon_stories.py", 2),
)


def _wall_clock_rank(item: pytest.Item) -> int:
    """The place of `item`'s file in `WALL_CLOCK_ORDER` if it is marked wallclock (a file not
    listed: after those listed), else after them all."""
    if item.get_closest_marker("wallclock") is None:
        return len(WALL_CLOCK_ORDER) + 1
    return next(
        (n for n, (path, _) in enumerate(WALL_CLOCK_ORDER) if item.path == TESTS / path),
        len(WALL_CLOCK_ORDER),
    )


#: The longest tests of the parallel run (node ids under tests/, or their beginnings; the first
#: that fits counts) and about how many seconds each takes on a busy 2-CPU machine.  A parallel
#: run starts them first, spread over the workers (see `longest_first`): one of them started
#: late kept its worker busy minutes after the other had finished.  Only tests whose fixtures
#: are their own (or shared through a file, as `shipped_check`) are listed: moving a test away
#: from its module's would build a module fixture twice.
LONG_TESTS = (
    # The first of the two pipeline fuzz runs also draws their mails (9 s of CPU, 50 s on a
    # busy machine): the other comes after a long test of its worker, once they are drawn.
    ("security/test_security_fuzz.py::test_fuzz_the_pipeline[postgresql]", 166),
    ("security/test_security_fuzz.py::test_fuzz_the_pipeline[sqlite]", 60),
    ("stories/test_stories_cli.py::test_check_of_the_shipped_packs_passes", 70),
    ("rules/test_properties.py::test_random_games_end_legally_and_keep_the_invariants", 40),
    ("web/test_public_secrets.py::test_no_public_page_of_a_whole_game_holds_a_secret[postgres", 10),
    ("parsing/test_fuzz.py::test_many_random_corpus_splices", 34),
    ("parsing/test_fuzz.py::test_mutated_corpus_mail", 31),
    ("parsing/test_fuzz.py::test_structured_malformed_mail", 17),
    ("rules/test_choices.py::test_shared_choices", 32),
    ("narrator/test_migrations.py::test_two_daemons_migrating", 28),
    ("service/test_vampiri_mails_read.py::test_italian_mails_agree_with_the_player", 20),
    ("rules/test_vampiri_properties.py::test_random_games_end_legally_and_replay", 26),
    ("rules/test_properties.py::test_seed_and_votes_replay_to_the_same_transcript", 22),
    ("rules/test_properties.py::test_big_villages_keep_the_invariants", 17),
    ("rules/test_properties.py::test_every_state_survives_dump_and_load", 14),
    ("security/test_security_privacy.py::test_no_private_event_reaches_anyone_but_its_aud", 6),
    ("security/test_security_privacy.py::test_the_dwaas_is_never_told", 12),
)


def _weight(item: pytest.Item) -> int:
    """`LONG_TESTS`'s seconds for `item`; 0 for the tests not listed."""
    node = item.nodeid.removeprefix("tests/")
    return next((seconds for start, seconds in LONG_TESTS if node.startswith(start)), 0)


def longest_first(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """`items` ordered for `workers` workers of pytest-xdist's worksteal scheduling, which hands
    each worker one contiguous share of the collection (the first ``n // workers`` tests, then
    a share of the rest…) and lets an idle worker take the end of a busy one's queue: each
    share starts with its part of the long tests, dealt longest first to the share with the
    fewest seconds so far; the other tests keep their order (and their modules together)."""
    long = sorted((item for item in items if _weight(item)), key=_weight, reverse=True)
    if workers < 2 or not long:
        return items
    sizes, left = [], len(items)
    for index in range(workers):
        sizes.append(left // (workers - index))
        left -= sizes[-1]
    heads: list[list[pytest.Item]] = [[] for _ in range(workers)]
    seconds = [0] * workers
    for item in long:
        fits = [i for i in range(workers) if len(heads[i]) < sizes[i]]
        share = min(fits, key=lambda i: seconds[i])
        heads[share].append(item)
        seconds[share] += _weight(item)
    moved = {id(item) for item in long}
    rest = iter(item for item in items if id(item) not in moved)
    ordered: list[pytest.Item] = []
    for head, size in zip(heads, sizes, strict=True):
        ordered += head
        ordered += [next(rest) for _ in range(size - len(head))]
    return ordered


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark slow (besides the tests marked by hand) every test of `SLOW_FOLDERS` and every
    test that uses one of `SLOW_FIXTURES`; mark postgres every test that uses one of
    `POSTGRES_FIXTURES`; mark wallclock every test of `WALL_CLOCK`; put the wallclock tests
    first, their files in the order of `WALL_CLOCK_ORDER` (the others keep their order)."""
    for item in items:
        if item.path in WALL_CLOCK:
            item.add_marker(pytest.mark.wallclock)
        in_slow_folder = any(item.path.is_relative_to(folder) for folder in SLOW_FOLDERS)
        names = set(getattr(item, "fixturenames", ()))
        if in_slow_folder or names & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
        if names & POSTGRES_FIXTURES:
            item.add_marker(pytest.mark.postgres)
    items.sort(key=_wall_clock_rank)  # stable: a file's tests keep their order


class _LongestFirst:
    """Orders a pytest-xdist worker's tests by :func:`longest_first`, once `-m` and `-k` have
    left out what they leave out (every worker orders the same tests the same way)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items[:] = longest_first(items, self.workers)


def pytest_configure(config: pytest.Config) -> None:
    """In a pytest-xdist worker, order the tests longest first (see `longest_first`)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers > 1:
        config.pluginmanager.register(_LongestFirst(workers), "longest-first")
