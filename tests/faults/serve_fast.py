"""`narrator serve` with test timings: ``python -m tests.faults.serve_fast serve --config FILE``.

The real command line (:func:`narrator.cli.main`, logging set-up, signal handling) with the
daemon's timings shortened so that fault tests finish in seconds: the outbox lease (how long a
claimed mail waits after a crash before it is tried again; 10 minutes in production), the retry
backoff, the scheduler's and the inbox worker's polls, and the SMTP submission timeout.
`narrator serve` has no option for these (see the report of issue 6), hence this wrapper.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from datetime import timedelta

import narrator.commands.serve as serve_command
import narrator.daemon as daemon
from narrator.config import OutboundSection
from narrator.outbound.sender import OutboxSender, RetryPolicy
from narrator.outbound.transport import (
    MaildirTransport,
    SmtpSettings,
    SmtpTransport,
    transport_from_config,
)

#: Seconds a claimed outbox row stays claimed (a crash mid-send delays the mail this long).
LEASE = float(os.environ.get("NARRATOR_TEST_OUTBOX_LEASE", "3"))
#: The SMTP submission timeout (30 s in production).
SMTP_TIMEOUT = float(os.environ.get("NARRATOR_TEST_SMTP_TIMEOUT", "2"))

OPTIONS = daemon.DaemonOptions(
    inbox_interval=1.0,
    scheduler_poll=0.5,
    outbox_poll=1.0,
    imap={"poll_interval": 0.5, "backoff_initial": 0.1, "backoff_max": 1.0},
)
POLICY = RetryPolicy(
    first_delay=timedelta(seconds=0.2), max_delay=timedelta(seconds=1), max_attempts=1000
)


def fast_transport(outbound: OutboundSection) -> SmtpTransport | MaildirTransport:
    """The configured transport, with a short SMTP timeout."""
    if outbound.mode != "smtp":
        return transport_from_config(outbound)
    settings = SmtpSettings.from_section(outbound.smtp)
    return SmtpTransport(dataclasses.replace(settings, timeout=SMTP_TIMEOUT))


def main(argv: list[str]) -> int:
    """Patch the timings into the daemon and run the narrator command line."""
    daemon.OutboxSender = functools.partial(  # type: ignore[misc]
        OutboxSender, lease=timedelta(seconds=LEASE), policy=POLICY
    )
    daemon.transport_from_config = fast_transport  # type: ignore[assignment]
    serve_command.serve = functools.partial(daemon.serve, options=OPTIONS)  # type: ignore[assignment]
    from narrator.cli import main as narrator_main

    return narrator_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
