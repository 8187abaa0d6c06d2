"""Outbox claims of a dead sender are taken back at once, not when their lease runs out.

Every daemon draws an *owner id* when it starts and records it with each outbox row it claims
(``outbox.claimed_by``).  Whether that owner still lives is told differently per backend:

- SQLite: one daemon per database file, so a daemon that starts knows every recorded claim is
  a dead predecessor's and takes them all back (:meth:`SqlOutbox.reclaim_all`).
- PostgreSQL: a daemon holds the session-level advisory lock ``(LOCK_SPACE, owner id)`` on a
  connection of its own (:class:`OwnerLock`) for as long as it runs.  The server drops the lock
  the moment that connection ends (process killed, host gone once TCP keepalives notice), so
  :class:`LeaseKeeper` in every daemon takes back, every second, the claims whose owner's lock
  is no longer held (:meth:`SqlOutbox.reclaim_orphaned`).

Taking a claim back can send a mail twice only when its sender had handed it to the server but
died before recording that (or lost its lock connection while still sending): the same bytes
with the same Message-ID, which mail programs fold.  The lease itself stays as the last resort.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

from narrator.outages import log_failure
from narrator.outbound.outbox import SqlOutbox

log = logging.getLogger("narrator.outbound.leases")

#: The first key of the owners' advisory locks (an int4: "NR").
LOCK_SPACE = 0x4E52
#: Seconds between two looks for the claims of dead owners (PostgreSQL).
DEFAULT_INTERVAL = 1.0
#: Seconds :meth:`OwnerLock.release` waits for a check in progress.
RELEASE_WAIT = 5.0

Clock = Callable[[], datetime]


def new_owner_id() -> int:
    """A random owner id: positive and below 2**31 (the second key of an advisory lock).

    Drawn from the system's entropy, not from the daemon's seeded generator: two daemons
    started with one seed must not share an id.
    """
    return secrets.randbelow(2**31 - 1) + 1


class OwnerLock:
    """The advisory lock ``(LOCK_SPACE, owner)`` held on a PostgreSQL connection of its own.

    Blocking methods (run them in a thread).  :meth:`acquire` draws owner ids until it gets a
    lock nobody holds; :meth:`check` re-takes the same lock on a new connection when the old
    one was lost (the server restarted, say), never once :meth:`release` gave it up: a stopping
    daemon's keeper, whose check may still run in its thread, must not take it again.
    :meth:`check` and :meth:`release` take turns (one may be called while the other runs).
    """

    def __init__(self, url: str | URL) -> None:
        self._engine: Engine = create_engine(make_url(url), poolclass=NullPool)
        self._connection: Connection | None = None
        self._turn = threading.Lock()
        self._released = False
        self.owner = 0

    def acquire(self) -> int:
        """Take a lock of a fresh owner id; return the id."""
        for _ in range(100):
            owner = new_owner_id()
            if self._take(owner):
                self.owner = owner
                return owner
        raise RuntimeError("no free owner id for the outbox (100 tries)")

    def check(self) -> bool:
        """Whether the lock is still held; if its connection was lost, take it again on a new
        one and return False (claims may have been taken back meanwhile).  False, and nothing
        taken, once released."""
        with self._turn:
            if self._released:
                return False
            return self._check()

    def _check(self) -> bool:
        connection = self._connection
        if connection is not None:
            try:
                connection.execute(text("SELECT 1"))
                connection.commit()
                return True
            except Exception as error:
                what = f"the outbox owner lock {self.owner} was lost"
                log_failure(log, error, what, "taking it again")
                self._close(broken=True)
        if not self._take(self.owner):  # raises while the server cannot be reached
            raise RuntimeError(f"outbox owner id {self.owner} is held by another process")
        return False

    def release(self) -> None:
        """Give the lock up (by closing its connection) and dispose of the engine; a check
        running meanwhile is waited for, :data:`RELEASE_WAIT` seconds at most (a check hung on
        an unreachable server does not hold the daemon's stop)."""
        self._released = True  # a check starting from now takes nothing
        waited = self._turn.acquire(timeout=RELEASE_WAIT)
        try:
            self._close()
            self._engine.dispose()
        finally:
            if waited:
                self._turn.release()

    def _take(self, owner: int) -> bool:
        self._close()
        connection = self._engine.connect()
        try:
            taken = connection.scalar(
                text("SELECT pg_try_advisory_lock(:space, :owner)"),
                {"space": LOCK_SPACE, "owner": owner},
            )
            connection.commit()  # the lock is session-level: it outlives the transaction
        except BaseException:
            connection.invalidate()
            connection.close()
            raise
        if not taken:
            connection.close()
            return False
        self._connection = connection
        return True

    def _close(self, *, broken: bool = False) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if broken:  # no rollback on the way out: there is nobody to talk to
            connection.invalidate()
        connection.close()


class LeaseKeeper:
    """PostgreSQL: keeps this daemon's owner lock and takes back dead owners' claims.

    ``on_reclaimed`` is called (in the event loop) when claims were taken back: the daemon
    wakes its sender.
    """

    def __init__(
        self,
        lock: OwnerLock,
        outbox: SqlOutbox,
        clock: Clock,
        on_reclaimed: Callable[[], None],
        *,
        interval: float = DEFAULT_INTERVAL,
    ) -> None:
        self._lock = lock
        self._outbox = outbox
        self._clock = clock
        self._on_reclaimed = on_reclaimed
        self._interval = interval
        self._failures = 0

    async def reclaim_once(self) -> int:
        """Check the own lock, then take back the dead owners' claims; return how many."""
        await asyncio.to_thread(self._lock.check)
        count = await asyncio.to_thread(self._outbox.reclaim_orphaned, self._clock(), LOCK_SPACE)
        if count:
            log.warning(
                "took back %d outbox claim(s) of a sender that is gone; sending them now", count
            )
            self._on_reclaimed()
        return count

    async def run(self) -> None:
        """Reclaim every ``interval`` seconds until cancelled; never raises for a failed round."""
        while True:
            try:
                await self.reclaim_once()
            except Exception as error:
                self._failures += 1
                what = f"taking back dead senders' outbox claims failed ({self._failures} in a row)"
                log_failure(log, error, what, "the next round retries")
            else:
                self._failures = 0
            await asyncio.sleep(self._interval)
