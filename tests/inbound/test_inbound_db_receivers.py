"""The receivers writing to the real database sink (SQLite file, and PostgreSQL when set)."""

from __future__ import annotations

import asyncio
import random
import smtplib

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.inbound.dbsink import DbSink
from narrator.inbound.imap import ImapPoller, ImapSettings
from narrator.inbound.sink import InboxNotifier
from narrator.inbound.smtp import SmtpReceiver, SmtpSettings
from narrator.models import ImapSync, InboxMessage
from tests.support.aio import run_async, wait_until
from tests.support.dovecot import DovecotAccount
from tests.support.sinks import FlakySink


def mail(n: int) -> bytes:
    return (
        f"From: anna@example.org\r\nSubject: WW5\r\nMessage-ID: <db-{n}@x>\r\n\r\nBram\r\n".encode()
    )


def inbox_rows(sessions: sessionmaker[Session]) -> list[InboxMessage]:
    with sessions() as session:
        return list(session.scalars(select(InboxMessage).order_by(InboxMessage.id)))


def test_smtp_receiver_commits_to_the_inbox_table(sessions: sessionmaker[Session]) -> None:
    async def scenario() -> None:
        notifier = InboxNotifier()
        sink = DbSink(sessions, on_stored=notifier.notify)
        settings = SmtpSettings(addresses=("verteller@example.org",), port=0)
        async with SmtpReceiver(sink, settings) as receiver:

            def send() -> None:
                with smtplib.SMTP("127.0.0.1", receiver.port, timeout=10) as client:
                    for n in (1, 2, 1):
                        client.sendmail("", ["verteller@example.org"], mail(n))

            await asyncio.to_thread(send)
            assert await notifier.wait(timeout=5)
        rows = inbox_rows(sessions)
        assert [(r.message_id, r.source, r.envelope_from, r.state) for r in rows] == [
            ("db-1@x", "smtp", "", "new"),
            ("db-2@x", "smtp", "", "new"),
        ]
        assert rows[0].raw.endswith(mail(1))

    run_async(scenario())


@pytest.mark.dovecot
def test_imap_poller_commits_to_the_inbox_and_sync_tables(
    sessions: sessionmaker[Session], dovecot_account: DovecotAccount
) -> None:
    dovecot_account.deliver(mail(1))
    dovecot_account.deliver(mail(2))
    uidvalidity = dovecot_account.uidvalidity()
    settings = ImapSettings(
        host=dovecot_account.server.host,
        port=dovecot_account.server.imap_port,
        ssl=False,
        username=dovecot_account.username,
        password=dovecot_account.password,
        backoff_initial=0.05,
        backoff_max=0.2,
    )

    async def scenario() -> FlakySink:
        sink = FlakySink(DbSink(sessions))
        for n in (3, 4):  # two daemon runs, each with one new mail
            synced = asyncio.Event()
            async with ImapPoller(sink, settings, rng=random.Random(1), on_synced=synced.set):
                await asyncio.wait_for(synced.wait(), 10)
                await asyncio.to_thread(dovecot_account.deliver, mail(n))
                await wait_until(lambda n=n: len(sink.calls) == n, message=f"mail {n}")
        return sink

    sink = run_async(scenario())
    assert sink.calls == [("imap", uid) for uid in (1, 2, 3, 4)]
    rows = inbox_rows(sessions)
    assert [(r.message_id, r.mailbox, r.uidvalidity, r.uid) for r in rows] == [
        (f"db-{n}@x", "INBOX", uidvalidity, n) for n in (1, 2, 3, 4)
    ]
    with sessions() as session:
        sync = session.get(ImapSync, "INBOX")
        assert sync is not None and (sync.uidvalidity, sync.last_uid) == (uidvalidity, 4)


@pytest.mark.dovecot
def test_imap_stores_another_senders_mail_under_a_known_message_id_but_no_redelivery(
    sessions: sessionmaker[Session], dovecot_account: DovecotAccount
) -> None:
    """The IMAP path dedupes as SMTP and inject do: Message-ID plus sender plus body digest."""
    known = mail(1)
    DbSink(sessions).store_sync(known, source="inject")  # stored before, e.g. by inject
    reused = b"From: mallory@evil.test\r\nSubject: WW5\r\nMessage-ID: <db-1@x>\r\n\r\nCees\r\n"
    other_text = known.replace(b"Bram", b"Cees")
    for raw in (reused, known, other_text):  # another sender, a true re-delivery, another text
        dovecot_account.deliver(raw)
    settings = ImapSettings(
        host=dovecot_account.server.host,
        port=dovecot_account.server.imap_port,
        ssl=False,
        username=dovecot_account.username,
        password=dovecot_account.password,
        backoff_initial=0.05,
        backoff_max=0.2,
    )

    async def scenario() -> None:
        synced = asyncio.Event()
        async with ImapPoller(
            DbSink(sessions), settings, rng=random.Random(1), on_synced=synced.set
        ):
            await asyncio.wait_for(synced.wait(), 10)

    run_async(scenario())
    rows = inbox_rows(sessions)
    assert len(rows) == 3  # the re-delivered copy of the known mail is not stored again
    assert all(r.raw.endswith(m) for r, m in zip(rows, (known, reused, other_text), strict=True))
    assert [r.source for r in rows] == ["inject", "imap", "imap"]
    assert rows[0].message_id == "db-1@x"
    assert all(r.message_id.startswith("db-1@x~") for r in rows[1:])
