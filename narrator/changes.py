"""Admin commands wake a running daemon: a change counter raised in their transaction, watched.

:func:`announce_change` is called by every CLI command that queues mail or changes what a
daemon acts on (``game start``, ``close-step``, ``pause``, ``resume``, ``extend``, ``stories
add``, ``inject``...), inside the command's own transaction: it raises the one-row ``changes``
counter, and on PostgreSQL also sends ``NOTIFY narrator_changes`` (delivered at commit, never
for a rolled-back transaction).

:class:`ChangeWatcher` is the daemon's side.  It runs one thread with a connection of its own
and calls ``on_change`` in the event loop soon after such a commit:

- PostgreSQL: the thread ``LISTEN``\\ s and is woken by the notification itself (milliseconds,
  and free while idle).  When its connection breaks it reconnects with backoff and reports a
  change once it listens again, since a notification sent meanwhile was lost.
- SQLite: the thread reads the counter every ``interval`` seconds (1 s): a primary-key lookup
  in autocommit mode that takes no write lock, whatever the number of games.  SQLite tells
  no other process of a commit, so this is a poll; it runs the statement on the driver's
  connection itself (:func:`counter_query`): once a second every cache is cold, and a read
  through SQLAlchemy's execution then took ~0.5 ms of CPU, the bare statement ~0.08 ms
  (``benchmarks/wakeup.py`` measures both, and the idle daemon).

Missing a change is never fatal: the daemon's slower polls (the scheduler's, the sender's) are
still there; the watcher only makes the daemon prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, Select, create_engine, func, insert, select, update
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool, PoolProxiedConnection

from narrator.models import ChangeCounter
from narrator.outages import first_line

log = logging.getLogger("narrator.changes")

#: The PostgreSQL notification channel of :func:`announce_change`.
CHANNEL = "narrator_changes"
#: The id of the counter's one row.
COUNTER_ID = 1
#: Seconds between two reads of the counter on SQLite (and the longest a stop waits).
DEFAULT_INTERVAL = 1.0
#: The longest wait between two attempts to reconnect a broken watcher.
MAX_BACKOFF = 30.0


def announce_change(session: Session) -> None:
    """Tell running daemons, once ``session``'s transaction commits, that an admin changed
    something: raise the change counter (and NOTIFY on PostgreSQL). No commit here."""
    result = session.execute(
        update(ChangeCounter)
        .where(ChangeCounter.id == COUNTER_ID)
        .values(counter=ChangeCounter.counter + 1)
    )
    if result.rowcount == 0:  # type: ignore[attr-defined]  # the row was deleted by hand
        session.execute(insert(ChangeCounter).values(id=COUNTER_ID, counter=1))
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_notify(CHANNEL, "")))


def counter_select() -> Select[int]:
    """The statement that reads the change counter."""
    return select(ChangeCounter.counter).where(ChangeCounter.id == COUNTER_ID)


def read_counter(connection: Connection) -> int:
    """The change counter as ``connection`` sees it now (0 when its row is missing)."""
    return int(connection.scalar(counter_select()) or 0)


def counter_query(engine: Engine) -> str:
    """:func:`counter_select` as the SQL text of `engine`'s dialect (no parameters): what the
    SQLite watcher runs on the driver's connection."""
    compiled = counter_select().compile(engine, compile_kwargs={"literal_binds": True})
    return str(compiled)


def read_counter_raw(cursor: Any, query: str) -> int:
    """The change counter read with `query` (:func:`counter_query`) on a DB-API `cursor`."""
    cursor.execute(query)
    rows = cursor.fetchall()  # to the statement's end: no read lock is left between reads
    return int(rows[0][0] or 0) if rows else 0


class ChangeWatcher:
    """Calls ``on_change`` (in the event loop that called :meth:`start`) after every commit of
    :func:`announce_change`; several commits close together may make one call."""

    def __init__(
        self,
        url: str | URL,
        on_change: Callable[[], None],
        *,
        interval: float = DEFAULT_INTERVAL,
    ) -> None:
        self._url = make_url(url)
        self._on_change = on_change
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listening = threading.Event()
        self._failures = 0  # PostgreSQL: connections lost in a row
        self.changes_seen = 0

    @property
    def is_postgresql(self) -> bool:
        """Whether the watcher listens for notifications (else it polls the counter)."""
        return self._url.get_backend_name() == "postgresql"

    def start(self) -> None:
        """Start the watching thread (call from the daemon's event loop)."""
        if self._thread is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._stop.clear()
        target = self._listen if self.is_postgresql else self._poll
        self._thread = threading.Thread(target=target, name="narrator.changes", daemon=True)
        self._thread.start()

    async def wait_ready(self, timeout: float = 10.0) -> bool:
        """Wait until the watcher sees changes (it listens, or has read the counter once)."""
        return await asyncio.to_thread(self._listening.wait, timeout)

    async def stop(self) -> None:
        """Stop the thread (within about ``interval`` seconds) and close its connection."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        await asyncio.to_thread(thread.join)

    def _changed(self) -> None:
        self.changes_seen += 1
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the daemon is gone
            loop.call_soon_threadsafe(self._on_change)

    def _engine(self, **options: Any) -> Engine:
        return create_engine(self._url, poolclass=NullPool, **options)

    def _failed(self, error: BaseException, failures: int) -> float:
        delay = min(MAX_BACKOFF, self._interval * 2.0 ** min(failures, 6))
        log.error(
            "watching for admin changes failed (%d in a row): %s; retrying in %gs "
            "(meanwhile admin commands take effect at the daemon's next poll)",
            failures,
            first_line(error),
            delay,
        )
        return delay

    # --- SQLite: read the counter every interval -------------------------------------------

    def _poll(self) -> None:
        engine = self._engine(connect_args={"timeout": 5})
        query = counter_query(engine)
        seen: int | None = None
        failures = 0
        raw: PoolProxiedConnection | None = None
        cursor: Any = None
        try:
            while not self._stop.is_set():
                try:
                    if raw is None:
                        raw = engine.raw_connection()
                        connection = raw.driver_connection
                        assert connection is not None
                        connection.isolation_level = None  # autocommit: each read its own
                        cursor = connection.cursor()
                    counter = read_counter_raw(cursor, query)
                except Exception as error:
                    if raw is not None:
                        raw.invalidate()
                        raw.close()
                        raw = None
                    failures += 1
                    self._stop.wait(self._failed(error, failures))
                    continue
                failures = 0
                if seen is not None and counter != seen:
                    self._changed()
                seen = counter
                self._listening.set()
                self._stop.wait(self._interval)
        finally:
            if raw is not None:
                raw.close()
            engine.dispose()

    # --- PostgreSQL: LISTEN ----------------------------------------------------------------

    def _listen(self) -> None:
        engine = self._engine()
        self._failures = 0
        try:
            while not self._stop.is_set():
                try:
                    self._listen_once(engine, reconnected=self._failures > 0)
                except Exception as error:
                    self._failures += 1
                    self._stop.wait(self._failed(error, self._failures))
        finally:
            engine.dispose()

    def _listen_once(self, engine: Engine, *, reconnected: bool) -> None:
        """LISTEN on a fresh connection until stopped; raises when the connection breaks."""
        raw = engine.raw_connection()
        broken = True
        try:
            connection = raw.driver_connection
            assert connection is not None
            connection.autocommit = True
            connection.execute(f"LISTEN {CHANNEL}")
            self._listening.set()
            self._failures = 0
            if reconnected:
                log.info("watching for admin changes again")
                self._changed()  # what was announced while we did not listen
            while not self._stop.is_set():
                for _notification in connection.notifies(timeout=self._interval, stop_after=1):
                    self._changed()
            broken = False
        finally:
            if broken:  # closed without the pool's rollback, which would fail and log
                raw.invalidate()
            raw.close()
