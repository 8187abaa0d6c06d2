"""Alembic environment: migrates the database given as the `url` (or `connection`) attribute."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import URL, Connection

from narrator.db import make_engine
from narrator.models import Base, UtcDateTime

TARGET_METADATA = Base.metadata


def _render_item(kind: str, obj: object, _context: object) -> str | bool:
    # Revisions must not import the models: write our UTC timestamp type as the plain type.
    if kind == "type" and isinstance(obj, UtcDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure_and_run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=TARGET_METADATA,
        render_as_batch=True,  # SQLite alters tables by copying them
        compare_type=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
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
