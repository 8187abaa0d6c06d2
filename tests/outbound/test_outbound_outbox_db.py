"""The outbox in a real database: a SQLite file; PostgreSQL with NARRATOR_TEST_POSTGRES_URL."""

from __future__ import annotations

import asyncio
import contextlib
import email
import mailbox
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from narrator.config import Config, NarratorSection, OutboundSection
from narrator.db import make_engine, session_factory, transaction
from narrator.models import Base, OutboxMessage
from narrator.outbound.compose import (
    Address,
    MailKind,
    OutgoingMail,
    compose,
    make_message_id,
)
from narrator.outbound.leases import LOCK_SPACE
from narrator.outbound.outbox import (
    Claim,
    Claimant,
    Outgoing,
    SqlOutbox,
    outbox_sender,
    queue_mail,
)
from narrator.outbound.sender import FailedMail, OutboxItem, OutboxSender, RetryPolicy
from narrator.outbound.transport import SmtpSettings, SmtpTransport
from tests.outbound.helpers import FakeClock, SmtpServer
from tests.support.aio import run_async

NARRATOR = Address("verteller@example.org", "De Verteller")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(
    request: pytest.FixtureRequest, fresh_database: Callable[[str], str]
) -> Iterator[str]:
    """A fresh database with the narrator's tables: a SQLite file, or a private PostgreSQL db."""
    yield from _with_tables(fresh_database(request.param))


def _with_tables(url: str) -> Iterator[str]:
    engine = make_engine(url)
    try:
        Base.metadata.create_all(engine)
    finally:
        engine.dispose()
    yield url


@pytest.fixture
def engines(database_url: str) -> Iterator[Callable[[], Engine]]:
    """Make engines on the test database (one per simulated process); all disposed at the end."""
    made: list[Engine] = []

    def make() -> Engine:
        engine = make_engine(database_url)
        made.append(engine)
        return engine

    yield make
    for engine in made:
        engine.dispose()


@pytest.fixture
def factory(engines: Callable[[], Engine]) -> sessionmaker[Session]:
    return session_factory(engines())


def mail_to(recipient: str, n: int = 0) -> OutgoingMail:
    return OutgoingMail(
        sender=NARRATOR,
        to=Address(recipient, f"Speler {n}"),
        subject=f"WW5: ontvangstbewijs {n}",
        text=f"Je stem nummer {n} is genoteerd.\n",
        html=f"<p>Je stem nummer {n} is genoteerd.</p>",
        kind=MailKind.REPLY,
        in_reply_to=f"<vote{n}@player.example>",
    )


def rows(factory: sessionmaker[Session]) -> list[OutboxMessage]:
    with factory() as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


# -- queue_mail ----------------------------------------------------------------------------------


def test_queue_mail_adds_a_due_pending_row_in_the_callers_transaction(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    fixed = make_message_id("example.org", "receipt/1/anna@example.org")
    with transaction(factory) as session:
        row = queue_mail(
            session, mail_to("anna@example.org"), now=clock(), kind="receipt", message_id=fixed
        )
        assert row.message_id == fixed
    (stored,) = rows(factory)
    assert (stored.message_id, stored.recipient, stored.kind) == (
        fixed,
        "anna@example.org",
        "receipt",
    )
    assert (stored.state, stored.attempts, stored.next_attempt_at) == ("pending", 0, clock())
    assert stored.created_at == clock() and stored.sent_at is None
    assert stored.raw == compose(mail_to("anna@example.org"), message_id=fixed, date=clock())


def test_queued_mail_is_rolled_back_with_the_transaction(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    with pytest.raises(RuntimeError), transaction(factory) as session:
        queue_mail(session, mail_to("anna@example.org"), now=clock(), kind="receipt")
        raise RuntimeError("the vote could not be stored")
    assert rows(factory) == []


def test_message_ids_are_random_by_default_and_unique_in_the_table(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    with transaction(factory) as session:
        one = queue_mail(session, mail_to("a@example.org"), now=clock(), kind="step")
        two = queue_mail(session, mail_to("a@example.org"), now=clock(), kind="step")
    assert one.message_id != two.message_id
    assert one.message_id.endswith("@example.org>")
    assert email.message_from_bytes(one.raw)["Message-ID"] == one.message_id
    with pytest.raises(IntegrityError), transaction(factory) as session:
        queue_mail(
            session, mail_to("b@example.org"), now=clock(), kind="step", message_id=one.message_id
        )


# -- SqlOutbox with the sender and a real SMTP server ---------------------------------------------


def smtp_sender(
    outbox: SqlOutbox,
    server: SmtpServer,
    clock: FakeClock,
    failures: list[FailedMail] | None = None,
    **kwargs: object,
) -> tuple[OutboxSender, SmtpTransport]:
    transport = SmtpTransport(
        SmtpSettings(host=server.host, port=server.port, starttls=False, timeout=5.0)
    )
    sender = OutboxSender(
        outbox,
        transport,
        envelope_from=NARRATOR.email,
        clock=clock,
        rng=random.Random(1),
        policy=RetryPolicy(max_attempts=5),
        on_failed=None if failures is None else failures.append,
        **kwargs,  # type: ignore[arg-type]
    )
    return sender, transport


@contextlib.asynccontextmanager
async def sending(
    outbox: SqlOutbox,
    server: SmtpServer,
    clock: FakeClock,
    failures: list[FailedMail] | None = None,
    **kwargs: object,
) -> AsyncIterator[OutboxSender]:
    """:func:`smtp_sender`'s sender, its transport closed at the end."""
    sender, transport = smtp_sender(outbox, server, clock, failures, **kwargs)
    try:
        yield sender
    finally:
        await transport.close()


def test_sent_retried_and_refused_mail_end_in_the_right_state(
    factory: sessionmaker[Session], smtp_server: SmtpServer, clock: FakeClock
) -> None:
    with transaction(factory) as session:
        for n, recipient in enumerate(["anna@example.org", "gone@example.org", "bram@example.org"]):
            queue_mail(session, mail_to(recipient, n), now=clock(), kind="receipt")
    smtp_server.handler.rcpt_replies.extend(["250 ok", "550 5.1.1 No such user", "250 ok"])
    smtp_server.handler.data_replies.extend(["250 ok", "451 4.3.0 Try later"])
    failures: list[FailedMail] = []

    async def scenario() -> None:
        async with sending(SqlOutbox(factory), smtp_server, clock, failures) as sender:
            first = await sender.run_once()
            assert (first.sent, first.failed, first.retried) == (1, 1, 1)
            clock.advance(timedelta(minutes=5))
            second = await sender.run_once()
            assert (second.claimed, second.sent) == (1, 1)

    run_async(scenario())
    anna, gone, bram = rows(factory)
    assert (anna.state, anna.attempts, anna.sent_at) == ("sent", 1, clock() - timedelta(minutes=5))
    assert (gone.state, gone.attempts) == ("failed", 1)
    assert "550" in (gone.last_error or "")
    assert (bram.state, bram.attempts, bram.sent_at) == ("sent", 2, clock())
    assert bram.last_error is None
    assert [f.recipient for f in failures] == ["gone@example.org"] and failures[0].permanent
    received = smtp_server.handler.message_ids()
    assert received == Counter({anna.message_id: 1, bram.message_id: 1})
    assert SqlOutbox(factory).next_due() is None


def test_a_crashed_claim_is_resent_with_the_same_bytes_after_its_lease(
    factory: sessionmaker[Session], smtp_server: SmtpServer, clock: FakeClock
) -> None:
    with transaction(factory) as session:
        queue_mail(session, mail_to("anna@example.org"), now=clock(), kind="receipt")
    outbox = SqlOutbox(factory)
    lease = timedelta(minutes=10)
    (crashed,) = outbox.claim_due(clock(), lease, 10)  # claimed, then the process died
    assert outbox.next_due() == clock() + lease

    async def scenario() -> None:
        async with sending(outbox, smtp_server, clock, lease=lease) as sender:
            assert (await sender.run_once()).claimed == 0
            clock.advance(lease)
            assert (await sender.run_once()).sent == 1

    run_async(scenario())
    (row,) = rows(factory)
    assert (row.state, row.attempts) == ("sent", 2)
    (received,) = smtp_server.handler.received
    assert received.raw == crashed.raw == row.raw


def test_marking_a_mail_sent_tells_when_the_next_is_due(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    with transaction(factory) as session:
        for address in ("anna@example.org", "bram@example.org"):
            queue_mail(session, mail_to(address), now=clock(), kind="receipt")
    outbox = SqlOutbox(factory)
    lease = timedelta(minutes=10)
    anna, bram = outbox.claim_due(clock(), lease, 10)
    assert (anna.attempts, bram.attempts) == (1, 1)
    assert outbox.mark_sent([anna], clock()) == clock() + lease == outbox.next_due()
    assert outbox.mark_sent([bram], clock()) is None is outbox.next_due()


def test_the_next_due_told_by_marking_sent_is_of_the_other_pending_mails(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    """The mark's own statement tells the next due of the mails it did not mark: those it
    marks are left out however the database's RETURNING sees them (one mail's statement and
    a group's); a mark that marks nothing (no longer pending) asks the table."""
    with transaction(factory) as session:
        for address in ("anna@example.org", "bram@example.org", "carl@example.org"):
            queue_mail(session, mail_to(address), now=clock(), kind="receipt")
    outbox = SqlOutbox(factory)
    lease = timedelta(minutes=10)
    (anna,) = outbox.claim_due(clock(), lease, 1)
    clock.advance(timedelta(minutes=1))
    bram, carl = outbox.claim_due(clock(), lease, 10)
    assert outbox.mark_sent([bram], clock()) == clock() - timedelta(minutes=1) + lease  # anna's
    outbox.mark_failed(anna, clock(), "given up")
    assert outbox.mark_sent([anna], clock()) == clock() + lease == outbox.next_due()  # carl's
    assert outbox.mark_sent([carl, anna], clock()) is None is outbox.next_due()


def test_a_group_of_mails_is_marked_sent_in_one_call(
    factory: sessionmaker[Session], clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    with transaction(factory) as session:
        for address in ("anna@example.org", "bram@example.org", "carl@example.org"):
            queue_mail(session, mail_to(address), now=clock(), kind="receipt")
    outbox = SqlOutbox(factory)
    lease = timedelta(minutes=10)
    anna, bram, carl = outbox.claim_due(clock(), lease, 10)
    outbox.mark_failed(bram, clock(), "given up meanwhile")  # no longer pending
    clock.advance(timedelta(seconds=1))
    assert outbox.mark_sent([anna, bram, carl], clock()) is None  # nothing pending is left
    assert [(row.state, row.sent_at is not None) for row in rows(factory)] == [
        ("sent", True),
        ("failed", False),
        ("sent", True),
    ]
    assert f"outbox {bram.message_id} was sent but was no longer pending" in caplog.text
    assert anna.message_id not in caplog.text


def test_a_stale_claimant_cannot_overwrite_the_new_claimants_outcome(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    with transaction(factory) as session:
        queue_mail(session, mail_to("anna@example.org"), now=clock(), kind="receipt")
    outbox = SqlOutbox(factory)
    lease = timedelta(minutes=10)
    (stale,) = outbox.claim_due(clock(), lease, 10)
    clock.advance(lease)
    (fresh,) = outbox.claim_due(clock(), lease, 10)
    assert (stale.attempts, fresh.attempts) == (1, 2)
    outbox.mark_sent([fresh], clock())
    outbox.mark_failed(stale, clock(), "timed out")  # too late: ignored
    outbox.mark_retry(stale, clock(), "timed out")
    (row,) = rows(factory)
    assert (row.state, row.last_error) == ("sent", None)


def test_two_senders_racing_on_one_database_send_each_mail_exactly_once(
    engines: Callable[[], Engine], smtp_server: SmtpServer, clock: FakeClock
) -> None:
    total = 60
    with transaction(session_factory(engines())) as session:
        for n in range(total):
            queue_mail(session, mail_to(f"p{n}@example.org", n), now=clock(), kind="step")
    # Two "processes": their own engine (connections), outbox, transport and SMTP connection.
    outboxes = [SqlOutbox(session_factory(engines())) for _ in range(2)]
    claimed = [0, 0]

    async def scenario() -> None:
        pairs = [smtp_sender(outbox, smtp_server, clock, batch_size=4) for outbox in outboxes]
        try:
            for _ in range(total):  # bounded; each round sends up to 8
                reports = await asyncio.gather(*(sender.run_once() for sender, _ in pairs))
                for index, report in enumerate(reports):
                    claimed[index] += report.claimed
                if not any(report.claimed for report in reports):
                    break
        finally:
            for _, transport in pairs:
                await transport.close()

    run_async(scenario(), timeout=120)
    received = smtp_server.handler.message_ids()
    stored = rows(session_factory(engines()))
    assert sorted(received) == sorted(row.message_id for row in stored)
    assert set(received.values()) == {1}
    assert {(row.state, row.attempts) for row in stored} == {("sent", 1)}
    assert sum(claimed) == total
    assert min(claimed) > 0  # both really took part


def test_the_daemons_sender_in_dev_mode_writes_the_maildir(
    factory: sessionmaker[Session], clock: FakeClock, tmp_path: Path
) -> None:
    config = Config(
        narrator=NarratorSection(address="verteller@example.org"),
        outbound=OutboundSection(mode="maildir", maildir=tmp_path / "outbox"),
    )
    with transaction(factory) as session:
        row = queue_mail(session, mail_to("anna@example.org"), now=clock(), kind="receipt")
    sender = outbox_sender(config, factory, clock=clock, rng=random.Random(0))

    async def scenario() -> None:
        try:
            assert (await sender.run_once()).sent == 1
        finally:
            await sender.transport.close()

    run_async(scenario())
    (stored,) = rows(factory)
    assert stored.state == "sent"
    (message,) = mailbox.Maildir(tmp_path / "outbox", create=False)
    assert message["Message-ID"] == row.message_id
    assert message["Delivered-To"] == "anna@example.org"
    assert message["Return-Path"] == "<verteller@example.org>"


# -- mail queued claimed for the daemon's own sender (its inbox pass's replies) -------------------

LEASE = timedelta(minutes=10)
OWNER = 4242  # the daemon's owner id (no advisory lock held: on PostgreSQL, a dead owner)


class CountedOutbox(SqlOutbox):
    """The SQL outbox, counting the sender's claims."""

    claims = 0

    def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[OutboxItem]:
        self.claims += 1
        return super().claim_due(now, lease, limit)


def queue_claimed(factory: sessionmaker[Session], clock: FakeClock, *recipients: str) -> Claim:
    """Queue a mail to each of `recipients` claimed for OWNER's sender, as the daemon's inbox
    pass does (committed)."""
    claim = Claim(Claimant(OWNER, LEASE))
    outgoing = Outgoing(claim)
    with transaction(factory) as session:
        for n, recipient in enumerate(recipients):
            queue_mail(session, mail_to(recipient, n), now=clock(), kind="receipt", into=outgoing)
        outgoing.write(session.connection())
    return claim


def test_mail_queued_under_a_claim_is_stored_as_the_first_claim_would_leave_it(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    claim = queue_claimed(factory, clock, "anna@example.org", "bram@example.org")
    stored = rows(factory)
    assert [(r.state, r.attempts, r.claimed_by) for r in stored] == [("pending", 1, OWNER)] * 2
    assert {r.next_attempt_at for r in stored} == {clock() + LEASE}
    # The items are what a claim of the rows would have returned.
    assert claim.items == [
        OutboxItem(r.id, r.message_id, r.recipient, r.raw, r.kind, r.game_id, 1, r.created_at)
        for r in stored
    ]
    assert SqlOutbox(factory).claim_due(clock(), LEASE, 10) == []  # claimed: nobody else's


def test_mail_queued_into_an_outgoing_is_inserted_at_its_write_all_together(
    factory: sessionmaker[Session], clock: FakeClock
) -> None:
    """Queued into an :class:`Outgoing`, nothing is inserted until its write, which inserts
    every row by one statement (returning their ids, matched to their rows); claimed, the rows
    and items are what a claim of each would leave and return, in the order queued."""
    recipients = ["carla@example.org", "anna@example.org", "bram@example.org"]
    inserts: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        if statement.startswith("INSERT INTO outbox"):
            inserts.append(statement)

    engine = factory.kw["bind"]
    for turn, claim in enumerate((Claim(Claimant(OWNER, LEASE)), None)):
        outgoing = Outgoing(claim)
        with transaction(factory) as session:
            for n, recipient in enumerate(recipients):
                mail = mail_to(recipient, 10 * turn + n)
                queue_mail(session, mail, now=clock(), kind="receipt", into=outgoing)
            assert len(session.scalars(select(OutboxMessage.id)).all()) == 3 * turn
            assert outgoing.queued == 3
            event.listen(engine, "before_cursor_execute", count)
            try:
                outgoing.write(session.connection())
            finally:
                event.remove(engine, "before_cursor_execute", count)
        assert len(inserts) == 1, inserts
        inserts.clear()
        if claim is not None:
            stored = rows(factory)
            assert [(r.state, r.attempts, r.claimed_by) for r in stored] == [
                ("pending", 1, OWNER)
            ] * 3
            assert {r.next_attempt_at for r in stored} == {clock() + LEASE}
            by_id = {r.id: r for r in stored}
            assert [item.recipient for item in claim.items] == recipients
            assert claim.items == [
                OutboxItem(
                    i.id, r.message_id, r.recipient, r.raw, r.kind, r.game_id, 1, r.created_at
                )
                for i in claim.items
                for r in [by_id[i.id]]
            ]
    unclaimed = [r for r in rows(factory) if r.claimed_by is None]
    assert [(r.recipient, r.attempts, r.next_attempt_at) for r in unclaimed] == [
        (recipient, 0, clock()) for recipient in recipients
    ]


def test_mail_handed_over_is_delivered_without_a_claim_of_the_sender(
    factory: sessionmaker[Session], smtp_server: SmtpServer, clock: FakeClock
) -> None:
    claim = queue_claimed(factory, clock, "anna@example.org", "bram@example.org")
    outbox = CountedOutbox(factory, owner=OWNER)

    async def scenario() -> None:
        async with sending(outbox, smtp_server, clock, lease=LEASE) as sender:
            sender.hand_over(claim.items)
            report = await sender.run_once()
            assert (report.claimed, report.sent, outbox.claims) == (2, 2, 0)
            assert (await sender.run_once()).claimed == 0  # a claim now: nothing is left

    run_async(scenario())
    assert [(r.state, r.attempts, r.claimed_by) for r in rows(factory)] == [("sent", 1, None)] * 2
    assert set(smtp_server.handler.message_ids().values()) == {1}


def test_handed_over_mail_past_half_its_lease_is_handed_back_untried(
    factory: sessionmaker[Session], smtp_server: SmtpServer, clock: FakeClock
) -> None:
    """Its claim was made when it was queued: the sender's half-lease rule counts from then."""
    claim = queue_claimed(factory, clock, "anna@example.org")
    clock.advance(LEASE / 2)

    async def scenario() -> None:
        async with sending(SqlOutbox(factory, owner=OWNER), smtp_server, clock) as sender:
            sender.hand_over(claim.items)
            assert (await sender.run_once()).retried == 1
            again = await sender.run_once()  # due at once: claimed like any due mail
            assert (again.claimed, again.sent) == (1, 1)

    run_async(scenario())
    (row,) = rows(factory)
    assert (row.state, row.attempts) == ("sent", 2)
    assert smtp_server.handler.message_ids() == Counter({row.message_id: 1})


def test_a_stopping_sender_hands_back_the_mail_it_was_handed(
    factory: sessionmaker[Session], smtp_server: SmtpServer, clock: FakeClock
) -> None:
    claim = queue_claimed(factory, clock, "anna@example.org")

    async def scenario() -> None:
        async with sending(SqlOutbox(factory, owner=OWNER), smtp_server, clock) as sender:
            sender.hand_over(claim.items)
            sender.stop()  # before its pass: it stops now
            await sender.run()

    run_async(scenario())
    (row,) = rows(factory)
    assert (row.state, row.claimed_by, row.next_attempt_at) == ("pending", None, clock())
    assert smtp_server.handler.received == []
    assert SqlOutbox(factory).next_due() == clock()  # due at once for any sender


def test_mail_claimed_by_a_daemon_that_died_before_delivering_it_is_sent_once_after_its_lease(
    factory: sessionmaker[Session], smtp_server: SmtpServer, clock: FakeClock
) -> None:
    """The pass committed its reply claimed, and the daemon died before handing it over: no
    sender takes it before its lease ran out (without a reclaim), then one sends it once."""
    queue_claimed(factory, clock, "anna@example.org")
    other = CountedOutbox(factory, owner=OWNER + 1)

    async def scenario() -> None:
        async with sending(other, smtp_server, clock, lease=LEASE) as sender:
            clock.advance(LEASE - timedelta(seconds=1))
            assert (await sender.run_once()).claimed == 0
            clock.advance(timedelta(seconds=1))
            assert (await sender.run_once()).sent == 1
            assert (await sender.run_once()).claimed == 0

    run_async(scenario())
    (row,) = rows(factory)
    assert (row.state, row.attempts) == ("sent", 2)
    assert smtp_server.handler.message_ids() == Counter({row.message_id: 1})


def test_mail_claimed_by_a_dead_daemon_is_taken_back_by_the_reclaim_at_once(
    factory: sessionmaker[Session], clock: FakeClock, database_url: str
) -> None:
    """SQLite: the next daemon's start takes every claim back; PostgreSQL: a live daemon takes
    back the claims of an owner without its advisory lock (OWNER holds none)."""
    queue_claimed(factory, clock, "anna@example.org")
    outbox = SqlOutbox(factory, owner=OWNER + 1)
    if database_url.startswith("sqlite"):
        assert outbox.reclaim_all(clock()) == 1
    else:
        assert outbox.reclaim_orphaned(clock(), LOCK_SPACE) == 1
    (item,) = outbox.claim_due(clock(), LEASE, 10)
    assert item.attempts == 2  # a second attempt: the send journal is read for it
