"""The database inbox sink: commits raw mail to the `inbox` table (in a worker thread)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, Engine, bindparam, insert, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import core_transaction, driver_transaction, transaction
from narrator.inbound.sink import (
    Source,
    StorageUnavailable,
    StoreResult,
    message_id_of,
    other_mail_key,
    sender_and_body_digest,
)
from narrator.models import ImapSync, InboxMessage, InboxSource, InboxState
from narrator.tables import UtcDateTime, inbox, utcnow

log = logging.getLogger("narrator.inbound.sink")

#: Most messages committed in one transaction by :meth:`DbSink.store` (a group commit).
GROUP_LIMIT = 64


def _copies_are_same(messages: Sequence[Incoming], keys: Sequence[str]) -> bool:
    """Whether the mails of a group that share a Message-ID are copies of one mail."""
    seen: dict[str, str] = {}
    for message, key in zip(messages, keys, strict=True):
        if keys.count(key) == 1:
            continue
        digest = sender_and_body_digest(message.raw)
        if seen.setdefault(key, digest) != digest:
            return False
    return True


class _OneByOne(Exception):
    """A group holds a Message-ID already seen: its mails are stored one at a time."""


@dataclass(frozen=True, slots=True)
class Incoming:
    """One message to store, with what its receiver knows of it."""

    raw: bytes
    source: Source
    mailbox: str | None = None
    uidvalidity: int | None = None
    uid: int | None = None
    envelope_from: str | None = None

    @property
    def uid_key(self) -> tuple[str | None, int | None, int | None]:
        return (self.mailbox, self.uidvalidity, self.uid)


@dataclass
class _Waiting:
    incoming: Incoming
    future: asyncio.Future[StoreResult] = field(repr=False)
    since: float = field(default_factory=time.monotonic)  # when it came (see _commit_waiting)


class DbSink:
    """An :class:`~narrator.inbound.sink.InboxSink` on the narrator database.

    :meth:`store` commits in a worker thread (``asyncio.to_thread``) and groups its callers:
    the messages that arrive while one transaction commits are committed together by the next
    (at most :data:`GROUP_LIMIT`), so many SMTP sessions at once cost one commit and one turn
    at the write lock, not one each, and each caller still returns only once its message is
    committed.  When a group cannot be committed as a whole, each of its messages is tried in
    a transaction of its own, so one bad message costs the others nothing.  The ``store_sync``
    variants are for synchronous callers such as ``narrator inject``.  Database errors are
    raised as :class:`StorageUnavailable` (the receivers answer "try again later").
    ``on_stored`` is called in the event loop after each new message is committed.
    """

    def __init__(
        self,
        factory: sessionmaker[Session],
        *,
        on_stored: Callable[[StoreResult], None] | None = None,
        group_limit: int = GROUP_LIMIT,
    ) -> None:
        self._factory = factory
        self._on_stored = on_stored
        self._group_limit = max(1, group_limit)
        self._waiting: list[_Waiting] = []
        self._committer: asyncio.Task[None] | None = None

    async def store(
        self,
        raw: bytes,
        *,
        source: Source,
        mailbox: str | None = None,
        uidvalidity: int | None = None,
        uid: int | None = None,
        envelope_from: str | None = None,
    ) -> StoreResult:
        """Commit ``raw`` to the inbox (or report the stored duplicate); see InboxSink.store."""
        incoming = Incoming(bytes(raw), source, mailbox, uidvalidity, uid, envelope_from)
        waiting = _Waiting(incoming, asyncio.get_running_loop().create_future())
        self._waiting.append(waiting)
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_waiting())
        # A caller that gives up (its SMTP session ended) cancels its own future only: the
        # commit goes on, for its mail and the rest (no shield: a future less a mail).
        return await waiting.future

    async def _commit_waiting(self) -> None:
        """Commit the waiting messages, a group at a time, until none is left."""
        while self._waiting:
            group = self._waiting[: self._group_limit]
            del self._waiting[: len(group)]
            try:
                # A group's wait for the write lock is counted from its oldest mail's arrival
                # (group[0]), so a mail queued behind a group that waits for another process's
                # lock is answered "try again later" after about the busy timeout, not after
                # the group's timeout and then its own.
                results = await asyncio.to_thread(
                    self.store_many_sync,
                    [w.incoming for w in group],
                    waiting_since=group[0].since,
                )
            except asyncio.CancelledError:  # shutting down: nobody's message is kept waiting
                for waiting in (*group, *self._waiting):
                    waiting.future.cancel()
                self._waiting.clear()
                raise
            except Exception as error:  # every caller must hear of it
                for waiting in group:
                    if not waiting.future.done():
                        waiting.future.set_exception(error)
                continue
            for waiting, result in zip(group, results, strict=True):
                given_up = waiting.future.done()  # its caller gave up (cancelled): nobody hears
                if isinstance(result, BaseException):
                    if not given_up:
                        waiting.future.set_exception(result)
                    continue
                if not given_up:
                    waiting.future.set_result(result)
                if not result.duplicate and self._on_stored is not None:
                    self._on_stored(result)

    def store_many_sync(
        self, messages: Sequence[Incoming], *, waiting_since: float | None = None
    ) -> list[StoreResult | Exception]:
        """Commit `messages` in one transaction; return each one's result, in order.
        `waiting_since`: when the oldest of them came, if they waited before this call (see
        :func:`~narrator.db.core_transaction`).

        A message already stored (or twice in `messages`) is a duplicate.  When the group fails
        (another process stored one of them meanwhile, or one of them cannot be stored), each
        message is stored alone by :meth:`store_sync`, and its error, if any, is its result.
        """
        if len(messages) == 1:
            return [self._result_of(messages[0], waiting_since)]
        keys = [message_id_of(m.raw)[0] for m in messages]
        try:
            with core_transaction(self._factory, waiting_since=waiting_since) as connection:
                found = connection.execute(_IDS_OF, {"keys": sorted(set(keys))})
                known: dict[str | None, int] = {key: inbox_id for key, inbox_id in found}
                if known or not _copies_are_same(messages, keys):
                    # A Message-ID seen before, or two mails under one: the same mail, or
                    # another under the same id?  Decided one mail at a time.
                    raise _OneByOne
                results: list[StoreResult] = []
                rows: dict[str, int] = {}
                for message, key in zip(messages, keys, strict=True):
                    existing = known.get(key)
                    if existing is None and message.uid is not None:
                        existing = self._find_uid(connection, message.uid_key)
                    if existing is not None:
                        results.append(StoreResult(existing, key, duplicate=True))
                        continue
                    rows[key] = self._insert(connection, message, key)
                    known[key] = -1  # a second copy in this group is a duplicate of this one
                    results.append(StoreResult(rows[key], key, duplicate=False))
        except _OneByOne:
            return [self._result_of(m, waiting_since) for m in messages]
        except (OperationalError, InterfaceError) as error:  # the database, not a message
            unavailable = StorageUnavailable(f"inbox commit failed: {error}")
            return [unavailable for _ in messages]
        except SQLAlchemyError as error:
            log.info(
                "inbox: a group of %d could not be committed together (%s); one at a time",
                len(messages),
                type(error).__name__,
            )
            return [self._result_of(m, waiting_since) for m in messages]
        out: list[StoreResult | Exception] = []
        for result, key in zip(results, keys, strict=True):
            if result.inbox_id == -1:  # the second copy of a mail of this group
                out.append(StoreResult(rows[key], key, duplicate=True))
            else:
                out.append(result)
        return out

    def _result_of(self, message: Incoming, waiting_since: float | None) -> StoreResult | Exception:
        try:
            return self.store_sync(
                message.raw,
                source=message.source,
                mailbox=message.mailbox,
                uidvalidity=message.uidvalidity,
                uid=message.uid,
                envelope_from=message.envelope_from,
                waiting_since=waiting_since,
            )
        except Exception as error:  # handed to the caller that stored it
            return error

    @staticmethod
    def _insert(connection: Connection, message: Incoming, message_id: str) -> int:
        """Add `message`'s row (state ``new``) under `message_id`; return its id."""
        key = connection.execute(_INSERT, _row(message, message_id)).inserted_primary_key
        assert key is not None  # an INSERT of one row
        return int(key[0])

    @staticmethod
    def _insert_new(connection: Connection, message: Incoming, message_id: str) -> int | None:
        """Add `message`'s row under `message_id` unless a row holds that Message-ID (or its
        IMAP uid) already, by one statement; return its id, or None (nothing added: the
        caller looks for the row; also on a database without that statement)."""
        statement = _INSERT_NEW.get(connection.dialect.name)
        if statement is None:
            return None
        inserted: int | None = connection.scalar(statement, _row(message, message_id))
        return inserted

    def store_sync(
        self,
        raw: bytes,
        *,
        source: Source,
        mailbox: str | None = None,
        uidvalidity: int | None = None,
        uid: int | None = None,
        envelope_from: str | None = None,
        waiting_since: float | None = None,
    ) -> StoreResult:
        """Blocking :meth:`store` (no ``on_stored`` call); raises StorageUnavailable.
        `waiting_since`: as for :meth:`store_many_sync`.

        A new mail (most are) is inserted by one statement that adds nothing when its
        Message-ID or IMAP uid is stored already (on SQLite run on the driver's connection:
        :func:`_insert_new_by_driver`); only then is the stored row looked up, in a Core
        transaction, and the mail found a copy of it (a duplicate) or another mail under the
        same Message-ID.
        """
        message_id, _ = message_id_of(raw)
        uid_key = (mailbox, uidvalidity, uid)
        incoming = Incoming(bytes(raw), source, mailbox, uidvalidity, uid, envelope_from)
        try:
            inserted = _insert_new_by_driver(
                self._factory.kw["bind"], incoming, message_id, waiting_since
            )
            if inserted is not None:
                return StoreResult(inserted, message_id, duplicate=False)
            try:
                with core_transaction(self._factory, waiting_since=waiting_since) as connection:
                    inserted = self._insert_new(connection, incoming, message_id)
                    if inserted is not None:
                        return StoreResult(inserted, message_id, duplicate=False)
                    existing = self._find(connection, message_id, uid_key)
                    if existing is not None and not self._is_same_mail(connection, existing, raw):
                        # Another sender's mail (or another text) under a Message-ID already
                        # stored: a mail of its own, under a key of its own.
                        message_id = other_mail_key(message_id, raw)
                        existing = self._find(connection, message_id, uid_key)
                    if existing is not None:
                        return StoreResult(existing, message_id, duplicate=True)
                    inbox_id = self._insert(connection, incoming, message_id)
            except IntegrityError:
                # Another process stored the same mail between our look-up and our insert.
                with core_transaction(self._factory) as connection:
                    existing = self._find(connection, message_id, uid_key)
                if existing is None:
                    raise
                return StoreResult(existing, message_id, duplicate=True)
        except SQLAlchemyError as error:
            raise StorageUnavailable(f"inbox commit failed: {error}") from error
        return StoreResult(inbox_id, message_id, duplicate=False)

    @staticmethod
    def _is_same_mail(connection: Connection, inbox_id: int, raw: bytes) -> bool:
        stored = connection.scalar(_RAW_OF, {"id": inbox_id})
        return stored is None or sender_and_body_digest(stored) == sender_and_body_digest(raw)

    @staticmethod
    def _find(
        connection: Connection,
        message_id: str,
        uid_key: tuple[str | None, int | None, int | None],
    ) -> int | None:
        found: int | None = connection.scalar(_ID_OF, {"key": message_id})
        if found is None:
            found = DbSink._find_uid(connection, uid_key)
        return found

    @staticmethod
    def _find_uid(
        connection: Connection, uid_key: tuple[str | None, int | None, int | None]
    ) -> int | None:
        mailbox, uidvalidity, uid = uid_key
        found: int | None = None
        if mailbox is not None and uidvalidity is not None and uid is not None:
            found = connection.scalar(
                _ID_OF_UID, {"mailbox": mailbox, "uidvalidity": uidvalidity, "uid": uid}
            )
        return found

    async def has_message_id(self, message_id: str) -> bool:
        """Return whether a message with this Message-ID is in the inbox."""
        return await asyncio.to_thread(self._has_message_id, message_id)

    def _has_message_id(self, message_id: str) -> bool:
        try:
            with transaction(self._factory) as session:
                found = session.scalar(
                    select(InboxMessage.id).where(InboxMessage.message_id == message_id)
                )
        except SQLAlchemyError as error:
            raise StorageUnavailable(f"inbox look-up failed: {error}") from error
        return found is not None

    async def imap_last_uid(self, mailbox: str, uidvalidity: int) -> int | None:
        """Return the last handled UID of ``mailbox`` under ``uidvalidity`` (None: not synced)."""
        return await asyncio.to_thread(self._imap_last_uid, mailbox, uidvalidity)

    def _imap_last_uid(self, mailbox: str, uidvalidity: int) -> int | None:
        try:
            with transaction(self._factory) as session:
                row = session.get(ImapSync, mailbox)
                if row is None or row.uidvalidity != uidvalidity:
                    return None
                return int(row.last_uid)
        except SQLAlchemyError as error:
            raise StorageUnavailable(f"IMAP sync state look-up failed: {error}") from error

    async def set_imap_last_uid(self, mailbox: str, uidvalidity: int, uid: int) -> None:
        """Record the last handled UID; a new UIDVALIDITY replaces the mailbox's old state."""
        await asyncio.to_thread(self._set_imap_last_uid, mailbox, uidvalidity, uid)

    def _set_imap_last_uid(self, mailbox: str, uidvalidity: int, uid: int) -> None:
        try:
            with transaction(self._factory) as session:
                row = session.get(ImapSync, mailbox, with_for_update=True)
                if row is None:
                    session.add(ImapSync(mailbox=mailbox, uidvalidity=uidvalidity, last_uid=uid))
                elif row.uidvalidity != uidvalidity:
                    log.info(
                        "mailbox %r: UIDVALIDITY %d replaces %d",
                        mailbox,
                        uidvalidity,
                        row.uidvalidity,
                    )
                    row.uidvalidity = uidvalidity
                    row.last_uid = uid
                else:
                    row.last_uid = max(int(row.last_uid), uid)
        except SQLAlchemyError as error:
            raise StorageUnavailable(f"IMAP sync state update failed: {error}") from error


# The sink's statements, built once (Core: every mail received runs them).
_ID_OF = select(inbox.c.id).where(inbox.c.message_id == bindparam("key"))
_ID_OF_UID = select(inbox.c.id).where(
    inbox.c.mailbox == bindparam("mailbox"),
    inbox.c.uidvalidity == bindparam("uidvalidity"),
    inbox.c.uid == bindparam("uid"),
)
_RAW_OF = select(inbox.c.raw).where(inbox.c.id == bindparam("id"))
_IDS_OF = select(inbox.c.message_id, inbox.c.id).where(
    inbox.c.message_id.in_(bindparam("keys", expanding=True))
)
_INSERT = insert(inbox)
# A new mail's row, unless its Message-ID or IMAP uid is stored (either unique key), by dialect.
_INSERT_NEW = {
    name: insert_of(inbox).on_conflict_do_nothing().returning(inbox.c.id)
    for name, insert_of in (("sqlite", sqlite_insert), ("postgresql", postgresql_insert))
}


# A new mail's row on SQLite, written through the driver (see _insert_new_by_driver): the
# columns _row gives and the defaults the Core insert would add (state, attempts, received_at).
_SQLITE_INSERT_NEW = (
    "INSERT INTO inbox (message_id, source, envelope_from, mailbox, uidvalidity, uid, raw, state,"
    " attempts, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)"
    " ON CONFLICT DO NOTHING RETURNING id"
)
# received_at as SQLAlchemy stores it on SQLite (the column's type's own bind processor:
# SQLite's DATETIME always has one, the text it stores).
_sqlite_time = UtcDateTime().bind_processor(sqlite.dialect())
assert _sqlite_time is not None
_SQLITE_TIME: Callable[[datetime], str] = _sqlite_time


def _insert_new_by_driver(
    engine: Engine, message: Incoming, message_id: str, waiting_since: float | None
) -> int | None:
    """On SQLite, add `message`'s row under `message_id` unless a row holds that Message-ID or
    IMAP uid, by the statement run on the sqlite3 connection itself
    (:func:`~narrator.db.driver_transaction`: every mail received runs it before its ``250``,
    mostly after an idle spell, when a Core transaction around it costs twice the driver's
    whole store); return its id, or None (nothing added, or not SQLite: the caller's Core
    transaction decides)."""
    if engine.dialect.name != "sqlite":
        return None
    values = (
        message_id,
        InboxSource(message.source).value,
        message.envelope_from,
        message.mailbox,
        message.uidvalidity,
        message.uid,
        message.raw,
        InboxState.NEW.value,
        _SQLITE_TIME(utcnow()),
    )
    with driver_transaction(engine, waiting_since=waiting_since) as driver:
        found = driver.execute(_SQLITE_INSERT_NEW, values).fetchone()
    return None if found is None else int(found[0])


def _row(message: Incoming, message_id: str) -> dict[str, object]:
    """The inbox row of `message` (state ``new``) under `message_id`."""
    return {
        "message_id": message_id,
        "source": InboxSource(message.source).value,
        "envelope_from": message.envelope_from,
        "mailbox": message.mailbox,
        "uidvalidity": message.uidvalidity,
        "uid": message.uid,
        "raw": message.raw,
        "state": InboxState.NEW.value,
    }
