"""A clock for the daemon's tests that the test moves forward: deadlines come when it says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class MovableClock:
    """The wall clock in UTC plus an offset that only grows: call it for the time.

    Time still flows (the outbox's retries and leases, measured by the clock, come due as on the
    wall clock), and :meth:`move_to` jumps it forward, to a deadline that would otherwise be
    minutes or hours away; the daemon's scheduler runs at its next re-reading what is due.
    """

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def move_to(self, moment: datetime) -> None:
        """Move the clock forward so that it reads ``moment`` now (never backward)."""
        self.offset = max(self.offset, moment - datetime.now(UTC))
