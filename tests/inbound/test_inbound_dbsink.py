"""The database sink against a real SQLite file (and PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select
from sqlalchemy.engine.interfaces import CacheStats
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import core_transaction, make_engine, session_factory, upgrade
from narrator.inbound.dbsink import DbSink, Incoming
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
        again = await sink.store(mail("a@x"), source="inject")
        # Another text under the same Message-ID is another mail (issue 24): stored apart.
        other = await sink.store(mail("a@x", body="other body"), source="inject")
        other_again = await sink.store(mail("a@x", body="other body"), source="smtp")
        return [first, again, other, other_again]

    first, again, other, other_again = run_async(scenario())
    assert not first.duplicate
    assert again.duplicate and again.inbox_id == first.inbox_id
    assert not other.duplicate and other.inbox_id != first.inbox_id
    assert other_again.duplicate and other_again.inbox_id == other.inbox_id
    assert len(rows(sessions)) == 2


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


def test_a_new_mail_is_stored_by_one_statement(db_url: str) -> None:
    """A mail alone (most are, at a few a second) costs its transaction one statement: the
    insert itself tells a new mail from a stored one; the look-ups come only for the latter.
    On SQLite the new mail's insert runs on the driver's connection itself (every statement
    SQLite runs is traced there), elsewhere in a Core transaction (the engine's events)."""
    statements: list[str] = []

    def executed(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(statement)

    def traced(dbapi_connection: Any, _record: object) -> None:
        if isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.set_trace_callback(statements.append)

    engine = make_engine(db_url)
    event.listen(engine, "connect", traced)
    event.listen(engine, "before_cursor_execute", executed)
    sessions = session_factory(engine)
    try:
        sink = DbSink(sessions)
        new = sink.store_sync(mail("one@x"), source="smtp")
        imap = sink.store_sync(mail("two@x"), source="imap", mailbox="INBOX", uidvalidity=1, uid=9)
        inserted = list(statements)
        again = sink.store_sync(mail("one@x"), source="smtp")
        same_uid = sink.store_sync(
            mail("three@x"), source="imap", mailbox="INBOX", uidvalidity=1, uid=9
        )
        on_inbox = [s for s in inserted if "inbox" in s.lower()]
        assert [s.split(None, 1)[0].upper() for s in on_inbox] == ["INSERT", "INSERT"]
        assert not (new.duplicate or imap.duplicate)
        assert again == StoreResult(new.inbox_id, "one@x", duplicate=True)
        assert same_uid == StoreResult(imap.inbox_id, "three@x", duplicate=True)
        assert len(rows(sessions)) == 2
    finally:
        engine.dispose()


def test_a_mail_stored_through_the_driver_is_the_row_core_would_write(
    sqlite_url: str,
) -> None:
    """SQLite's store runs its INSERT on the driver's connection: the row it writes reads
    back, through the models, as the Core insert's row (the same mail stored by each into
    two databases): every column, the defaults the Core insert adds included, and the time
    of arrival in SQLAlchemy's own text for a timestamp."""
    other = sqlite_url.replace(".db", "-core.db")
    upgrade(other)
    engines = [make_engine(sqlite_url), make_engine(other)]
    try:
        driver_sessions, core_sessions = (session_factory(e) for e in engines)
        raw = mail("m@x") + b"\xff binary\r\n"
        before = datetime.now(UTC)
        stored = DbSink(driver_sessions).store_sync(
            raw, source="imap", mailbox="INBOX", uidvalidity=7, uid=3, envelope_from="a@x"
        )
        with core_transaction(core_sessions) as connection:
            DbSink._insert(connection, Incoming(raw, "imap", "INBOX", 7, 3, "a@x"), "m@x")
        (by_driver,) = rows(driver_sessions)
        (by_core,) = rows(core_sessions)
        assert stored == StoreResult(by_driver.id, "m@x", duplicate=False)
        columns = [c.key for c in InboxMessage.__table__.columns if c.key != "received_at"]
        assert {c: getattr(by_driver, c) for c in columns} == {
            c: getattr(by_core, c) for c in columns
        }
        assert before <= by_driver.received_at <= datetime.now(UTC)
        assert by_driver.received_at.tzinfo is not None
        with engines[0].connect() as connection:
            text = connection.exec_driver_sql("SELECT received_at FROM inbox").scalar()
        with engines[1].connect() as connection:
            core_text = connection.exec_driver_sql("SELECT received_at FROM inbox").scalar()
        assert len(text) == len(core_text) and text[10] == core_text[10] == " "
    finally:
        for engine in engines:
            engine.dispose()


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


def test_a_mail_queued_behind_a_group_that_waits_for_the_lock_waits_no_longer_than_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the write lock past the busy timeout: the first mail's group waits
    the timeout and is refused ("try again later"); a mail that came meanwhile, queued behind
    that group, is refused about a timeout after it came, not after that group's wait and a
    timeout of its own (its receiver answers 451 in the time the configuration promises)."""
    timeout = 1.5
    monkeypatch.setattr("narrator.db.SQLITE_BUSY_TIMEOUT_MS", int(timeout * 1000))
    path = tmp_path / "narrator.db"
    upgrade(f"sqlite:///{path}")
    engine = make_engine(f"sqlite:///{path}")
    sink = DbSink(session_factory(engine))
    other = sqlite3.connect(path, isolation_level=None)

    async def refused_after(raw: bytes, delay: float) -> float:
        await asyncio.sleep(delay)
        began = time.monotonic()
        with pytest.raises(StorageUnavailable, match="database is locked"):
            await sink.store(raw, source="smtp")
        return time.monotonic() - began

    async def scenario() -> list[float]:
        return list(
            await asyncio.gather(
                refused_after(mail("first@x"), 0), refused_after(mail("second@x"), 0.5)
            )
        )

    try:
        other.execute("BEGIN IMMEDIATE")
        first, second = run_async(scenario())
        other.execute("ROLLBACK")
        assert first >= timeout * 0.8, first
        # Counted from its own arrival: about `timeout` (without: the group's remaining 1.0 s
        # and then 1.5 s of its own, 2.5 s).
        assert second < timeout + 0.7, (first, second)
        assert run_async(sink.store(mail("second@x"), source="smtp")).duplicate is False
    finally:
        other.close()
        engine.dispose()


def test_a_mail_alone_is_stored_by_its_compiled_insert_cached(
    engine: Engine, sessions: sessionmaker[Session]
) -> None:
    """The sink's INSERT is built once and compiled once per engine: every mail after the
    first reuses SQLAlchemy's compiled form (a statement built anew, or one whose cache key
    changed from mail to mail, would be compiled again for each).  On SQLite a new mail alone
    is inserted on the driver's connection, with no Core statement at all."""
    hits: list[object] = []

    def executed(
        _conn: object, _cursor: object, statement: str, _p: object, context: Any, *_: object
    ) -> None:
        if statement.startswith("INSERT INTO inbox"):
            hits.append(context.cache_hit is CacheStats.CACHE_HIT)

    sink = DbSink(sessions)
    sink.store_sync(mail("warm@x"), source="smtp")  # its first use may compile it
    event.listen(engine, "after_cursor_execute", executed)
    try:
        for n in range(3):
            sink.store_sync(mail(f"c{n}@x"), source="smtp", envelope_from=f"p{n}@x")
        sink.store_sync(mail("imap@x"), source="imap", mailbox="INBOX", uidvalidity=1, uid=4)
    finally:
        event.remove(engine, "after_cursor_execute", executed)
    assert hits == ([] if engine.dialect.name == "sqlite" else [True] * 4)


def test_mail_arriving_at_once_is_committed_together(
    engine: Engine, sessions: sessionmaker[Session]
) -> None:
    """Forty SMTP sessions at once: one group commit, each caller told its own inbox row."""
    transactions: list[object] = []

    def begun(connection: object) -> None:
        transactions.append(connection)

    event.listen(engine, "begin", begun)
    woken: list[StoreResult] = []
    sink = DbSink(sessions, on_stored=woken.append)
    raws = [mail(f"m{n}@x", body=f"stem {n}") for n in range(40)]
    raws.insert(20, mail("m3@x", body="stem 3"))  # the same mail, delivered twice

    async def scenario() -> list[StoreResult]:
        return list(await asyncio.gather(*(sink.store(r, source="smtp") for r in raws)))

    results = run_async(scenario())
    event.remove(engine, "begin", begun)
    stored = rows(sessions)
    assert len(stored) == 40
    by_id = {row.id: row for row in stored}
    for raw, result in zip(raws, results, strict=True):  # each caller told its own row
        assert by_id[result.inbox_id].message_id == result.message_id
        assert by_id[result.inbox_id].raw == raw or result.duplicate
    assert [r.duplicate for r in results].count(True) == 1
    assert results[20].duplicate and results[20].inbox_id == results[3].inbox_id
    assert by_id[results[3].inbox_id].raw == raws[3]  # the first copy is the one kept
    assert sorted(r.inbox_id for r in woken) == sorted(by_id)  # the worker hears of each once
    assert len(transactions) <= 2  # not one per mail


def test_a_group_with_a_mail_stored_meanwhile_by_another_daemon(postgres_db_url: str) -> None:
    """Another daemon commits one of the group's mails between the look-up and the insert:
    the group is redone one mail at a time, the mail is a duplicate, nothing is lost."""
    ours, theirs = make_engine(postgres_db_url), make_engine(postgres_db_url)
    try:
        sink, other = DbSink(session_factory(ours)), DbSink(session_factory(theirs))
        raws = [mail(f"g{n}@x") for n in range(5)]
        raced: list[StoreResult] = []

        def race(_conn: object, _cursor: object, statement: str, *_: object) -> None:
            if statement.startswith("INSERT INTO inbox") and not raced:
                raced.append(other.store_sync(raws[2], source="imap"))

        event.listen(ours, "before_cursor_execute", race)

        async def scenario() -> list[StoreResult]:
            return list(await asyncio.gather(*(sink.store(r, source="smtp") for r in raws)))

        results = run_async(scenario())
        assert [r.duplicate for r in results] == [False, False, True, False, False]
        assert results[2].inbox_id == raced[0].inbox_id
        with session_factory(ours)() as session:
            assert session.scalar(select(func.count(InboxMessage.id))) == 5
    finally:
        ours.dispose()
        theirs.dispose()


def test_a_caller_that_gives_up_leaves_the_commit_to_go_on(
    sessions: sessionmaker[Session],
) -> None:
    """A caller cancelled while its mail commits (its SMTP session ended) hears nothing; its
    mail is still stored and announced, and the other callers of its group get their results."""
    woken: list[StoreResult] = []
    sink = DbSink(sessions, on_stored=woken.append)

    async def scenario() -> list[StoreResult]:
        gone = asyncio.create_task(sink.store(mail("gone@x"), source="smtp"))
        stayed = [asyncio.create_task(sink.store(mail(f"{n}@x"), source="smtp")) for n in range(3)]
        await asyncio.sleep(0)  # all are waiting for the commit in the worker thread
        gone.cancel()
        results = await asyncio.gather(*stayed)
        await asyncio.sleep(0)
        assert gone.cancelled()
        return results

    results = run_async(scenario())
    assert [r.message_id for r in results] == ["0@x", "1@x", "2@x"]
    assert sorted(r.message_id for r in woken) == ["0@x", "1@x", "2@x", "gone@x"]
    assert sorted(row.message_id for row in rows(sessions)) == ["0@x", "1@x", "2@x", "gone@x"]
