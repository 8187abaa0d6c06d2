"""An in-memory outbox (the OutboxRepository protocol), a test double of the outbox table."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from narrator.outbound.sender import OutboxItem


@dataclass
class MemoryRow:
    """One outbox row as the database would hold it."""

    id: int
    message_id: str
    recipient: str
    raw: bytes
    kind: str
    game_id: int | None
    created_at: datetime
    next_attempt_at: datetime
    state: str = "pending"
    attempts: int = 0
    last_error: str | None = None
    sent_at: datetime | None = None


@dataclass
class MemoryOutbox:
    """Outbox rows in a list, guarded by a lock (the sender calls it from worker threads)."""

    rows: list[MemoryRow] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(
        self,
        *,
        message_id: str,
        recipient: str,
        raw: bytes,
        now: datetime,
        kind: str = "generated",
        game_id: int | None = None,
    ) -> MemoryRow:
        """Queue a mail, due at once; raises ValueError on a duplicate Message-ID."""
        with self._lock:
            if any(row.message_id == message_id for row in self.rows):
                raise ValueError(f"duplicate Message-ID {message_id}")
            row = MemoryRow(
                id=len(self.rows) + 1,
                message_id=message_id,
                recipient=recipient,
                raw=raw,
                kind=kind,
                game_id=game_id,
                created_at=now,
                next_attempt_at=now,
            )
            self.rows.append(row)
            return row

    def get(self, message_id: str) -> MemoryRow:
        """The row with that Message-ID (KeyError if none)."""
        for row in self.rows:
            if row.message_id == message_id:
                return row
        raise KeyError(message_id)

    def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[OutboxItem]:
        """See OutboxRepository.claim_due."""
        with self._lock:
            due = sorted(
                (r for r in self.rows if r.state == "pending" and r.next_attempt_at <= now),
                key=lambda r: (r.next_attempt_at, r.id),
            )[:limit]
            for row in due:
                row.attempts += 1
                row.next_attempt_at = now + lease
            return [_item(row) for row in due]

    def mark_sent(self, items: Sequence[OutboxItem], now: datetime) -> datetime | None:
        """See OutboxRepository.mark_sent."""
        with self._lock:
            for item in items:
                row = self._row(item)
                row.state, row.sent_at = "sent", now
            pending = [r.next_attempt_at for r in self.rows if r.state == "pending"]
            return min(pending, default=None)

    def mark_retry(self, item: OutboxItem, next_attempt_at: datetime, error: str) -> None:
        """See OutboxRepository.mark_retry."""
        with self._lock:
            row = self._row(item)
            row.next_attempt_at, row.last_error = next_attempt_at, error

    def mark_failed(self, item: OutboxItem, now: datetime, error: str) -> None:
        """See OutboxRepository.mark_failed."""
        with self._lock:
            row = self._row(item)
            row.state, row.last_error = "failed", error

    def next_due(self) -> datetime | None:
        """See OutboxRepository.next_due."""
        with self._lock:
            pending = [r.next_attempt_at for r in self.rows if r.state == "pending"]
            return min(pending, default=None)

    def _row(self, item: OutboxItem) -> MemoryRow:
        return next(row for row in self.rows if row.id == item.id)


def _item(row: MemoryRow) -> OutboxItem:
    return OutboxItem(
        id=row.id,
        message_id=row.message_id,
        recipient=row.recipient,
        raw=row.raw,
        kind=row.kind,
        game_id=row.game_id,
        attempts=row.attempts,
        created_at=row.created_at,
    )
