"""Fixtures of the web tests: a session factory on the test database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import session_factory


@pytest.fixture
def factory(engine: Engine) -> Iterator[sessionmaker[Session]]:
    """Sessions on the test's database (every backend of ``engine``)."""
    yield session_factory(engine)
