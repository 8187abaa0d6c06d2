"""The outbox in the database: queue_mail (inside the caller's transaction) and SqlOutbox.

``queue_mail`` composes a mail and inserts its outbox row in the caller's transaction, so the
mail is committed together with whatever caused it (a vote, a resolved step) or not at all.

:class:`SqlOutbox` is the sender's :class:`~narrator.outbound.sender.OutboxRepository` on
SQLite and PostgreSQL.  A claim is one short transaction that selects due pending rows and
moves their ``next_attempt_at`` a lease ahead (and counts the attempt); on PostgreSQL the
select uses ``FOR UPDATE SKIP LOCKED`` so that concurrent senders never wait for or take each
other's rows, and a row whose claim committed is no longer due for anyone else.  On SQLite,
``narrator.db`` opens every transaction with ``BEGIN IMMEDIATE``, which serialises the claims.
The later updates check that the row still carries this claim (its attempt count), so a sender
whose lease ran out cannot overwrite the outcome of the sender that took the row over.

A claim also records its sender (``claimed_by``, the daemon's owner id, see
:mod:`narrator.outbound.leases`), so that the claims of a sender that died are taken back at
once (:meth:`SqlOutbox.reclaim_all`, :meth:`SqlOutbox.reclaim_orphaned`) instead of when
their lease runs out; every outcome clears it.

The daemon's inbox pass queues its replies already claimed for the daemon's own sender
(:class:`Claim`): each row is inserted as its first claim would leave it, in the pass's
transaction, and after the commit the sender is handed the claimed mails to deliver
(:meth:`~narrator.outbound.sender.OutboxSender.hand_over`), with no claim of its own.  Should
the daemon die first, the rows are a dead sender's claims like any other, taken back as above.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Connection, bindparam, insert, select, text, update
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.dml import ReturningUpdate

from narrator.config import Config
from narrator.db import core_transaction, transaction
from narrator.models import OutboxMessage, OutboxState
from narrator.outbound.compose import OutgoingMail, compose, domain_of, make_message_id
from narrator.outbound.journal import SendJournal
from narrator.outbound.sender import Clock, FailureHook, OutboxItem, OutboxSender, RetryPolicy
from narrator.outbound.transport import Transport, transport_from_config
from narrator.tables import outbox

log = logging.getLogger("narrator.outbound.outbox")

PENDING = OutboxState.PENDING.value


@dataclass(frozen=True)
class Queued:
    """A mail added to the outbox: its Message-ID and the bytes every attempt sends."""

    message_id: str
    raw: bytes


@dataclass(frozen=True)
class Claimant:
    """A sender that claims the mail a transaction queues: its owner id (recorded with each
    claim, see :mod:`narrator.outbound.leases`) and its lease."""

    owner: int
    lease: timedelta


@dataclass
class Claim:
    """The mail one transaction queued claimed by `claimant` (:func:`queue_mail`): the items
    its sender is handed once the transaction committed (meaningless if it rolled back)."""

    claimant: Claimant
    items: list[OutboxItem] = field(default_factory=list)


@dataclass
class Outgoing:
    """The mail one transaction queued by :func:`queue_mail` ``into`` it: its outbox rows,
    inserted together by :meth:`write` (one execution for all of them, before the commit),
    claimed by `claim`'s sender when there is one (their items are added to ``claim.items``
    as they are written, in the order they were queued)."""

    claim: Claim | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    queued: int = 0  # rows queued into it so far, written or not

    def add(self, row: dict[str, Any]) -> None:
        """Queue one outbox row (written at :meth:`write`)."""
        self.rows.append(row)
        self.queued += 1

    def write(self, connection: Connection) -> None:
        """Insert the rows queued since the last write (the claimed ones returning their ids:
        each is matched to its row by its Message-ID, unique in the outbox)."""
        rows, self.rows = self.rows, []
        if not rows:
            return
        if self.claim is None:
            connection.execute(_QUEUE, rows)
            return
        ids: dict[str, int] = {
            message_id: row_id
            for message_id, row_id in connection.execute(_QUEUE_RETURNING, rows).all()
        }
        self.claim.items.extend(_claimed(ids[row["message_id"]], row) for row in rows)


def _claimed(row_id: int, row: dict[str, Any]) -> OutboxItem:
    """The item of a claimed outbox row inserted as `row` (its id `row_id`)."""
    return OutboxItem(
        id=row_id,
        message_id=row["message_id"],
        recipient=row["recipient"],
        raw=row["raw"],
        kind=row["kind"],
        game_id=row["game_id"],
        attempts=1,
        created_at=row["created_at"],
    )


def queue_mail(
    session: Session,
    mail: OutgoingMail,
    *,
    now: datetime,
    kind: str,
    game_id: int | None = None,
    message_id: str | None = None,
    into: Outgoing | None = None,
) -> Queued:
    """Compose ``mail`` and insert its outbox row in ``session``'s transaction (a Core insert,
    at once; no commit), due at once for any sender; return what was queued.  ``into`` an
    :class:`Outgoing`, the row is inserted later, with the others queued into it
    (:meth:`Outgoing.write`); with the Outgoing's claim, claimed by its claimant, as
    :meth:`SqlOutbox.claim_due` would leave it at ``now`` (its owner id, one attempt, due again
    a lease later), its item added to ``claim.items`` when it is written.

    ``kind`` is the mail's kind for the log and admins (``receipt``, ``error``, ``step``...).
    ``message_id`` fixes the Message-ID (see ``make_message_id``); by default a fresh random one
    in the sender's domain.  The stored bytes, Date included, are what every attempt sends.
    Raises what :func:`~narrator.outbound.compose.compose` raises for unusable input.
    """
    if message_id is None:
        message_id = make_message_id(domain_of(mail.sender.email), uuid.uuid4().hex)
    raw = compose(mail, message_id=message_id, date=now)
    row = {
        "message_id": message_id,
        "game_id": game_id,
        "recipient": mail.to.email,
        "raw": raw,
        "kind": kind,
        "state": PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "created_at": now,
        "claimed_by": None,
    }
    if into is None:
        session.connection().execute(_QUEUE, row)
        return Queued(message_id, raw)
    if into.claim is not None:
        claimant = into.claim.claimant
        row.update(attempts=1, next_attempt_at=now + claimant.lease, claimed_by=claimant.owner)
    into.add(row)
    return Queued(message_id, raw)


class SqlOutbox:
    """The outbox table as an OutboxRepository (one committed transaction per call)."""

    def __init__(self, factory: sessionmaker[Session], *, owner: int | None = None) -> None:
        """``owner``: the id recorded with each claim (None: the claim is left to its lease)."""
        self._factory = factory
        self._owner = owner

    def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[OutboxItem]:
        """See :meth:`OutboxRepository.claim_due`."""
        with core_transaction(self._factory) as connection:
            due = _DUE_FOR_UPDATE if connection.dialect.name == "postgresql" else _DUE
            rows = connection.execute(due, {"now": now, "limit": limit}).all()
            if not rows:
                return []
            connection.execute(
                _CLAIM,
                {"ids": [row.id for row in rows], "until": now + lease, "owner": self._owner},
            )
            return [_item(row) for row in rows]

    def mark_sent(self, items: Sequence[OutboxItem], now: datetime) -> datetime | None:
        """See :meth:`OutboxRepository.mark_sent` (recorded even if the lease ran out)."""
        with core_transaction(self._factory) as connection:
            if len(items) == 1:
                marked = connection.execute(_SENT_ONE, {"row": items[0].id, "now": now}).all()
            else:
                ids = [item.id for item in items]
                marked = connection.execute(_SENT, {"rows": ids, "now": now}).all()
            done = {row_id for row_id, _ in marked}
            # Each marked row carries when the next other mail is due: one statement, not a
            # second select, for a group sent (nothing marked: asked of the table).
            due = marked[0][1] if marked else connection.scalar(_NEXT_DUE)
        for item in items:
            if item.id not in done:
                log.warning("outbox %s was sent but was no longer pending", item.message_id)
        return due

    def mark_retry(self, item: OutboxItem, next_attempt_at: datetime, error: str) -> None:
        """See :meth:`OutboxRepository.mark_retry`."""
        self._finish(item, next_attempt_at=next_attempt_at, last_error=error, claimed_by=None)

    def mark_failed(self, item: OutboxItem, now: datetime, error: str) -> None:
        """See :meth:`OutboxRepository.mark_failed`."""
        self._finish(item, state=OutboxState.FAILED.value, last_error=error, claimed_by=None)

    def next_due(self) -> datetime | None:
        """See :meth:`OutboxRepository.next_due`."""
        with self._factory() as session:
            return session.connection().scalar(_NEXT_DUE)

    def reclaim_all(self, now: datetime) -> int:
        """Make every claim of a sender due again now; return how many rows.

        For SQLite at the daemon's start: one daemon per database file, so every recorded
        claim is a dead process's. (Claims without an owner, ``narrator inject`` writing the
        Maildir, keep their lease.)
        """
        with transaction(self._factory) as session:
            result = session.execute(
                update(OutboxMessage)
                .where(OutboxMessage.state == PENDING, OutboxMessage.claimed_by.is_not(None))
                .values(next_attempt_at=now, claimed_by=None)
            )
        return int(result.rowcount)  # type: ignore[attr-defined]

    def reclaim_orphaned(self, now: datetime, lock_space: int) -> int:
        """PostgreSQL: make due now every claim whose owner no longer holds its advisory lock
        ``(lock_space, owner)`` (its process, or its connection, is gone); return how many."""
        with transaction(self._factory) as session:
            result = session.execute(
                text(
                    "UPDATE outbox SET next_attempt_at = :now, claimed_by = NULL "
                    "WHERE state = :pending AND claimed_by IS NOT NULL "
                    "AND claimed_by NOT IN ("
                    " SELECT objid::bigint FROM pg_locks"
                    " WHERE locktype = 'advisory' AND granted AND objsubid = 2"
                    " AND classid::bigint = :space"
                    " AND database = (SELECT oid FROM pg_database"
                    "                 WHERE datname = current_database()))"
                ),
                {"now": now, "pending": PENDING, "space": lock_space},
            )
        return int(result.rowcount)  # type: ignore[attr-defined]

    def _finish(self, item: OutboxItem, **values: object) -> None:
        with transaction(self._factory) as session:
            result = session.execute(
                update(OutboxMessage)
                .where(
                    OutboxMessage.id == item.id,
                    OutboxMessage.state == PENDING,
                    OutboxMessage.attempts == item.attempts,
                )
                .values(**values)
            )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            log.warning("outbox %s was claimed again meanwhile; left as it is", item.message_id)


def _item(row: Any) -> OutboxItem:
    """The claimed item of a due row (a row of `_DUE`; its attempt counted: the claim adds one)."""
    return OutboxItem(
        id=row.id,
        message_id=row.message_id,
        recipient=row.recipient,
        raw=row.raw,
        kind=row.kind,
        game_id=row.game_id,
        attempts=row.attempts + 1,
        created_at=row.created_at,
    )


# The sender's statements, built once (Core: every mail sent runs them).
_TABLE = outbox  # the table OutboxMessage maps
_QUEUE = insert(_TABLE)
_QUEUE_RETURNING = insert(_TABLE).returning(_TABLE.c.message_id, _TABLE.c.id)
_DUE = (
    select(
        _TABLE.c.id,
        _TABLE.c.message_id,
        _TABLE.c.recipient,
        _TABLE.c.raw,
        _TABLE.c.kind,
        _TABLE.c.game_id,
        _TABLE.c.attempts,
        _TABLE.c.created_at,
    )
    .where(_TABLE.c.state == PENDING, _TABLE.c.next_attempt_at <= bindparam("now"))
    .order_by(_TABLE.c.next_attempt_at, _TABLE.c.id)
    .limit(bindparam("limit"))
)
_DUE_FOR_UPDATE = _DUE.with_for_update(skip_locked=True)
_CLAIM = (
    update(_TABLE)
    .where(_TABLE.c.id.in_(bindparam("ids", expanding=True)))
    .values(
        attempts=_TABLE.c.attempts + 1,
        next_attempt_at=bindparam("until"),
        claimed_by=bindparam("owner"),
    )
)
_NEXT_DUE = (
    select(_TABLE.c.next_attempt_at)
    .where(_TABLE.c.state == PENDING)
    .order_by(_TABLE.c.next_attempt_at)
    .limit(1)
)
_OTHERS = _TABLE.alias("others")


def _marking_sent(marked: ColumnElement[bool], others: ColumnElement[bool]) -> ReturningUpdate[Any]:
    """The mails sent (`marked`) marked, each returning its id and when the next pending mail
    of the `others` is due: the rows it marks are left out, so whether the database's
    RETURNING sees one as it was or as marked (SQLite row by row, PostgreSQL as the statement
    began) does not matter."""
    return (
        update(_TABLE)
        .where(marked, _TABLE.c.state == PENDING)
        .values(
            state=OutboxState.SENT.value,
            sent_at=bindparam("now"),
            last_error=None,
            claimed_by=None,
        )
        .returning(
            _TABLE.c.id,
            select(_OTHERS.c.next_attempt_at)
            .where(_OTHERS.c.state == PENDING, others)
            .order_by(_OTHERS.c.next_attempt_at)
            .limit(1)
            .scalar_subquery()
            .label("next_due"),
        )
    )


_SENT = _marking_sent(
    _TABLE.c.id.in_(bindparam("rows", expanding=True)),
    _OTHERS.c.id.not_in(bindparam("rows", expanding=True)),
)
# One mail (a vote's receipt, the daemon's usual group): no list for SQLAlchemy to render at
# each execution (about 13 µs for each of the two).
_SENT_ONE = _marking_sent(_TABLE.c.id == bindparam("row"), _OTHERS.c.id != bindparam("row"))


def outbox_sender(
    config: Config,
    factory: sessionmaker[Session],
    *,
    clock: Clock,
    rng: random.Random,
    on_failed: FailureHook | None = None,
    wakeup: asyncio.Event | None = None,
    transport: Transport | None = None,
    poll_interval: float = 60.0,
    owner: int | None = None,
) -> OutboxSender:
    """The daemon's sender: the database outbox, the transport of ``[outbound]`` (unless
    `transport` is given), its retry policy and lease, envelope sender ``[narrator] address``.
    Run it with ``await sender.run()``; at shutdown call ``sender.stop()``, await the run task,
    then ``await sender.transport.close()``.

    ``owner`` is recorded with every claim (see :class:`SqlOutbox`).

    Raises ``ConfigError`` when ``[outbound.smtp]`` names a user whose password is not set.
    """
    smtp = config.outbound.mode == "smtp"  # the Maildir transport never writes a mail twice
    return OutboxSender(
        SqlOutbox(factory, owner=owner),
        transport or transport_from_config(config.outbound),
        envelope_from=config.narrator.address,
        clock=clock,
        rng=rng,
        policy=RetryPolicy.from_section(config.outbound),
        lease=config.outbound.lease,
        on_failed=on_failed,
        wakeup=wakeup,
        poll_interval=poll_interval,
        journal=SendJournal(config.outbound.journal) if smtp else None,
    )
