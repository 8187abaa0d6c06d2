"""The database sink against a real SQLite file (and PostgreSQL when configured)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory
from narrator.inbound.dbsink import DbSink
from narrator.inbound.sink import InboxSink, StorageUnavailable, StoreResult
from narrator.models import ImapSync, InboxMessage
from tests.support.aio import run_async


def mail(message_id: str | None, body: str = "stem Bram") -> bytes:
    header = f"Message-ID: <{message_id}>\r\n" if message_id else ""
    return f"From: anna@example.org\r\nSubject: WW5\r\n{header}\r\n{body}\r\n".encode()


def rows(sessions: sessionmaker[Session]) -> list[InboxMessage]:
    with sessions() as session:
        return list(session.scalars(select(InboxMessage).order_by(InboxMessage.id)))


def test_db_sink_is_an_inbox_sink(sessions: sessionmaker[Session]) -> None:
    assert isinstance(DbSink(sessions), InboxSink)


def test_store_commits_the_raw_bytes_and_metadata(sessions: sessionmaker[Session]) -> None:
    woken: list[StoreResult] = []
    sink = DbSink(sessions, on_stored=woken.append)
    raw = mail("a@example.org") + b"\xff\x00 binary tail\r\n"
    result = run_async(sink.store(raw, source="smtp", envelope_from=""))
    assert result == StoreResult(result.inbox_id, "a@example.org", duplicate=False)
    assert woken == [result]
    [row] = rows(sessions)
    assert (row.id, row.raw, row.message_id, row.source, row.state, row.envelope_from) == (
        result.inbox_id,
        raw,
        "a@example.org",
        "smtp",
        "new",
        "",
    )


def test_same_message_id_is_a_duplicate(sessions: sessionmaker[Session]) -> None:
    sink = DbSink(sessions)

    async def scenario() -> list[StoreResult]:
        first = await sink.store(mail("a@x"), source="smtp")
        again = await sink.store(mail("a@x", body="other body"), source="inject")
        return [first, again]

    first, again = run_async(scenario())
    assert not first.duplicate
    assert again.duplicate and again.inbox_id == first.inbox_id
    assert len(rows(sessions)) == 1


def test_same_imap_uid_is_a_duplicate_and_no_message_id_gets_a_stable_one(
    sessions: sessionmaker[Session],
) -> None:
    sink = DbSink(sessions)

    async def scenario() -> list[StoreResult]:
        imap = {"mailbox": "INBOX", "uidvalidity": 7, "uid": 3}
        return [
            await sink.store(mail(None), source="imap", **imap),  # type: ignore[arg-type]
            await sink.store(mail(None), source="smtp"),
            await sink.store(mail(None, "changed"), source="imap", **imap),  # type: ignore[arg-type]
            await sink.store(mail(None, "changed"), source="smtp"),
        ]

    first, same_bytes, same_uid, other = run_async(scenario())
    assert first.message_id.startswith("sha256-") and first.message_id.endswith(".invalid")
    assert same_bytes.duplicate and same_bytes.inbox_id == first.inbox_id
    assert same_uid.duplicate and same_uid.inbox_id == first.inbox_id
    assert not other.duplicate
    assert [r.message_id for r in rows(sessions)] == [first.message_id, other.message_id]


def test_concurrent_stores_of_one_message_store_it_once(sessions: sessionmaker[Session]) -> None:
    sink = DbSink(sessions)

    async def scenario() -> list[StoreResult]:
        return list(
            await asyncio.gather(*(sink.store(mail("x@y"), source="smtp") for _ in range(8)))
        )

    results = run_async(scenario())
    assert sum(not r.duplicate for r in results) == 1
    assert len({r.inbox_id for r in results}) == 1
    assert len(rows(sessions)) == 1


def test_has_message_id(sessions: sessionmaker[Session]) -> None:
    sink = DbSink(sessions)

    async def scenario() -> tuple[bool, bool]:
        await sink.store(mail("known@x"), source="inject")
        return await sink.has_message_id("known@x"), await sink.has_message_id("other@x")

    assert run_async(scenario()) == (True, False)


def test_imap_sync_state_per_uidvalidity(sessions: sessionmaker[Session]) -> None:
    sink = DbSink(sessions)

    async def scenario() -> list[int | None]:
        seen = [await sink.imap_last_uid("INBOX", 100)]
        await sink.set_imap_last_uid("INBOX", 100, 5)
        await sink.set_imap_last_uid("INBOX", 100, 3)  # never moves backwards
        seen.append(await sink.imap_last_uid("INBOX", 100))
        seen.append(await sink.imap_last_uid("Other", 100))
        await sink.set_imap_last_uid("INBOX", 200, 2)  # the mailbox was rebuilt
        seen += [await sink.imap_last_uid("INBOX", 100), await sink.imap_last_uid("INBOX", 200)]
        return seen

    assert run_async(scenario()) == [None, 5, None, None, 2]
    with sessions() as session:
        assert [
            (r.mailbox, r.uidvalidity, r.last_uid) for r in session.scalars(select(ImapSync))
        ] == [("INBOX", 200, 2)]


def test_a_database_failure_is_storage_unavailable() -> None:
    engine = make_engine("sqlite:////nonexistent-dir/for/narrator.db")
    try:
        sink = DbSink(session_factory(engine))
        with pytest.raises(StorageUnavailable):
            run_async(sink.store(mail("a@x"), source="smtp"))
        with pytest.raises(StorageUnavailable):
            run_async(sink.imap_last_uid("INBOX", 1))
    finally:
        engine.dispose()
