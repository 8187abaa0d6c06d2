"""Admins hear about mail that can't be delivered, once, and never about their own notices."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Admin, OutboxMessage
from narrator.outbound.sender import FailedMail
from narrator.service.notices import ADMIN_NOTICE, notify_admins_of_failure

NOW = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)


def _failed(kind: str = "receipt", recipient: str = "anna@example.org") -> FailedMail:
    return FailedMail(
        message_id="<narrator.abc@example.org>",
        recipient=recipient,
        kind=kind,
        game_id=None,
        attempts=1,
        error="550 5.1.1 no such user",
        permanent=True,
    )


def _notify(sessions: sessionmaker[Session], failed: FailedMail) -> list[str]:
    with transaction(sessions) as session:
        return notify_admins_of_failure(
            session,
            failed,
            address="verteller@example.org",
            configured_admins=("beheer@example.org",),
            now=NOW,
        )


def test_every_admin_is_told_once(sessions: sessionmaker[Session]) -> None:
    with transaction(sessions) as session:
        session.add(Admin(email="tweede@example.org"))
    assert _notify(sessions, _failed()) == ["beheer@example.org", "tweede@example.org"]
    assert _notify(sessions, _failed()) == []  # the same failure reported again
    with transaction(sessions) as session:
        rows = session.scalars(select(OutboxMessage)).all()
        assert sorted(r.recipient for r in rows) == ["beheer@example.org", "tweede@example.org"]
        assert {r.kind for r in rows} == {ADMIN_NOTICE}
        assert b"anna@example.org" in rows[0].raw and b"550 5.1.1" in rows[0].raw


def test_no_notice_about_a_notice_nor_to_the_refusing_admin(
    sessions: sessionmaker[Session],
) -> None:
    assert _notify(sessions, _failed(kind=ADMIN_NOTICE)) == []
    assert _notify(sessions, _failed(recipient="beheer@example.org")) == []
    with transaction(sessions) as session:
        assert session.scalars(select(OutboxMessage)).all() == []
