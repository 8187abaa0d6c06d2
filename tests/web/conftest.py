"""Fixtures of the web tests: a session factory on the test database; the admin's password hash."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import session_factory
from narrator.web.auth import hash_password
from tests.support.admin import PASSWORD


@pytest.fixture
def factory(engine: Engine) -> Iterator[sessionmaker[Session]]:
    """Sessions on the test's database (every backend of ``engine``)."""
    yield session_factory(engine)


@pytest.fixture(scope="session")
def boss_hash() -> str:
    """The argon2 hash of `PASSWORD` (tests/support/admin.py), made once per run: the tests
    that log in as `BOSS` store it (`store_hash`); what a hash is and how the CLI stores one
    is tested with hashes of their own (test_admin_panel.py)."""
    return hash_password(PASSWORD)
