"""`narrator serve` with test timings: ``python -m tests.faults.serve_fast serve --config FILE``.

The real command line (:func:`narrator.cli.main`, logging set-up, signal handling) with the
daemon's polls shortened so that fault tests finish in seconds: the scheduler's and the inbox
worker's polls, the outbox sender's idle poll and the IMAP poller's interval and backoff; and,
when the environment variable :data:`BUSY_ENV` asks for it, SQLite's busy timeout (10 s).
`narrator serve` has no option for these, hence this wrapper. The outbox's lease, retry backoff
and SMTP timeout are configuration keys: ``tests.faults.harness.write_config`` shortens them.
"""

from __future__ import annotations

import functools
import os
import sys

import narrator.daemon as daemon
import narrator.db

#: The environment variable of a shorter SQLite busy timeout, in milliseconds.
BUSY_ENV = "NARRATOR_TEST_SQLITE_BUSY_MS"

OPTIONS = daemon.DaemonOptions(
    inbox_interval=1.0,
    scheduler_poll=0.5,
    outbox_poll=1.0,
    imap={"poll_interval": 0.5, "backoff_initial": 0.1, "backoff_max": 1.0},
)


def main(argv: list[str]) -> int:
    """Patch the timings into the daemon and run the narrator command line."""
    # `narrator serve` imports the daemon's serve when it runs: it finds this one.
    daemon.serve = functools.partial(daemon.serve, options=OPTIONS)  # type: ignore[assignment]
    if BUSY_ENV in os.environ:  # read by every engine made after this
        narrator.db.SQLITE_BUSY_TIMEOUT_MS = int(os.environ[BUSY_ENV])
    from narrator.cli import main as narrator_main

    return narrator_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
