"""The database inbox sink: commits raw mail to the `inbox` table (in a worker thread)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.inbound.sink import Source, StorageUnavailable, StoreResult, message_id_of
from narrator.models import ImapSync, InboxMessage, InboxSource, InboxState

log = logging.getLogger("narrator.inbound.sink")


class DbSink:
    """An :class:`~narrator.inbound.sink.InboxSink` on the narrator database.

    Each call runs one short transaction in a worker thread (``asyncio.to_thread``); the
    ``store_sync`` variants are for synchronous callers such as ``narrator inject``. Database
    errors are raised as :class:`StorageUnavailable` (the receivers answer "try again later").
    ``on_stored`` is called in the event loop after each new message is committed.
    """

    def __init__(
        self,
        factory: sessionmaker[Session],
        *,
        on_stored: Callable[[StoreResult], None] | None = None,
    ) -> None:
        self._factory = factory
        self._on_stored = on_stored

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
        result = await asyncio.to_thread(
            self.store_sync,
            raw,
            source=source,
            mailbox=mailbox,
            uidvalidity=uidvalidity,
            uid=uid,
            envelope_from=envelope_from,
        )
        if not result.duplicate and self._on_stored is not None:
            self._on_stored(result)
        return result

    def store_sync(
        self,
        raw: bytes,
        *,
        source: Source,
        mailbox: str | None = None,
        uidvalidity: int | None = None,
        uid: int | None = None,
        envelope_from: str | None = None,
    ) -> StoreResult:
        """Blocking :meth:`store` (no ``on_stored`` call); raises StorageUnavailable."""
        message_id, _ = message_id_of(raw)
        uid_key = (mailbox, uidvalidity, uid)
        try:
            try:
                with transaction(self._factory) as session:
                    existing = self._find(session, message_id, uid_key)
                    if existing is not None:
                        return StoreResult(existing, message_id, duplicate=True)
                    row = InboxMessage(
                        message_id=message_id,
                        source=InboxSource(source).value,
                        envelope_from=envelope_from,
                        mailbox=mailbox,
                        uidvalidity=uidvalidity,
                        uid=uid,
                        raw=bytes(raw),
                        state=InboxState.NEW.value,
                    )
                    session.add(row)
                    session.flush()
                    inbox_id = row.id
            except IntegrityError:
                # Another process stored the same mail between our look-up and our insert.
                with transaction(self._factory) as session:
                    existing = self._find(session, message_id, uid_key)
                if existing is None:
                    raise
                return StoreResult(existing, message_id, duplicate=True)
        except SQLAlchemyError as error:
            raise StorageUnavailable(f"inbox commit failed: {error}") from error
        return StoreResult(inbox_id, message_id, duplicate=False)

    @staticmethod
    def _find(
        session: Session,
        message_id: str,
        uid_key: tuple[str | None, int | None, int | None],
    ) -> int | None:
        found = session.scalar(select(InboxMessage.id).where(InboxMessage.message_id == message_id))
        mailbox, uidvalidity, uid = uid_key
        if found is None and mailbox is not None and uidvalidity is not None and uid is not None:
            found = session.scalar(
                select(InboxMessage.id).where(
                    InboxMessage.mailbox == mailbox,
                    InboxMessage.uidvalidity == uidvalidity,
                    InboxMessage.uid == uid,
                )
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
