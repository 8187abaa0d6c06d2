"""Inbox sinks for tests: one that fails on demand, wrapping a real one."""

from __future__ import annotations

from dataclasses import dataclass, field

from narrator.inbound.sink import InboxSink, Source, StorageUnavailable, StoreResult


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
