"""`narrator inject`'s core: store raw messages durably, then hand them to processing (if any)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from narrator.inbound.sink import InboxSink, Source, StoreResult

#: Processes stored inbox rows now (parse, apply, queue replies). Called only after every
#: message was committed; a failure there loses nothing (the rows stay ``new``).
Processor = Callable[[Sequence[StoreResult]], None]


class SyncInboxSink(Protocol):
    """A sink with a blocking store (``DbSink`` has one), for synchronous callers."""

    def store_sync(
        self, raw: bytes, *, source: Source, envelope_from: str | None = None
    ) -> StoreResult: ...


async def inject(raw_messages: Iterable[bytes], sink: InboxSink) -> list[StoreResult]:
    """Store each message with ``source="inject"``, in order; return what happened to each.

    Raises what the sink raises (``StorageUnavailable``) at the first message it could not
    commit; the ones before it stay stored, and storing them again reports duplicates.
    """
    return [await sink.store(raw, source="inject") for raw in raw_messages]


def inject_sync(
    raw_messages: Iterable[bytes],
    sink: SyncInboxSink,
    process: Processor | None = None,
) -> list[StoreResult]:
    """Blocking :func:`inject`, then ``process`` the newly stored messages (not duplicates)."""
    results = [sink.store_sync(raw, source="inject") for raw in raw_messages]
    fresh = [result for result in results if not result.duplicate]
    if process is not None and fresh:
        process(fresh)
    return results
