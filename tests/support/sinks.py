"""Inbox sinks for tests: one in memory, and one that fails on demand, wrapping a real one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from narrator.inbound.sink import (
    InboxSink,
    Source,
    StorageUnavailable,
    StoreResult,
    message_id_of,
)


@dataclass
class FlakySink:
    """Wraps an :class:`InboxSink`; the next ``failures`` calls to ``store`` raise
    :class:`StorageUnavailable` (set ``failures`` again at any time). Counts every call."""

    inner: InboxSink
    failures: int = 0
    calls: list[tuple[Source, int | None]] = field(default_factory=list)
    results: list[StoreResult] = field(default_factory=list)

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
        """Fail while ``failures`` is positive, else delegate."""
        self.calls.append((source, uid))
        if self.failures > 0:
            self.failures -= 1
            raise StorageUnavailable("injected storage failure")
        result = await self.inner.store(
            raw,
            source=source,
            mailbox=mailbox,
            uidvalidity=uidvalidity,
            uid=uid,
            envelope_from=envelope_from,
        )
        self.results.append(result)
        return result

    async def has_message_id(self, message_id: str) -> bool:
        """Delegate."""
        return await self.inner.has_message_id(message_id)

    async def imap_last_uid(self, mailbox: str, uidvalidity: int) -> int | None:
        """Delegate."""
        return await self.inner.imap_last_uid(mailbox, uidvalidity)

    async def set_imap_last_uid(self, mailbox: str, uidvalidity: int, uid: int) -> None:
        """Delegate."""
        await self.inner.set_imap_last_uid(mailbox, uidvalidity, uid)


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message held by :class:`MemorySink`."""

    inbox_id: int
    raw: bytes
    message_id: str
    source: Source
    mailbox: str | None
    uidvalidity: int | None
    uid: int | None
    envelope_from: str | None = None


@dataclass
class MemorySink:
    """An :class:`InboxSink` in memory, for unit tests.

    ``on_stored`` is called (in the event loop) after each new, non-duplicate message is stored:
    the processing worker's wake-up.
    """

    on_stored: Callable[[StoreResult], None] | None = None
    messages: list[StoredMessage] = field(default_factory=list)
    last_uids: dict[tuple[str, int], int] = field(default_factory=dict)
    _by_message_id: dict[str, int] = field(default_factory=dict)
    _by_uid: dict[tuple[str, int, int], int] = field(default_factory=dict)

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
        """Store ``raw`` unless its Message-ID or IMAP UID is already held."""
        message_id, _ = message_id_of(raw)
        uid_key = _uid_key(mailbox, uidvalidity, uid)
        existing = self._by_message_id.get(message_id)
        if existing is None and uid_key is not None:
            existing = self._by_uid.get(uid_key)
        if existing is not None:
            return StoreResult(existing, self.messages[existing - 1].message_id, duplicate=True)
        inbox_id = len(self.messages) + 1
        self.messages.append(
            StoredMessage(
                inbox_id, bytes(raw), message_id, source, mailbox, uidvalidity, uid, envelope_from
            )
        )
        self._by_message_id[message_id] = inbox_id
        if uid_key is not None:
            self._by_uid[uid_key] = inbox_id
        result = StoreResult(inbox_id, message_id, duplicate=False)
        if self.on_stored is not None:
            self.on_stored(result)
        return result

    async def has_message_id(self, message_id: str) -> bool:
        """Return whether a message with this Message-ID is held."""
        return message_id in self._by_message_id

    async def imap_last_uid(self, mailbox: str, uidvalidity: int) -> int | None:
        """Return the recorded last UID of ``(mailbox, uidvalidity)``, or None."""
        return self.last_uids.get((mailbox, uidvalidity))

    async def set_imap_last_uid(self, mailbox: str, uidvalidity: int, uid: int) -> None:
        """Record the last handled UID (never moves backwards)."""
        key = (mailbox, uidvalidity)
        self.last_uids[key] = max(uid, self.last_uids.get(key, 0))


def _uid_key(
    mailbox: str | None, uidvalidity: int | None, uid: int | None
) -> tuple[str, int, int] | None:
    if mailbox is None or uidvalidity is None or uid is None:
        return None
    return (mailbox, uidvalidity, uid)
