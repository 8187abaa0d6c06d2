"""The outbox sender: delivers due outbox rows, retries with backoff, sets failures aside.

One pass (:meth:`OutboxSender.run_once`) *claims* a batch of due rows through the repository:
a claim counts the attempt and moves the row's next attempt a lease into the future, in its own
committed transaction, so another sender process (or this one after a crash) skips it until
the lease has run out.  The claimed mails are then handed to the transport: one by one (SMTP),
or all at once to a :class:`~narrator.outbound.transport.GroupTransport` (the Maildir: one
hand-off to a worker thread and one directory fsync for the batch), and each mail is:

- accepted: marked sent (only now, once the transport has made it durable; a crash before
  this resends the same bytes, same Message-ID, once the lease expires).  One mail at a time,
  each is marked in a transaction of its own as soon as it is accepted (and written to the send
  journal); a group's accepted mails are marked together, in one transaction: when the
  transport is a :class:`~narrator.outbound.transport.BlockingGroupTransport` (the Maildir)
  and there is no send journal, in the worker thread that wrote the group, right after it, if
  every mail of it was accepted (one hand-off for the group's files and its mark);
- temporary failure: rescheduled with exponential backoff and jitter, or marked failed once it
  has had ``max_attempts`` attempts or would pass ``max_age``;
- permanent failure (5xx for that recipient): marked failed at once;
- server unavailable (unreachable, 421, login refused): rescheduled like a temporary failure,
  and the rest of the batch is handed back for the same time, untried.

Mail queued already claimed for this sender (the daemon's inbox pass queues its replies so,
see :class:`~narrator.outbound.outbox.Claim`) is handed to it by :meth:`OutboxSender.hand_over`
once its transaction committed: the next pass delivers those mails, before it would claim any,
as it would deliver its own claim's (their claim was made when they were queued, and the same
half-lease rule holds); what is still in hand when the sender stops is handed back, due at once.

Every mail marked failed is passed to the ``on_failed`` hook (the daemon tells the admins).
:meth:`OutboxSender.run` repeats passes until stopped, sleeping until the next row is due, the
poll interval ends, or :meth:`OutboxSender.wake` is called because new mail was queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from narrator.config import OutboundSection
from narrator.outages import log_failure
from narrator.outbound.journal import SendJournal
from narrator.outbound.transport import (
    BlockingGroupTransport,
    Delivery,
    DeliveryError,
    GroupTransport,
    Outcome,
    PermanentFailure,
    ServerUnavailable,
    TemporaryFailure,
    Transport,
)

log = logging.getLogger("narrator.outbound.sender")

Clock = Callable[[], datetime]

#: How long a claimed mail is left to its sender (``[outbound] lease``).
DEFAULT_LEASE = timedelta(minutes=10)
# Attempts after which a mail that still fails is logged as an ERROR (before: a WARNING).
REPEATED_FAILURES = 3
# Different recipients refused with a 5xx in a row (no mail accepted between) that make the
# refusals a relay fault: the mails are retried, not given up.
RELAY_BURST = 3
# An enhanced status code about the mailbox or its address (RFC 3463: 5.1.x, 5.2.x).
_MAILBOX_STATUS = re.compile(r"\b5\.[12]\.[0-9]{1,3}\b")


def is_mailbox_refusal(error: DeliveryError) -> bool:
    """Whether a refusal names the recipient's mailbox or address (``550 5.1.1 no such user``):
    final at once.  Other 5xx are given up only when a second attempt is refused too."""
    return _MAILBOX_STATUS.search(str(error)) is not None


@dataclass(frozen=True, slots=True)
class OutboxItem:
    """A claimed outbox row: ``attempts`` already counts the attempt being made now."""

    id: int
    message_id: str
    recipient: str
    raw: bytes
    kind: str
    game_id: int | None
    attempts: int
    created_at: datetime


class OutboxRepository(Protocol):
    """Access to the outbox rows; each method is one committed transaction.

    Methods are blocking; the sender runs them in a worker thread.
    """

    def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[OutboxItem]:
        """Claim up to ``limit`` pending rows due at ``now``, oldest due first.

        Claiming adds one to ``attempts`` and sets the next attempt to ``now + lease``; rows
        claimed by someone else (locked, or with a next attempt in the future) are skipped.
        """
        ...

    def mark_sent(self, items: Sequence[OutboxItem], now: datetime) -> datetime | None:
        """Record that the server accepted these mails (one transaction for all); return what
        :meth:`next_due` returns right after (read in the same transaction: the sender's pass
        asks no more)."""
        ...

    def mark_retry(self, item: OutboxItem, next_attempt_at: datetime, error: str) -> None:
        """Keep the mail pending until ``next_attempt_at``, remembering the error."""
        ...

    def mark_failed(self, item: OutboxItem, now: datetime, error: str) -> None:
        """Set the mail aside as failed (never retried automatically)."""
        ...

    def next_due(self) -> datetime | None:
        """When the earliest pending row is due (possibly in the past), or None if none."""
        ...


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Backoff for temporary failures: doubling from ``first_delay`` up to ``max_delay``.

    The delay after the n-th failed attempt is ``d = min(max_delay, first_delay * 2**(n-1))``,
    jittered uniformly into ``[d/2, d]`` so that many mails failing together spread out.
    A mail is given up (marked failed) after ``max_attempts`` attempts, or when the next
    attempt would be later than ``max_age`` after the mail was queued.
    """

    first_delay: timedelta = timedelta(seconds=30)
    max_delay: timedelta = timedelta(minutes=30)
    max_attempts: int = 100
    max_age: timedelta = timedelta(days=2)

    @classmethod
    def from_section(cls, section: OutboundSection) -> RetryPolicy:
        """The policy of the loaded ``[outbound]`` table (``retry_first_delay``,
        ``retry_max_delay``, ``max_attempts``, ``give_up_after``)."""
        return cls(
            first_delay=section.retry_first_delay,
            max_delay=section.retry_max_delay,
            max_attempts=section.max_attempts,
            max_age=section.give_up_after,
        )

    def delay(self, attempts: int, rng: random.Random) -> timedelta:
        """The wait after ``attempts`` failed attempts (``attempts >= 1``), jitter included."""
        exponent = min(max(attempts - 1, 0), 40)
        full: timedelta = min(self.max_delay, self.first_delay * (2**exponent))
        return full / 2 + full / 2 * rng.random()


@dataclass(frozen=True, slots=True)
class FailedMail:
    """What the admins are told about a mail that will not be delivered."""

    message_id: str
    recipient: str
    kind: str
    game_id: int | None
    attempts: int
    error: str
    permanent: bool  # True: the server refused it (5xx); False: retries ran out


FailureHook = Callable[[FailedMail], Awaitable[None] | None]


@dataclass(frozen=True, slots=True)
class NextDue:
    """When the earliest pending row is due (None: no row is pending), as read by the
    transaction that marked a mail sent."""

    at: datetime | None


@dataclass(frozen=True, slots=True)
class PassReport:
    """What one pass did; `next_due`: when the next row is due, when the pass's last
    transaction marked a mail sent (and read it), else None (not known: ask)."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0
    next_due: NextDue | None = None


@dataclass(slots=True)
class _Tally:
    """What a pass has done so far (see :class:`PassReport`)."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0
    next_due: NextDue | None = None

    def count(self, outcome: str) -> None:
        """Count one mail's outcome (``sent``, ``retry`` or ``failed``)."""
        self.sent += outcome == "sent"
        self.retried += outcome == "retry"
        self.failed += outcome == "failed"


class OutboxSender:
    """Delivers the outbox through a transport; see the module docstring for the rules."""

    def __init__(
        self,
        repository: OutboxRepository,
        transport: Transport,
        *,
        envelope_from: str,
        clock: Clock,
        rng: random.Random,
        policy: RetryPolicy | None = None,
        on_failed: FailureHook | None = None,
        wakeup: asyncio.Event | None = None,
        poll_interval: float = 60.0,
        batch_size: int = 50,
        lease: timedelta = DEFAULT_LEASE,
        journal: SendJournal | None = None,
    ) -> None:
        self._repository = repository
        self._transport = transport
        # A transport that takes the whole batch at once gets it so (see run_once).
        self._group = transport if isinstance(transport, GroupTransport) else None
        # ... and one that writes it in the worker thread that then marks it sent, so.
        self._blocking = transport if isinstance(transport, BlockingGroupTransport) else None
        self._envelope_from = envelope_from
        self._clock = clock
        self._rng = rng
        self._policy = policy or RetryPolicy()
        self._on_failed = on_failed
        self._wakeup = wakeup if wakeup is not None else asyncio.Event()
        self._poll_interval = poll_interval
        self._batch_size = batch_size
        self._lease = lease
        self._stopping = False
        # Recipients refused with a 5xx since the relay last accepted a mail (a burst of them
        # is the relay's fault).
        self._refused_in_a_row: set[str] = set()
        self._journal = journal
        # Mails claimed for this sender when they were queued, to deliver (see hand_over).
        self._handed: list[OutboxItem] = []

    @property
    def transport(self) -> Transport:
        """The transport mail goes out through (the owner closes it after :meth:`run` ended)."""
        return self._transport

    @property
    def wakeup(self) -> asyncio.Event:
        """The event that starts a pass at once when set (set it after queueing mail)."""
        return self._wakeup

    def wake(self) -> None:
        """Start a pass now instead of at the next poll (call after committing new mail)."""
        self._wakeup.set()

    def hand_over(self, items: Sequence[OutboxItem]) -> None:
        """Deliver `items` in the next pass (started now), before any due mail is claimed.

        Each must be claimed for this sender already, by a transaction that committed, as
        :func:`~narrator.outbound.outbox.queue_mail` claims with a ``Claim``: its claim was made
        when it was queued (its ``created_at``), with this sender's lease.
        """
        self._handed.extend(items)
        self._wakeup.set()

    def stop(self) -> None:
        """Make :meth:`run` return after the current pass."""
        self._stopping = True
        self._wakeup.set()

    async def run(self) -> None:
        """Send passes until :meth:`stop` (or cancellation); never raises for a bad pass."""
        errors = 0
        while not self._stopping:
            self._wakeup.clear()
            try:
                report = await self.run_once()
                if report.claimed >= self._batch_size:
                    errors = 0
                    continue  # there is probably more due right now
                delay = await self._seconds_until_due(report.next_due)
            except Exception as error:
                # The database (locked, restarting) or a bug: this pass is lost, not the sender.
                errors += 1
                delay = min(self._poll_interval, 2.0 ** min(errors, 6))
                what = f"outbox pass failed ({errors} in a row)"
                log_failure(log, error, what, f"retrying in {delay:g}s")
                await self._sleep(delay)
                continue
            errors = 0
            if report.claimed == 0 and delay <= 0:
                # Due rows that could not be claimed are another process's: don't spin on them.
                delay = min(1.0, self._poll_interval)
            await self._sleep(delay)
        await self._release_handed()

    async def _release_handed(self) -> None:
        """Hand back, due at once, the mails handed over but not delivered (the sender stops)."""
        left, self._handed = self._handed, []
        if not left:
            return
        try:
            await self._hand_back(left, self._clock(), "requeued: the sender stopped")
        except Exception as error:  # their claim runs out, or the next daemon takes it back
            log_failure(log, error, f"handing back {len(left)} outbox mail(s)", "left claimed")

    async def run_once(self) -> PassReport:
        """Claim and deliver one batch of due mail, or deliver a batch of the mail handed over
        (:meth:`hand_over`) if there is any; returns what happened.

        The pass stops early, handing the rest of its batch back, when the server is unavailable
        (they are rescheduled like the mail that found out) or when half the claim's lease has
        gone by (they are due again at once), so no claim runs out while its mail still waits.
        """
        if self._handed:
            items = self._handed[: self._batch_size]
            del self._handed[: self._batch_size]
            claimed_at = min(item.created_at for item in items)  # claimed when queued
        else:
            claimed_at = self._clock()
            items = await asyncio.to_thread(
                self._repository.claim_due, claimed_at, self._lease, self._batch_size
            )
        if not items:
            return PassReport()
        tally = _Tally(claimed=len(items))
        # A mail claimed again may have been accepted already: the journal says (read only
        # then: a first attempt can't have been).
        journaled: frozenset[str] = frozenset()
        if self._journal is not None and any(item.attempts > 1 for item in items):
            try:
                journaled = await asyncio.to_thread(self._journal.accepted, claimed_at)
            except OSError as error:
                log.warning("the send journal can't be read (%s): sending regardless", error)
        to_send: list[OutboxItem] = []
        for item in items:
            if item.message_id not in journaled:
                to_send.append(item)
                continue
            log.warning(
                "outbox %s to %s was accepted before an interruption (send journal); "
                "not sent again",
                item.message_id,
                item.recipient,
            )
            tally.next_due = await self._record_sent([item])
            tally.sent += 1
        if self._group is not None:
            await self._send_group(self._group, to_send, claimed_at, tally)
        else:
            await self._send_one_by_one(to_send, claimed_at, tally)
        return PassReport(tally.claimed, tally.sent, tally.retried, tally.failed, tally.next_due)

    async def _send_one_by_one(
        self, items: Sequence[OutboxItem], claimed_at: datetime, tally: _Tally
    ) -> None:
        """Hand the mails to the transport in turn; each accepted one is written to the
        journal and marked sent before the next is tried."""
        for index, item in enumerate(items):
            tally.next_due = None
            if self._clock() - claimed_at >= self._lease / 2:
                await self._hand_back(items[index:], self._clock(), "requeued: the pass ran long")
                tally.retried += len(items) - index
                return
            error: Exception | None = None
            try:
                await self._transport.send(self._envelope_from, item.recipient, item.raw)
            except Exception as caught:  # sorted out by _settle, with the bug ones
                error = caught
            try:
                outcome = await self._settle(item, error)
            except ServerUnavailable as stop:
                await self._stop_pass(item, items[index + 1 :], stop, tally)
                return
            if outcome == "sent":
                await self._journal_accepted([item])
                tally.next_due = await self._record_sent([item])
            tally.count(outcome)

    async def _send_group(
        self,
        transport: GroupTransport,
        items: Sequence[OutboxItem],
        claimed_at: datetime,
        tally: _Tally,
    ) -> None:
        """Hand the mails to the transport at once; the accepted ones (durable by then) are
        marked sent together, in one transaction, after the others' outcomes are recorded and
        the mails the transport did not try (it was unavailable) handed back."""
        if not items:
            return
        tally.next_due = None
        if self._clock() - claimed_at >= self._lease / 2:
            await self._hand_back(items, self._clock(), "requeued: the pass ran long")
            tally.retried += len(items)
            return
        mails = [Delivery(item.recipient, item.raw, item.attempts == 1) for item in items]
        marked: NextDue | Exception | None = None  # the group's mark, if made with its files
        if self._blocking is not None and self._journal is None:
            outcomes, marked = await asyncio.to_thread(self._deliver_and_mark, mails, items)
        else:
            outcomes = await transport.send_group(self._envelope_from, mails)
        accepted: list[OutboxItem] = []
        # Every mail with an outcome was tried: each is settled, even after one that stops a
        # one-by-one pass (a relay fault's is retried like it).
        stop: ServerUnavailable | None = None
        resume_at: datetime | None = None
        for item, error in zip(items, outcomes, strict=False):
            if error is None:
                self._accepted(item)
                accepted.append(item)
                tally.count("sent")
                continue
            try:
                outcome = await self._settle(item, error)
            except ServerUnavailable as unavailable:
                stop = unavailable
                resume_at = await self._retry_or_fail(item, str(unavailable))
                outcome = "retry" if resume_at is not None else "failed"
            if outcome == "sent":
                accepted.append(item)
            tally.count(outcome)
        untried = items[len(outcomes) :]  # after the transport's ServerUnavailable
        if untried:
            reason = f"not tried: {stop}" if stop is not None else "not tried"
            await self._hand_back(untried, resume_at or self._clock(), reason)
            tally.retried += len(untried)
        if isinstance(marked, NextDue):
            tally.next_due = marked
        elif accepted:
            await self._journal_accepted(accepted)
            tally.next_due = await self._record_sent(accepted, marked)

    def _deliver_and_mark(
        self, mails: Sequence[Delivery], items: Sequence[OutboxItem]
    ) -> tuple[list[Outcome], NextDue | Exception | None]:
        """In a worker thread: write the group (blocking), then, if every mail was accepted
        (durable now), mark them all sent; the outcomes, and the mark (what its transaction
        read, or its error), or None when not every mail was accepted (the caller marks the
        accepted ones)."""
        assert self._blocking is not None
        outcomes = self._blocking.deliver_group(self._envelope_from, mails)
        if len(outcomes) < len(items) or any(error is not None for error in outcomes):
            return outcomes, None
        try:
            return outcomes, NextDue(self._repository.mark_sent(items, self._clock()))
        except Exception as error:  # reported, and insisted on, by _record_sent
            return outcomes, error

    def _accepted(self, item: OutboxItem) -> None:
        """An attempt accepted (to be marked sent by the caller): no refusals in a row."""
        self._refused_in_a_row.clear()
        log.info("outbox %s sent to %s", item.message_id, item.recipient)

    async def _settle(self, item: OutboxItem, error: Outcome) -> str:
        """Sort out one attempt: ``sent`` (`error` None: accepted, to be marked sent by the
        caller), else ``retry`` or ``failed`` (recorded here); raises ServerUnavailable for
        the pass to stop."""
        if error is None:
            self._accepted(item)
            return "sent"
        if isinstance(error, PermanentFailure):
            self._refused_in_a_row.add(item.recipient)
            if len(self._refused_in_a_row) >= RELAY_BURST:
                # Many recipients refused in a row: the relay is at fault, not they.
                raise ServerUnavailable(
                    f"the relay refused {len(self._refused_in_a_row)} recipients in a row "
                    f"(a relay fault; retried): {error}"
                ) from error
            suspect = not is_mailbox_refusal(error) or len(self._refused_in_a_row) > 1
            if suspect and item.attempts < 2:
                # A 5xx that does not name the mailbox, or that follows another recipient's,
                # may be the relay's passing trouble: a second attempt confirms it first.
                next_attempt = await self._retry_or_fail(item, f"{error} (to be confirmed)")
                return "retry" if next_attempt is not None else "failed"
            log.warning("outbox %s to %s refused: %s", item.message_id, item.recipient, error)
            await self._fail(item, str(error), permanent=True)
            return "failed"
        if isinstance(error, ServerUnavailable):
            raise error
        if isinstance(error, TemporaryFailure):
            next_attempt = await self._retry_or_fail(item, str(error))
            return "retry" if next_attempt is not None else "failed"
        # A bug in a transport must not stop the outbox.
        log.error("outbox %s: unexpected error from the transport", item.message_id, exc_info=error)
        next_attempt = await self._retry_or_fail(item, f"unexpected error: {error!r}")
        return "retry" if next_attempt is not None else "failed"

    async def _stop_pass(
        self,
        item: OutboxItem,
        rest: Sequence[OutboxItem],
        error: ServerUnavailable,
        tally: _Tally,
    ) -> None:
        """The server is unavailable: `item` is retried (or given up), `rest` handed back
        untried for the same time."""
        next_attempt = await self._retry_or_fail(item, str(error))
        tally.count("retry" if next_attempt is not None else "failed")
        await self._hand_back(rest, next_attempt or self._clock(), f"not tried: {error}")
        tally.retried += len(rest)

    async def _journal_accepted(self, items: Sequence[OutboxItem]) -> None:
        """Write the accepted mails in the send journal (if any) before they are marked sent."""
        if self._journal is None:
            return
        for item in items:
            try:
                await asyncio.to_thread(self._journal.record, item.message_id, self._clock())
            except OSError as error:
                log.warning("could not write %s in the send journal: %s", item.message_id, error)

    async def _record_sent(
        self, items: Sequence[OutboxItem], failed: Exception | None = None
    ) -> NextDue:
        """Mark delivered mails sent (one transaction), insisting while the database is
        unavailable; return when the next row is due then.  `failed`: the error of a first
        attempt already made (by the worker thread that wrote them).

        Giving up here would send the mails again once their claim runs out, so the sender
        keeps trying (with backoff) as long as it runs; only a crash or a stop in between
        leaves a resend, of the same bytes with the same Message-ID.
        """
        delay = 0.5
        errors = 0
        while True:
            try:
                if failed is not None:
                    raise failed
                return NextDue(
                    await asyncio.to_thread(self._repository.mark_sent, items, self._clock())
                )
            except Exception as error:
                failed = None
                if self._stopping:
                    raise
                errors += 1
                names = ", ".join(item.message_id for item in items)
                what = (
                    f"outbox {names} {'was' if len(items) == 1 else 'were'} sent but could not "
                    f"be marked sent ({errors} in a row)"
                )
                log_failure(log, error, what, f"trying again in {delay:g}s")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 30.0)

    async def _hand_back(self, items: Sequence[OutboxItem], at: datetime, reason: str) -> None:
        """Hand claimed items back untried, due at ``at``."""
        for item in items:
            await asyncio.to_thread(self._repository.mark_retry, item, at, reason)

    async def _retry_or_fail(self, item: OutboxItem, error: str) -> datetime | None:
        """Reschedule after a temporary failure; None when given up (marked failed)."""
        now = self._clock()
        next_attempt = now + self._policy.delay(item.attempts, self._rng)
        too_old = next_attempt - item.created_at > self._policy.max_age
        if item.attempts >= self._policy.max_attempts or too_old:
            reason = f"gave up after {item.attempts} attempts: {error}"
            log.error("outbox %s to %s %s", item.message_id, item.recipient, reason)
            await self._fail(item, reason, permanent=False)
            return None
        # A mail that could not go out is worth a look; again and again, an operator's.
        level = logging.ERROR if item.attempts >= REPEATED_FAILURES else logging.WARNING
        log.log(
            level,
            "outbox %s to %s: attempt %d failed (%s); next at %s",
            item.message_id,
            item.recipient,
            item.attempts,
            error,
            next_attempt.isoformat(),
        )
        await asyncio.to_thread(self._repository.mark_retry, item, next_attempt, error)
        return next_attempt

    async def _fail(self, item: OutboxItem, error: str, *, permanent: bool) -> None:
        await asyncio.to_thread(self._repository.mark_failed, item, self._clock(), error)
        if self._on_failed is None:
            return
        report = FailedMail(
            message_id=item.message_id,
            recipient=item.recipient,
            kind=item.kind,
            game_id=item.game_id,
            attempts=item.attempts,
            error=error,
            permanent=permanent,
        )
        try:
            result = self._on_failed(report)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("outbox %s: the failure hook raised", item.message_id)

    async def _seconds_until_due(self, known: NextDue | None) -> float:
        """Seconds until the next row is due, at most the poll interval; `known`: as the
        pass's last transaction read it (else the repository is asked)."""
        due = known.at if known is not None else await asyncio.to_thread(self._repository.next_due)
        if due is None:
            return self._poll_interval
        seconds = (due - self._clock()).total_seconds()
        return min(max(seconds, 0.0), self._poll_interval)

    async def _sleep(self, seconds: float) -> None:
        if seconds <= 0 or self._wakeup.is_set():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):  # no task of its own, as wait_for makes
                await self._wakeup.wait()
