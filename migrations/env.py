"""Alembic environment: migrates the database given as the `url` (or `connection`) attribute."""

from __future__ import annotations

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import URL, Connection

from narrator.db import make_engine
from narrator.models import Base, UtcDateTime

TARGET_METADATA = Base.metadata
# The PostgreSQL advisory lock that serialises migrations (any fixed 64-bit number; "narrator").
MIGRATION_LOCK = 0x6E61727261746F72


def _render_item(kind: str, obj: object, _context: object) -> str | bool:
    # Revisions must not import the models: write our UTC timestamp type as the plain type.
    if kind == "type" and isinstance(obj, UtcDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure_and_run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # SQLite alters a table by copying it and dropping the old one (render_as_batch); with
        # foreign keys enforced, that DROP first deletes its rows, and ON DELETE CASCADE every
        # row that refers to them: altering `games` would delete every player, vote and log
        # entry.  Off while migrating (set outside any transaction: SQLite ignores it inside
        # one), on again after, as every connection of the narrator has it.
        _sqlite_foreign_keys(connection, "OFF")
    try:
        _run(connection)
    finally:
        if sqlite:
            _sqlite_foreign_keys(connection, "ON")


def _sqlite_foreign_keys(connection: Connection, setting: str) -> None:
    """Set SQLite's foreign key enforcement on the raw connection (not in a transaction)."""
    raw = connection.connection.driver_connection
    assert raw is not None
    raw.execute(f"PRAGMA foreign_keys = {setting}")


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=TARGET_METADATA,
        render_as_batch=True,  # SQLite alters tables by copying them
        compare_type=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Two daemons started at once on an empty database would both create the tables:
            # the second waits here, then finds them made (released at commit).
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        context.run_migrations()


def _url() -> str | URL:
    url: str | URL | None = context.config.attributes.get("url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    if url is None:
        raise RuntimeError("no database URL: pass one with narrator.db.upgrade(url)")
    return url


def run_offline() -> None:
    """Write the migration SQL instead of running it (``alembic upgrade --sql``)."""
    context.configure(url=_url(), target_metadata=TARGET_METADATA, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Run the migrations on a given connection, or on a fresh engine for the URL."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _configure_and_run(connection)
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _configure_and_run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
