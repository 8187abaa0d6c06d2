"""Database plumbing: engines (SQLite, PostgreSQL), sessions, transactions, Alembic migrations.

Alembic is imported only to migrate (`upgrade`, `downgrade`): it loads Mako and Pygments, more
than half a second of start-up.  Whether a database is at the newest revision (every CLI command
asks) is read without it: `current_revision` reads Alembic's version table and `head_revision`
the revision ids written in the migration files.  The ORM is imported only for a session
(`session_factory`): a command that reads with SQLAlchemy Core does without it.
"""

from __future__ import annotations

import ast
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.dialects import registry
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig
    from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 10_000

#: The driver name of the narrator's SQLite dialect (pysqlite beginning its transactions
#: with ``BEGIN IMMEDIATE``), registered here, imported when a SQLite database is opened.
NARRATOR_SQLITE = "sqlite+narrator"
registry.register("sqlite.narrator", "narrator.sqlite_dialect", "NarratorSQLiteDialect")

# The `migrations` package is installed next to `narrator` (from a checkout and from a wheel).
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
#: Alembic's table of the applied revision (its default name; migrations/env.py keeps it).
VERSION_TABLE = "alembic_version"


def is_sqlite(url: str | URL) -> bool:
    """Return True when `url` names a SQLite database."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str | URL, *, echo: bool = False) -> Engine:
    """Return an engine for `url` with the narrator's connection settings.

    SQLite: WAL journal, foreign keys enforced, a busy timeout, and every transaction opened
    with ``BEGIN IMMEDIATE`` (a read-modify-write transaction takes the write lock up front, so
    concurrent writers wait for each other instead of failing with "database is locked").
    PostgreSQL (and others): connections are pinged before use, so a restarted server is survived.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, echo=echo, pool_pre_ping=True)
    if parsed.get_driver_name() not in ("pysqlite", "narrator"):  # (narrator: an engine's URL)
        raise ValueError(f"SQLite through {parsed.get_driver_name()}: only pysqlite is supported")
    # The BEGIN is the dialect's (narrator.sqlite_dialect: no engine event, which would cost
    # every statement its events); the connection's settings and the end of a turn are the
    # pool's events, which cost a statement nothing.
    from narrator.sqlite_dialect import NarratorSQLiteDialect  # loaded by create_engine

    engine = create_engine(parsed.set(drivername=NARRATOR_SQLITE), echo=echo)
    assert isinstance(engine.dialect, NarratorSQLiteDialect)
    event.listen(engine, "connect", _configure_sqlite_connection)
    event.listen(engine, "checkin", engine.dialect.turns.end)
    return engine


def _configure_sqlite_connection(dbapi_connection: Any, _record: Any) -> None:
    # Take transaction control away from the sqlite3 module; `WriteTurns` emits the BEGIN.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


class PooledConnection(Protocol):
    """What :class:`WriteTurns` uses of a connection the pool handed out (SQLAlchemy's
    ``PoolProxiedConnection``): its record's info and its driver connection."""

    @property
    def info(self) -> dict[Any, Any]: ...

    @property
    def driver_connection(self) -> Any: ...


class WriteTurns:
    """First come, first served turns at a SQLite database's write lock among one engine's threads.

    SQLite itself makes a writer that finds the lock taken sleep and retry (1, 2, 5 ... 100 ms),
    so a thread that writes again and again (the inbox worker) keeps the lock nearly always and
    the others (the receivers committing new mail) starve.  Here a thread waits for its turn in
    order and is woken the moment the previous one is done.  A turn is taken before ``BEGIN
    IMMEDIATE`` and given up when the connection goes back to the pool (after its commit or
    rollback).  Other processes still meet SQLite's own waiting; a thread that waited
    `timeout` seconds for its turn goes on without it.  The time spent waiting for the turn
    counts against SQLite's busy timeout, so a writer never waits for the lock much longer
    than `timeout` in all (the receivers answer 451 after about that long, not twice it).  A
    writer that had waited before it asked (a mail queued behind other work: see
    :meth:`count_wait_from`) has that wait counted too.
    """

    _HELD = "narrator.write_turn"
    _SINCE = "narrator.waiting_since"

    def __init__(self, timeout: float) -> None:
        self._timeout = timeout
        self._mutex = threading.Lock()
        self._busy = False
        self._waiting: deque[threading.Lock] = deque()

    def begin_immediate(self, connection: PooledConnection) -> None:
        """Wait for the turn, then ``BEGIN IMMEDIATE`` on `connection` (the pool's proxy of
        a sqlite3 connection: its record's info holds the turn); the dialect's ``do_begin``
        (:mod:`narrator.sqlite_dialect`).  A driver error is raised as it is (SQLAlchemy,
        which called ``do_begin``, raises it as its own: ``OperationalError`` for "database
        is locked")."""
        info = connection.info
        driver = connection.driver_connection
        started = info.pop(self._SINCE, None)
        if started is None:
            started = time.monotonic()
        if not info.get(self._HELD):
            info[self._HELD] = self._acquire(self._timeout - (time.monotonic() - started))
        waited = time.monotonic() - started
        shortened = waited > 0.001
        try:
            if shortened:
                left_ms = max(0, int((self._timeout - waited) * 1000))
                _driver_execute(driver, f"PRAGMA busy_timeout = {left_ms}")
            _driver_execute(driver, "BEGIN IMMEDIATE")
        except BaseException:
            if info.pop(self._HELD, False):
                self._release()
            raise
        finally:
            if shortened:
                _driver_execute(driver, f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")

    def count_wait_from(self, connection: PooledConnection, since: float) -> None:
        """Have the next BEGIN on `connection` count its writer's wait from `since` (a
        ``time.monotonic()`` reading) instead of from the BEGIN: its wait for the turn and for
        the lock then end at `since` plus the busy timeout."""
        connection.info[self._SINCE] = since

    def end(self, _dbapi_connection: Any, record: Any) -> None:
        """The pool's ``checkin`` listener: the connection's turn, if it has one, is over."""
        if record is not None and record.info.pop(self._HELD, False):
            self._release()

    def _acquire(self, timeout: float) -> bool:
        with self._mutex:
            if not self._busy:
                self._busy = True
                return True
            turn = threading.Lock()
            turn.acquire()
            self._waiting.append(turn)
        if turn.acquire(timeout=max(0.0, timeout)):
            return True
        with self._mutex:
            if turn in self._waiting:  # no turn came: go on without one
                self._waiting.remove(turn)
                return False
        return True  # the turn was handed over just as the wait ended

    def _release(self) -> None:
        with self._mutex:
            if self._waiting:
                self._waiting.popleft().release()  # handed over: still busy
            else:
                self._busy = False


def _driver_execute(driver: Any, statement: str) -> None:
    """Run `statement` (a transaction's BEGIN, a pragma) on the sqlite3 connection `driver`.

    As SQLAlchemy sends a transaction's COMMIT and ROLLBACK (``dbapi_connection.commit()``),
    not as a statement of its own: through ``exec_driver_sql`` the BEGIN cost every
    transaction a statement's execution context, result and events (about 15 of 29 µs).
    """
    driver.execute(statement).close()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Return the session factory for `engine` (objects stay readable after commit)."""
    from sqlalchemy.orm import sessionmaker  # here: a command that reads with Core needs no ORM

    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """Yield a session inside one transaction: committed on success, rolled back on any error."""
    with factory() as session, session.begin():
        yield session


@contextmanager
def core_transaction(
    factory: sessionmaker[Session], *, waiting_since: float | None = None
) -> Iterator[Connection]:
    """Yield a connection of `factory`'s engine inside one transaction, as :func:`transaction`
    but with no ORM session: for a transaction that runs Core statements only, done for every
    mail (an ORM session costs more than such a transaction's statements).

    `waiting_since` (a ``time.monotonic()`` reading): when its caller began to wait, if before
    this call (a received mail queued behind other work); on SQLite that wait counts against
    the busy timeout (:meth:`WriteTurns.count_wait_from`), so the mail's receiver answers
    within about the timeout of the mail's arrival."""
    engine: Engine = factory.kw["bind"]
    turns = getattr(engine.dialect, "turns", None)
    if waiting_since is None or not isinstance(turns, WriteTurns):
        with engine.begin() as connection:
            yield connection
        return
    with engine.connect() as connection:
        turns.count_wait_from(connection.connection, waiting_since)
        with connection.begin():
            yield connection


@contextmanager
def driver_transaction(
    engine: Engine, *, waiting_since: float | None = None
) -> Iterator[sqlite3.Connection]:
    """Yield the sqlite3 connection itself of a connection of `engine`'s pool (a SQLite
    engine of :func:`make_engine`) inside one transaction, committed when the block ends and
    rolled back when it raises: for a transaction of one statement on every mail's path, where
    SQLAlchemy's connection, transaction and execution context cost twice the driver's whole
    transaction after an idle spell (docs/dev/a-vote-from-smtp-to-receipt.md, session 20).

    The write turn and the busy timeout are the engine's :class:`WriteTurns`, `waiting_since`
    counted as for :func:`core_transaction`; a driver error is raised as SQLAlchemy raises one
    (``(sqlite3.OperationalError) database is locked`` is an
    :class:`~sqlalchemy.exc.OperationalError`), with no statement or parameters in it."""
    turns = getattr(engine.dialect, "turns", None)
    if not isinstance(turns, WriteTurns):
        raise ValueError(f"driver_transaction needs a SQLite engine of make_engine, not {engine}")
    try:
        pooled = engine.raw_connection()
    except sqlite3.Error as error:  # the file cannot be opened
        raise DBAPIError.instance(None, None, error, sqlite3.Error) from error
    try:
        driver = pooled.driver_connection
        assert isinstance(driver, sqlite3.Connection)  # make_engine's SQLite is pysqlite's
        if waiting_since is not None:
            turns.count_wait_from(pooled, waiting_since)
        try:
            turns.begin_immediate(pooled)
            try:
                yield driver
                driver.commit()
            except BaseException:
                driver.rollback()
                raise
        except sqlite3.Error as error:
            raise DBAPIError.instance(None, None, error, sqlite3.Error) from error
    finally:
        pooled.close()  # back to the pool: its turn ends (WriteTurns.end)


def alembic_config(url: str | URL) -> AlembicConfig:
    """Return an Alembic configuration for the packaged migrations, pointed at `url`.

    No alembic.ini is needed: the script location is the installed `migrations` package, and
    the URL is passed as an attribute (so passwords with ``%`` need no escaping).
    """
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["url"] = make_url(url)
    return config


def upgrade(url: str | URL, revision: str = "head") -> None:
    """Apply every migration up to `revision` (default: the newest) to the database at `url`."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | URL, revision: str) -> None:
    """Revert migrations down to `revision` (``"base"`` removes every table)."""
    from alembic import command

    command.downgrade(alembic_config(url), revision)


def head_revision() -> str:
    """Return the newest migration revision shipped with this version of the narrator.

    Read from the ``revision`` and ``down_revision`` each file of ``migrations/versions``
    assigns, as Alembic's script directory would find them after importing every file (a
    test compares the two); raises RuntimeError unless there is exactly one head."""
    revisions: dict[str, object] = {}
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        assigned = revision_ids(path)
        if "revision" in assigned:
            revisions[str(assigned["revision"])] = assigned.get("down_revision")
    below: set[str] = set()
    for down in revisions.values():
        if isinstance(down, str):
            below.add(down)
        elif isinstance(down, tuple | list):  # a merge revision
            below.update(str(name) for name in down)
    heads = sorted(set(revisions) - below)
    if not heads:
        raise RuntimeError("the migrations package has no revisions")
    if len(heads) > 1:
        raise RuntimeError(f"the migrations have several heads: {', '.join(heads)}")
    return heads[0]


#: A module-level assignment of a migration's ids, annotated or not, its value on the line
#: (``revision: str = "0009"``): how Alembic's template and every file here write them.
_REVISION_LINE = re.compile(
    r"^(?P<name>revision|down_revision)\s*(?::[^=\n]*)?=\s*(?P<value>.+?)\s*$", re.MULTILINE
)


def revision_ids(path: Path) -> dict[str, object]:
    """The ``revision`` and ``down_revision`` a migration file assigns at module level (the
    last assignment of each, as importing the file would leave it), read from the lines that
    assign them: parsing every file whole cost each command that opens the database (``game
    show``) 3% of its start."""
    assigned: dict[str, object] = {}
    for found in _REVISION_LINE.finditer(path.read_text(encoding="utf-8")):
        try:
            assigned[found["name"]] = ast.literal_eval(found["value"])
        except (ValueError, SyntaxError):  # not a literal on its line: not an id
            continue
    return assigned


def current_revision(url: str | URL) -> str | None:
    """Return the migration revision of the database at `url` (None when never migrated).

    Raises RuntimeError when the version table holds several (Alembic branches: never here)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table(VERSION_TABLE):
                return None
            rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    finally:
        engine.dispose()
    if len(rows) > 1:
        raise RuntimeError(f"the database is at several revisions: {sorted(r[0] for r in rows)}")
    return rows[0][0] if rows else None
