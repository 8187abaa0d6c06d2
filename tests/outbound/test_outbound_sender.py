"""The outbox sender loop on the in-memory outbox: send, backoff, give up, report, wake up."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from narrator.outbound.journal import SendJournal
from narrator.outbound.sender import (
    FailedMail,
    NextDue,
    OutboxItem,
    OutboxSender,
    RetryPolicy,
)
from narrator.outbound.transport import (
    Delivery,
    DeliveryError,
    MaildirTransport,
    PermanentFailure,
    ServerUnavailable,
    TemporaryFailure,
    maildir_name,
)
from tests.outbound.helpers import FakeClock
from tests.support.aio import run_async, wait_until
from tests.support.memory import MemoryOutbox

SENDER = "verteller@example.org"
POLICY = RetryPolicy(
    first_delay=timedelta(seconds=30),
    max_delay=timedelta(minutes=10),
    max_attempts=8,
    max_age=timedelta(days=1),
)


class FixedRandom(random.Random):
    """An RNG whose ``random()`` is always ``value`` (0: shortest jittered delay, 1: longest)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


@dataclass
class ScriptedTransport:
    """Records sends; ``outcomes[recipient]`` lists the errors to raise before succeeding."""

    outbox: MemoryOutbox | None = None
    outcomes: dict[str, list[Exception]] = field(default_factory=dict)
    sent: list[tuple[str, str, bytes]] = field(default_factory=list)
    attempts: list[str] = field(default_factory=list)
    state_during_send: list[str] = field(default_factory=list)

    clock: FakeClock | None = None
    send_takes: timedelta = timedelta(0)

    async def send(self, sender: str, recipient: str, message: bytes) -> None:
        self.attempts.append(recipient)
        if self.clock is not None:
            self.clock.advance(self.send_takes)
        if self.outbox is not None:
            row = next(r for r in self.outbox.rows if r.raw == message)
            self.state_during_send.append(row.state)
        pending = self.outcomes.get(recipient, [])
        if pending:
            raise pending.pop(0)
        self.sent.append((sender, recipient, message))

    async def close(self) -> None:
        pass


def make_sender(
    outbox: MemoryOutbox,
    transport: ScriptedTransport,
    clock: FakeClock,
    *,
    rng: random.Random | None = None,
    failures: list[FailedMail] | None = None,
    **kwargs: object,
) -> OutboxSender:
    def report(failed: FailedMail) -> None:
        if failures is not None:
            failures.append(failed)

    return OutboxSender(
        outbox,
        transport,
        envelope_from=SENDER,
        clock=clock,
        rng=rng or FixedRandom(0.0),
        policy=kwargs.pop("policy", POLICY),  # type: ignore[arg-type]
        on_failed=report,
        **kwargs,  # type: ignore[arg-type]
    )


def queue(outbox: MemoryOutbox, clock: FakeClock, recipient: str, n: int = 1) -> str:
    message_id = f"<m{n}.{recipient}>"
    outbox.add(
        message_id=message_id,
        recipient=recipient,
        raw=f"Message-ID: {message_id}\r\n\r\nbody {n}\r\n".encode(),
        now=clock(),
        kind="receipt",
        game_id=7,
    )
    return message_id


def test_due_mail_is_sent_and_marked_sent_only_afterwards(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(outbox=outbox)
    first = queue(outbox, clock, "anna@example.org", 1)
    second = queue(outbox, clock, "bram@example.org", 2)
    report = run_async(make_sender(outbox, transport, clock).run_once())
    assert (report.claimed, report.sent, report.retried, report.failed) == (2, 2, 0, 0)
    assert [(s, r) for s, r, _ in transport.sent] == [
        (SENDER, "anna@example.org"),
        (SENDER, "bram@example.org"),
    ]
    assert transport.state_during_send == ["pending", "pending"]
    for message_id in (first, second):
        row = outbox.get(message_id)
        assert (row.state, row.attempts, row.sent_at) == ("sent", 1, clock())
    assert outbox.next_due() is None
    assert run_async(make_sender(outbox, transport, clock).run_once()).claimed == 0


def test_a_pass_that_ends_with_a_send_knows_the_next_due_without_asking(
    clock: FakeClock,
) -> None:
    # Marking the last mail sent reads when the next row is due in the same transaction:
    # the sender's loop asks the outbox no more (one transaction less per receipt).
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    queue(outbox, clock, "anna@example.org", 1)
    later = queue(outbox, clock, "bram@example.org", 2)
    outbox.get(later).next_attempt_at = clock() + timedelta(minutes=5)
    report = run_async(make_sender(outbox, transport, clock).run_once())
    assert (report.sent, report.next_due) == (1, NextDue(clock() + timedelta(minutes=5)))
    outbox.get(later).next_attempt_at = clock()
    report = run_async(make_sender(outbox, transport, clock).run_once())
    assert (report.sent, report.next_due) == (1, NextDue(None))


def test_a_pass_that_ends_with_a_retry_leaves_the_next_due_to_be_asked(
    clock: FakeClock,
) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(outcomes={"bram@example.org": [TemporaryFailure("421", 421)]})
    queue(outbox, clock, "anna@example.org", 1)
    queue(outbox, clock, "bram@example.org", 2)
    report = run_async(make_sender(outbox, transport, clock).run_once())
    assert (report.sent, report.retried, report.next_due) == (1, 1, None)
    assert run_async(make_sender(outbox, transport, clock).run_once()).next_due is None


def test_mail_not_yet_due_waits(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    message_id = queue(outbox, clock, "anna@example.org")
    outbox.get(message_id).next_attempt_at = clock() + timedelta(minutes=5)
    sender = make_sender(outbox, transport, clock)
    assert run_async(sender.run_once()).claimed == 0
    clock.advance(timedelta(minutes=5))
    assert run_async(sender.run_once()).sent == 1


@pytest.mark.parametrize(
    ("jitter", "expected_seconds"),
    [
        # d = min(600, 30 * 2**(n-1)), jittered into [d/2, d]
        (0.0, [15, 30, 60, 120, 240, 300, 300]),
        (1.0, [30, 60, 120, 240, 480, 600, 600]),
    ],
)
def test_temporary_failures_back_off_exponentially_up_to_the_cap(
    clock: FakeClock, jitter: float, expected_seconds: list[int]
) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(
        outcomes={"anna@example.org": [TemporaryFailure("451 later", 451) for _ in range(7)]}
    )
    message_id = queue(outbox, clock, "anna@example.org")
    failures: list[FailedMail] = []
    sender = make_sender(outbox, transport, clock, rng=FixedRandom(jitter), failures=failures)
    waits = []
    for attempt in range(1, 8):
        before = clock()
        report = run_async(sender.run_once())
        assert (report.claimed, report.retried) == (1, 1)
        row = outbox.get(message_id)
        assert (row.state, row.attempts, row.last_error) == ("pending", attempt, "451 later")
        waits.append(int((row.next_attempt_at - before).total_seconds()))
        clock.advance(timedelta(seconds=1))
        assert run_async(sender.run_once()).claimed == 0  # not due again before its time
        clock.set(row.next_attempt_at)
    assert waits == expected_seconds
    assert run_async(sender.run_once()).sent == 1  # the 8th attempt goes through
    assert outbox.get(message_id).state == "sent"
    assert transport.attempts == ["anna@example.org"] * 8
    assert len(transport.sent) == 1
    assert failures == []


def test_jitter_stays_within_half_to_full_delay() -> None:
    rng = random.Random(1234)
    policy = RetryPolicy(first_delay=timedelta(seconds=10), max_delay=timedelta(hours=1))
    for attempts in range(1, 30):
        full = min(timedelta(hours=1), timedelta(seconds=10) * 2 ** (attempts - 1))
        delays = {policy.delay(attempts, rng) for _ in range(20)}
        assert all(full / 2 <= delay <= full for delay in delays)
        assert len(delays) > 1  # really jittered


def test_max_attempts_marks_failed_and_reports(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(
        outcomes={"anna@example.org": [TemporaryFailure("421 busy", 421) for _ in range(20)]}
    )
    message_id = queue(outbox, clock, "anna@example.org")
    failures: list[FailedMail] = []
    sender = make_sender(outbox, transport, clock, failures=failures)
    for _ in range(POLICY.max_attempts):
        run_async(sender.run_once())
        due = outbox.next_due()
        if due is not None:
            clock.set(due)
    row = outbox.get(message_id)
    assert (row.state, row.attempts) == ("failed", POLICY.max_attempts)
    assert len(transport.attempts) == POLICY.max_attempts
    (failed,) = failures
    assert failed == FailedMail(
        message_id=message_id,
        recipient="anna@example.org",
        kind="receipt",
        game_id=7,
        attempts=POLICY.max_attempts,
        error=f"gave up after {POLICY.max_attempts} attempts: 421 busy",
        permanent=False,
    )
    clock.advance(timedelta(days=3))
    assert run_async(sender.run_once()).claimed == 0  # failed mail is never retried


def test_max_age_marks_failed(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(
        outcomes={"anna@example.org": [TemporaryFailure("timed out") for _ in range(5)]}
    )
    message_id = queue(outbox, clock, "anna@example.org")
    failures: list[FailedMail] = []
    sender = make_sender(outbox, transport, clock, failures=failures)
    run_async(sender.run_once())  # first attempt at once: retry in 15 s
    clock.advance(POLICY.max_age - timedelta(seconds=5))  # the daemon was down for a day
    run_async(sender.run_once())  # next retry would be past the maximum age
    assert outbox.get(message_id).state == "failed"
    assert [f.permanent for f in failures] == [False]
    assert transport.attempts == ["anna@example.org"] * 2


def test_permanent_failure_is_marked_at_once_and_reported(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(
        outcomes={
            "gone@example.org": [PermanentFailure("recipient refused: 550 5.1.1 no such user", 550)]
        }
    )
    gone = queue(outbox, clock, "gone@example.org", 1)
    anna = queue(outbox, clock, "anna@example.org", 2)
    failures: list[FailedMail] = []
    report = run_async(make_sender(outbox, transport, clock, failures=failures).run_once())
    assert (report.sent, report.failed) == (1, 1)
    assert (outbox.get(gone).state, outbox.get(gone).attempts) == ("failed", 1)
    assert outbox.get(gone).last_error == "recipient refused: 550 5.1.1 no such user"
    assert outbox.get(anna).state == "sent"
    (failed,) = failures
    assert (failed.message_id, failed.permanent, failed.attempts) == (gone, True, 1)
    clock.advance(timedelta(days=1))
    run_async(make_sender(outbox, transport, clock).run_once())
    assert transport.attempts.count("gone@example.org") == 1


def test_an_async_failure_hook_is_awaited_and_a_raising_hook_is_contained(
    clock: FakeClock,
) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(
        outcomes={
            "a@example.org": [PermanentFailure("550 5.1.1 a", 550)],
            "b@example.org": [PermanentFailure("550 5.2.1 b", 550)],
        }
    )
    queue(outbox, clock, "a@example.org", 1)
    queue(outbox, clock, "c@example.org", 2)  # accepted: b's refusal is not a burst
    queue(outbox, clock, "b@example.org", 3)
    told: list[str] = []

    async def hook(failed: FailedMail) -> None:
        await asyncio.sleep(0)
        told.append(failed.recipient)
        if failed.recipient == "a@example.org":
            raise RuntimeError("admin notification failed")

    sender = OutboxSender(
        outbox, transport, envelope_from=SENDER, clock=clock, rng=FixedRandom(0), on_failed=hook
    )
    assert run_async(sender.run_once()).failed == 2
    assert told == ["a@example.org", "b@example.org"]


def test_an_unexpected_transport_error_is_retried_not_fatal(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport(outcomes={"a@example.org": [KeyError("bug")]})
    message_id = queue(outbox, clock, "a@example.org")
    sender = make_sender(outbox, transport, clock)
    assert run_async(sender.run_once()).retried == 1
    assert "unexpected error" in (outbox.get(message_id).last_error or "")
    clock.set(outbox.get(message_id).next_attempt_at)
    assert run_async(sender.run_once()).sent == 1


def test_a_claim_is_a_lease_that_a_crash_lets_expire(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    message_id = queue(outbox, clock, "anna@example.org")
    lease = timedelta(minutes=10)
    (crashed,) = outbox.claim_due(clock(), lease, 10)  # a sender claimed it, then died
    assert crashed.attempts == 1
    sender = make_sender(outbox, transport, clock, lease=lease)
    clock.advance(lease - timedelta(seconds=1))
    assert run_async(sender.run_once()).claimed == 0
    clock.advance(timedelta(seconds=1))
    assert run_async(sender.run_once()).sent == 1
    assert outbox.get(message_id).attempts == 2
    assert len(transport.sent) == 1


def test_batches_are_limited_and_oldest_due_first(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    for n in range(5):
        queue(outbox, clock, f"p{n}@example.org", n)
        clock.advance(timedelta(seconds=1))
    outbox.get("<m0.p0@example.org>").next_attempt_at = clock()  # due last
    sender = make_sender(outbox, transport, clock, batch_size=2)
    assert run_async(sender.run_once()).claimed == 2
    assert run_async(sender.run_once()).claimed == 2
    assert run_async(sender.run_once()).claimed == 1
    assert [r for _, r, _ in transport.sent] == [
        "p1@example.org",
        "p2@example.org",
        "p3@example.org",
        "p4@example.org",
        "p0@example.org",
    ]


def test_an_unavailable_server_stops_the_pass_and_hands_the_batch_back(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    down = ServerUnavailable("cannot connect to smtp.example.org:587: timed out")
    transport = ScriptedTransport(outcomes={"p0@example.org": [down]})
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(4)]
    sender = make_sender(outbox, transport, clock)
    report = run_async(sender.run_once())
    assert (report.claimed, report.sent, report.retried, report.failed) == (4, 0, 4, 0)
    assert transport.attempts == ["p0@example.org"]  # one timeout, not four
    first = outbox.get(ids[0])
    assert first.last_error == str(down)
    for message_id in ids[1:]:
        row = outbox.get(message_id)
        assert row.state == "pending"
        assert row.next_attempt_at == first.next_attempt_at == clock() + timedelta(seconds=15)
        assert row.last_error == f"not tried: {down}"
    clock.set(first.next_attempt_at)
    assert run_async(sender.run_once()).sent == 4


def test_a_long_pass_hands_back_what_it_could_not_send_within_half_its_lease(
    clock: FakeClock,
) -> None:
    outbox = MemoryOutbox()
    lease = timedelta(minutes=10)
    transport = ScriptedTransport(clock=clock, send_takes=timedelta(minutes=3))
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(4)]
    sender = make_sender(outbox, transport, clock, lease=lease)
    report = run_async(sender.run_once())
    assert (report.claimed, report.sent, report.retried) == (4, 2, 2)
    assert [outbox.get(i).state for i in ids] == ["sent", "sent", "pending", "pending"]
    assert outbox.next_due() == clock()  # due again at once, not after the lease
    assert run_async(sender.run_once()).sent == 2
    assert len(transport.sent) == 4


# -- the loop ------------------------------------------------------------------------------------


def test_wake_sends_new_mail_at_once_instead_of_at_the_next_poll(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    sender = make_sender(outbox, transport, clock, poll_interval=3600.0)

    async def scenario() -> None:
        task = asyncio.create_task(sender.run())
        try:
            await wait_until(lambda: sender.wakeup.is_set() is False, message="first pass")
            await asyncio.sleep(0)  # let the loop settle into its wait
            for n in range(3):
                queue(outbox, clock, "anna@example.org", n)
                sender.wake()
                await wait_until(lambda n=n: len(transport.sent) == n + 1, timeout=5)
        finally:
            sender.stop()
            await asyncio.wait_for(task, 5)

    run_async(scenario())
    assert [outbox.get(f"<m{n}.anna@example.org>").state for n in range(3)] == ["sent"] * 3


def test_an_external_wakeup_event_is_used(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport()

    async def scenario() -> None:
        event = asyncio.Event()
        sender = make_sender(outbox, transport, clock, poll_interval=3600.0, wakeup=event)
        task = asyncio.create_task(sender.run())
        try:
            queue(outbox, clock, "anna@example.org")
            event.set()
            await wait_until(lambda: len(transport.sent) == 1, timeout=5)
        finally:
            sender.stop()
            await asyncio.wait_for(task, 5)

    run_async(scenario())


def test_the_loop_sleeps_only_until_the_next_mail_is_due() -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport()

    def real_clock() -> datetime:
        return datetime.now(UTC)

    sender = OutboxSender(
        outbox,
        transport,
        envelope_from=SENDER,
        clock=real_clock,
        rng=FixedRandom(0),
        poll_interval=3600.0,
    )

    async def scenario() -> None:
        row = outbox.add(
            message_id="<later@x>", recipient="a@example.org", raw=b"x", now=real_clock()
        )
        due = real_clock() + timedelta(milliseconds=300)
        row.next_attempt_at = due
        task = asyncio.create_task(sender.run())
        try:
            # Marked sent once the transport has it: wait for the mark, not for the transport.
            await wait_until(lambda: row.sent_at is not None, timeout=10)
            assert row.sent_at is not None and row.sent_at >= due
            assert len(transport.sent) == 1
        finally:
            sender.stop()
            await asyncio.wait_for(task, 5)

    run_async(scenario())


@dataclass
class BrokenOnce:
    """An outbox whose method ``method`` raises its first ``broken`` times (the database was
    unreachable or locked)."""

    inner: MemoryOutbox
    broken: int = 1
    method: str = "claim_due"

    def __getattr__(self, name: str) -> object:
        real = getattr(self.inner, name)
        if name != self.method:
            return real

        def failing(*args: object) -> object:
            if self.broken:
                self.broken -= 1
                raise ConnectionError("database is down")
            return real(*args)

        return failing


def test_the_loop_survives_a_failing_pass(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    queue(outbox, clock, "anna@example.org")
    repository = BrokenOnce(outbox)
    sender = OutboxSender(
        repository,  # type: ignore[arg-type]
        transport,
        envelope_from=SENDER,
        clock=clock,
        rng=FixedRandom(0),
        poll_interval=3600.0,
    )

    async def scenario() -> None:
        task = asyncio.create_task(sender.run())
        try:
            await wait_until(lambda: repository.broken == 0, timeout=5)
            sender.wake()
            await wait_until(lambda: len(transport.sent) == 1, timeout=5)
        finally:
            sender.stop()
            await asyncio.wait_for(task, 5)

    run_async(scenario())
    (failure,) = [r for r in caplog.records if r.getMessage().startswith("outbox pass failed")]
    # Not the database being unavailable (an OperationalError): a bug, logged with its traceback.
    assert failure.getMessage() == "outbox pass failed (1 in a row); retrying in 2s"
    assert failure.exc_info is not None


def test_the_loop_survives_a_database_error_between_passes(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """Asking when the next mail is due can fail too (the database is locked by another
    process); the sender must go on, not end silently and leave every later mail unsent."""
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    repository = BrokenOnce(outbox, method="next_due")
    sender = OutboxSender(
        repository,  # type: ignore[arg-type]
        transport,
        envelope_from=SENDER,
        clock=clock,
        rng=FixedRandom(0),
        poll_interval=3600.0,
    )

    async def scenario() -> None:
        task = asyncio.create_task(sender.run())
        try:
            await wait_until(lambda: repository.broken == 0, timeout=5)
            queue(outbox, clock, "anna@example.org")
            sender.wake()
            await wait_until(lambda: len(transport.sent) == 1, timeout=5)
            assert not task.done()
        finally:
            sender.stop()
            await asyncio.wait_for(task, 5)

    run_async(scenario())
    assert "outbox pass failed (1 in a row)" in caplog.text


def test_a_sent_mail_is_marked_sent_once_the_database_answers_again(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The server took the mail but recording that failed: the sender insists on recording it
    rather than letting the claim run out and sending the mail a second time."""
    outbox = MemoryOutbox()
    transport = ScriptedTransport()
    message_id = queue(outbox, clock, "anna@example.org")
    repository = BrokenOnce(outbox, broken=2, method="mark_sent")
    sender = OutboxSender(
        repository,  # type: ignore[arg-type]
        transport,
        envelope_from=SENDER,
        clock=clock,
        rng=FixedRandom(0),
        poll_interval=3600.0,
    )

    async def scenario() -> None:
        report = await sender.run_once()
        assert report.sent == 1
        clock.advance(timedelta(hours=1))  # long past the claim's lease
        again = await sender.run_once()
        assert again.claimed == 0

    run_async(scenario())
    assert len(transport.sent) == 1
    assert outbox.get(message_id).state == "sent"
    assert f"outbox {message_id} was sent but could not be marked sent" in caplog.text


def test_delivery_errors_carry_the_smtp_code() -> None:
    error = TemporaryFailure("451 later", 451)
    assert isinstance(error, DeliveryError) and error.code == 451
    assert PermanentFailure("x").code is None


def test_a_failed_attempt_is_a_warning_and_repeated_failure_an_error(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    outbox = MemoryOutbox()
    failing = [TemporaryFailure("cannot write to Maildir", None) for _ in range(4)]
    transport = ScriptedTransport(outcomes={"anna@example.org": failing})
    message_id = queue(outbox, clock, "anna@example.org")
    sender = make_sender(outbox, transport, clock)
    levels = []
    for _ in range(4):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="narrator.outbound.sender"):
            run_async(sender.run_once())
        (record,) = [r for r in caplog.records if "attempt" in r.getMessage()]
        levels.append(record.levelname)
        clock.set(outbox.get(message_id).next_attempt_at)
    assert levels == ["WARNING", "WARNING", "ERROR", "ERROR"]


def test_a_5xx_that_names_no_mailbox_is_given_up_on_its_second_refusal(clock: FakeClock) -> None:
    outbox = MemoryOutbox()
    refusals = [PermanentFailure("message refused: 554 transaction failed", 554)] * 2
    transport = ScriptedTransport(outcomes={"anna@example.org": refusals})
    message_id = queue(outbox, clock, "anna@example.org")
    failures: list[FailedMail] = []
    sender = make_sender(outbox, transport, clock, failures=failures)
    assert run_async(sender.run_once()).retried == 1
    assert outbox.get(message_id).state == "pending"
    clock.set(outbox.get(message_id).next_attempt_at)
    assert run_async(sender.run_once()).failed == 1
    assert (outbox.get(message_id).state, outbox.get(message_id).attempts) == ("failed", 2)
    assert [(f.message_id, f.permanent) for f in failures] == [(message_id, True)]


@dataclass
class BurstTransport(ScriptedTransport):
    """Refuses every mail with `refusal` until the clock reaches `until` (a relay in trouble)."""

    refusal: Exception = field(default_factory=lambda: PermanentFailure("554", 554))
    until: datetime = field(default_factory=lambda: datetime.max.replace(tzinfo=UTC))
    burst_clock: FakeClock | None = None

    async def send(self, sender: str, recipient: str, message: bytes) -> None:
        assert self.burst_clock is not None
        if self.burst_clock() < self.until:
            self.attempts.append(recipient)
            raise self.refusal
        await super().send(sender, recipient, message)


@pytest.mark.parametrize(
    ("refusal", "lost"),
    [
        # A refusal naming a mailbox right after an accepted mail is final: the burst's first.
        ("recipient refused: 550 5.1.1 relay says no", 1),
        # One that names no mailbox is confirmed first: nothing is lost.
        ("message refused: 554 5.3.0 system trouble", 0),
    ],
)
def test_a_burst_of_5xx_for_many_recipients_is_a_relay_fault(
    clock: FakeClock, refusal: str, lost: int
) -> None:
    """Issue 24: five seconds of 5xx from the relay failed 20 mails for good."""
    outbox = MemoryOutbox()
    transport = BurstTransport(
        refusal=PermanentFailure(refusal, 550),
        until=clock() + timedelta(seconds=5),
        burst_clock=clock,
    )
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(20)]
    failures: list[FailedMail] = []
    sender = make_sender(outbox, transport, clock, failures=failures)
    report = run_async(sender.run_once())
    assert report.failed == lost  # the third refusal in a row stops the pass: a relay fault
    assert len(transport.attempts) == 3
    for _ in range(5):
        clock.advance(timedelta(minutes=10))
        run_async(sender.run_once())
    states = [outbox.get(i).state for i in ids]
    assert states.count("sent") == 20 - lost and states.count("failed") == lost
    assert len(failures) == lost and all(f.permanent for f in failures)


def test_the_send_journal_keeps_an_accepted_mail_from_being_sent_again(
    clock: FakeClock, tmp_path: Path
) -> None:
    """Issue 24: a mail the server accepted just before a crash (or a database outage) was
    sent again by whoever took its claim back; the journal says it went."""
    outbox = MemoryOutbox()
    journal = SendJournal(tmp_path / "journal")
    transport = ScriptedTransport(outcomes={"anna@example.org": [TemporaryFailure("451", 451)]})
    first = queue(outbox, clock, "anna@example.org", 1)
    second = queue(outbox, clock, "bram@example.org", 2)
    sender = make_sender(outbox, transport, clock, journal=journal)
    run_async(sender.run_once())
    assert [r for _, r, _ in transport.sent] == ["bram@example.org"]
    assert second in journal.accepted(clock())  # written before the row was marked sent
    # Another daemon got a 250 for anna's mail and died before marking it sent.
    journal.record(first, clock())
    clock.set(outbox.get(first).next_attempt_at)
    assert run_async(sender.run_once()).sent == 1
    assert outbox.get(first).state == "sent"
    assert [r for _, r, _ in transport.sent] == ["bram@example.org"]  # not sent twice
    # Files older than yesterday go.
    clock.advance(timedelta(days=3))
    assert journal.accepted(clock()) == frozenset()
    assert list((tmp_path / "journal").iterdir()) == []


# -- a Maildir pass: one group, marked sent together -----------------------------------------------


@dataclass
class WatchedOutbox:
    """An outbox that records each ``mark_sent`` call with what the Maildir's new/ held then."""

    inner: MemoryOutbox
    new: Path
    marked: list[tuple[list[str], set[str]]] = field(default_factory=list)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def mark_sent(self, items: list[OutboxItem], now: datetime) -> datetime | None:
        files = {path.name for path in self.new.iterdir()}
        self.marked.append(([item.message_id for item in items], files))
        return self.inner.mark_sent(items, now)


def maildir_sender(
    outbox: MemoryOutbox | WatchedOutbox | BrokenOnce, path: Path, clock: FakeClock
) -> OutboxSender:
    return OutboxSender(
        outbox,  # type: ignore[arg-type]
        MaildirTransport(path),
        envelope_from=SENDER,
        clock=clock,
        rng=FixedRandom(0.0),
        policy=POLICY,
    )


def test_a_maildir_pass_marks_its_mails_sent_together_once_their_files_are_in_new(
    clock: FakeClock, tmp_path: Path
) -> None:
    outbox = MemoryOutbox()
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(3)]
    watched = WatchedOutbox(outbox, tmp_path / "outbox" / "new")
    report = run_async(maildir_sender(watched, tmp_path / "outbox", clock).run_once())
    assert (report.claimed, report.sent, report.retried, report.failed) == (3, 3, 0, 0)
    assert report.next_due is not None and report.next_due.at is None
    ((marked, files_then),) = watched.marked  # one transaction for the three
    assert marked == ids
    names = {maildir_name(outbox.get(i).recipient, outbox.get(i).raw) for i in ids}
    assert files_then == names  # written (and new/ fsynced) before they were marked
    assert {outbox.get(i).state for i in ids} == {"sent"}


def test_a_maildir_group_is_written_and_marked_sent_in_one_hand_off(
    clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker thread that wrote the group (its files and new/ fsynced) marks it sent: one
    hand-off to a worker thread a pass, not one for the files and another for the mark."""
    outbox = MemoryOutbox()
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(3)]
    claimed = outbox.claim_due(clock(), timedelta(minutes=10), 10)
    watched = WatchedOutbox(outbox, tmp_path / "outbox" / "new")
    sender = maildir_sender(watched, tmp_path / "outbox", clock)
    sender.hand_over(claimed)  # as the daemon's inbox pass does: no claim pass
    handed: list[str] = []
    real_to_thread = asyncio.to_thread

    async def counted(function: Callable[..., object], *args: object) -> object:
        handed.append(getattr(function, "__name__", repr(function)))
        return await real_to_thread(function, *args)

    monkeypatch.setattr(asyncio, "to_thread", counted)
    report = run_async(sender.run_once())
    assert (report.claimed, report.sent) == (3, 3)
    assert len(handed) == 1, handed
    ((marked, files_then),) = watched.marked
    assert marked == ids
    assert files_then == {maildir_name(outbox.get(i).recipient, outbox.get(i).raw) for i in ids}
    assert {outbox.get(i).state for i in ids} == {"sent"}


def test_a_maildir_group_whose_mark_failed_in_its_thread_is_marked_once_the_database_answers(
    clock: FakeClock, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The mark made right after the files fails (the database is down): the sender insists,
    as for any mail sent, and the files are not written again."""
    outbox = MemoryOutbox()
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(2)]
    repository = BrokenOnce(outbox, broken=1, method="mark_sent")
    box = tmp_path / "outbox"
    report = run_async(maildir_sender(repository, box, clock).run_once())
    assert (report.claimed, report.sent) == (2, 2)
    assert {outbox.get(i).state for i in ids} == {"sent"}
    assert len(list((box / "new").iterdir())) == 2
    assert f"outbox {ids[0]}, {ids[1]} were sent but could not be marked sent (1 in a row)" in (
        caplog.text
    )
    assert "(2 in a row)" not in caplog.text


def test_a_mail_claimed_again_is_not_written_twice_and_a_first_claim_is_written(
    clock: FakeClock, tmp_path: Path
) -> None:
    """A sender wrote anna's mail and died before marking it sent (a reader has moved the file
    to cur/ since); the pass that claims it again finds it, and writes bram's new one."""
    outbox = MemoryOutbox()
    anna = queue(outbox, clock, "anna@example.org", 1)
    lease = timedelta(minutes=10)
    (crashed,) = outbox.claim_due(clock(), lease, 10)
    box = tmp_path / "outbox"
    run_async(MaildirTransport(box).send(SENDER, crashed.recipient, crashed.raw))
    (written,) = (box / "new").iterdir()
    written.rename(box / "cur" / (written.name + ":2,S"))
    clock.advance(lease)
    bram = queue(outbox, clock, "bram@example.org", 2)
    report = run_async(maildir_sender(outbox, box, clock).run_once())
    assert (report.claimed, report.sent) == (2, 2)
    assert (outbox.get(anna).state, outbox.get(anna).attempts) == ("sent", 2)
    assert (outbox.get(bram).state, outbox.get(bram).attempts) == ("sent", 1)
    assert [path.name for path in (box / "cur").iterdir()] == [written.name + ":2,S"]
    (new,) = (box / "new").iterdir()
    assert new.name == maildir_name("bram@example.org", outbox.get(bram).raw)


def test_a_maildir_write_error_marks_what_was_written_and_hands_back_the_rest(
    clock: FakeClock, tmp_path: Path
) -> None:
    outbox = MemoryOutbox()
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(3)]
    box = tmp_path / "outbox"
    sender = maildir_sender(outbox, box, clock)
    second = outbox.get(ids[1])
    obstacle = box / "tmp" / maildir_name(second.recipient, second.raw)
    obstacle.mkdir(parents=True)
    report = run_async(sender.run_once())
    assert (report.claimed, report.sent, report.retried, report.failed) == (3, 1, 2, 0)
    first, second, third = (outbox.get(i) for i in ids)
    assert first.state == "sent"
    assert second.state == third.state == "pending"
    assert "cannot write to Maildir" in (second.last_error or "")
    assert (third.last_error or "").startswith("not tried: cannot write to Maildir")
    assert third.next_attempt_at == second.next_attempt_at == clock() + timedelta(seconds=15)
    obstacle.rmdir()
    clock.set(second.next_attempt_at)
    assert run_async(sender.run_once()).sent == 2
    assert len(list((box / "new").iterdir())) == 3


@dataclass
class ScriptedGroupTransport:
    """A transport that takes groups and answers each with the outcomes it is given."""

    outcomes: list[Exception | None]
    groups: list[list[str]] = field(default_factory=list)

    async def send(self, sender: str, recipient: str, message: bytes) -> None:
        raise AssertionError("a group transport is handed groups")

    async def send_group(self, sender: str, mails: Sequence[Delivery]) -> list[Exception | None]:
        self.groups.append([mail.recipient for mail in mails])
        return self.outcomes[: len(mails)]

    async def close(self) -> None:
        pass


def test_every_mail_of_a_group_is_settled_after_a_relay_fault_and_the_untried_handed_back(
    clock: FakeClock,
) -> None:
    """Three recipients refused in a row stop a one-by-one pass (a relay fault); in a group
    every mail was tried already: the refused are retried, the accepted marked sent, and only
    what the transport did not try is handed back."""
    outbox = MemoryOutbox()
    ids = [queue(outbox, clock, f"p{n}@example.org", n) for n in range(6)]
    refused = PermanentFailure("recipient refused: 550 5.1.1 no", 550)
    down = ServerUnavailable("cannot write")
    transport = ScriptedGroupTransport([refused, refused, refused, None, down])
    failures: list[FailedMail] = []
    sender = OutboxSender(
        outbox,
        transport,
        envelope_from=SENDER,
        clock=clock,
        rng=FixedRandom(0.0),
        policy=POLICY,
        on_failed=failures.append,
    )
    report = run_async(sender.run_once())
    assert transport.groups == [[f"p{n}@example.org" for n in range(6)]]
    assert (report.claimed, report.sent, report.retried, report.failed) == (6, 1, 4, 1)
    states = [outbox.get(i).state for i in ids]
    assert states == ["failed", "pending", "pending", "sent", "pending", "pending"]
    assert "relay fault" in (outbox.get(ids[2]).last_error or "")
    assert outbox.get(ids[5]).last_error == f"not tried: {down}"
    assert outbox.get(ids[5]).next_attempt_at == outbox.get(ids[4]).next_attempt_at
    assert [f.message_id for f in failures] == [ids[0]]
