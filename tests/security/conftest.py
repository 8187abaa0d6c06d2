"""Fixtures of the security tests: a narrator pipeline on the shared test databases."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.orm import Session, sessionmaker

from narrator.service.inbox import InboxSettings
from narrator.service.limits import Limits
from narrator.service.mailer import Mailer
from tests.security.security_support import NARRATOR, Narrator
from tests.support.shipped import shipped_mailer

ADMIN = "beheer@example.org"


@pytest.fixture
def make_narrator(sessions: sessionmaker[Session]) -> Callable[..., Narrator]:
    """Build a :class:`Narrator` on the test database with settings overridden by keywords."""

    def make(mailer: Mailer | None = None, **settings: object) -> Narrator:
        values: dict[str, object] = {"address": NARRATOR, "admins": (ADMIN,)}
        values.update(settings)
        return Narrator(
            sessions,
            mailer or shipped_mailer(NARRATOR),
            InboxSettings(**values),  # type: ignore[arg-type]
        )

    return make


@pytest.fixture
def narrator(make_narrator: Callable[..., Narrator]) -> Narrator:
    """A narrator with the default limits."""
    return make_narrator(limits=Limits())
