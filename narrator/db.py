"""Database plumbing: engines (SQLite, PostgreSQL), sessions, transactions, Alembic migrations."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 10_000

# The `migrations` package is installed next to `narrator` (from a checkout and from a wheel).
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


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
    engine = create_engine(parsed, echo=echo)
    event.listen(engine, "connect", _configure_sqlite_connection)
    event.listen(engine, "begin", _begin_immediate)
    return engine


def _configure_sqlite_connection(dbapi_connection: Any, _record: Any) -> None:
    # Take transaction control away from the sqlite3 module; `_begin_immediate` emits BEGIN.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def _begin_immediate(connection: Any) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Return the session factory for `engine` (objects stay readable after commit)."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """Yield a session inside one transaction: committed on success, rolled back on any error."""
    with factory() as session, session.begin():
        yield session


def alembic_config(url: str | URL) -> AlembicConfig:
    """Return an Alembic configuration for the packaged migrations, pointed at `url`.

    No alembic.ini is needed: the script location is the installed `migrations` package, and
    the URL is passed as an attribute (so passwords with ``%`` need no escaping).
    """
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["url"] = make_url(url)
    return config


def upgrade(url: str | URL, revision: str = "head") -> None:
    """Apply every migration up to `revision` (default: the newest) to the database at `url`."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | URL, revision: str) -> None:
    """Revert migrations down to `revision` (``"base"`` removes every table)."""
    command.downgrade(alembic_config(url), revision)


def head_revision() -> str:
    """Return the newest migration revision shipped with this version of the narrator."""
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    if head is None:
        raise RuntimeError("the migrations package has no revisions")
    return head


def current_revision(url: str | URL) -> str | None:
    """Return the migration revision of the database at `url` (None when never migrated)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
