"""Fixtures for the inbound tests: real servers (from `tests.support.plugin`) and databases."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory, upgrade
from tests.support.plugin import (
    dovecot_account,
    dovecot_factory,
    dovecot_server,
    smtp_capture,
)

__all__ = [
    "database_url",
    "dovecot_account",
    "dovecot_factory",
    "dovecot_server",
    "sessions",
    "smtp_capture",
]

POSTGRES_ENV = "NARRATOR_TEST_POSTGRES_URL"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A migrated, empty database: a SQLite file, and a throw-away PostgreSQL database when
    ``NARRATOR_TEST_POSTGRES_URL`` names a server (skipped otherwise)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('inbound-db') / 'narrator.db'}"
        upgrade(url)
        yield url
        return
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"PostgreSQL tests need {POSTGRES_ENV} (scripts/test.sh sets it)")
    name = f"narrator_inbound_{uuid.uuid4().hex[:12]}"
    admin = create_engine(make_url(base), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(base).set(database=name).render_as_string(hide_password=False)
        upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    """A session factory on the test database."""
    engine = make_engine(database_url)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()
