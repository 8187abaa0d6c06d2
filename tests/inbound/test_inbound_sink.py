"""The sink contract: Message-ID keys, idempotence, sync state, and the worker's wake-up."""

from __future__ import annotations

import asyncio

from narrator.inbound.sink import (
    MAX_MESSAGE_ID_LENGTH,
    InboxNotifier,
    InboxSink,
    message_id_of,
)
from tests.support.aio import run_async
from tests.support.sinks import MemorySink


def test_message_id_is_normalised() -> None:
    raw = b"Subject: x\r\nMessage-ID:\r\n  <abc.123@Example.org>  (comment)\r\n\r\nbody\r\n"
    assert message_id_of(raw) == ("abc.123@Example.org", False)
    assert message_id_of(b"Message-Id: bare@x\r\n\r\n") == ("bare@x", False)


def test_a_missing_empty_or_absurd_message_id_gets_a_stable_synthetic_one() -> None:
    for raw in (
        b"Subject: x\r\n\r\nbody\r\n",
        b"Message-ID: <>\r\n\r\nbody\r\n",
        b"Message-ID: <" + b"a" * (MAX_MESSAGE_ID_LENGTH + 1) + b"@x>\r\n\r\n",
        b"Message-ID: <nul\x00byte@x>\r\n\r\nbody\r\n",  # no database text column takes NUL
        b"Message-ID: <bell\x07@x>\r\n\r\nbody\r\n",
    ):
        message_id, synthetic = message_id_of(raw)
        assert synthetic and message_id == message_id_of(raw)[0]
        assert message_id.startswith("sha256-") and len(message_id) < 100
    assert message_id_of(b"Subject: a\r\n\r\n")[0] != message_id_of(b"Subject: b\r\n\r\n")[0]


def test_memory_sink_is_idempotent_by_message_id_and_by_imap_uid() -> None:
    sink = MemorySink()
    assert isinstance(sink, InboxSink)

    async def scenario() -> list[bool]:
        imap = {"mailbox": "INBOX", "uidvalidity": 9, "uid": 1}
        results = [
            await sink.store(b"Message-ID: <a@x>\r\n\r\n", source="smtp"),
            await sink.store(b"Message-ID: <a@x>\r\n\r\nresent\r\n", source="inject"),
            await sink.store(b"Message-ID: <b@x>\r\n\r\n", source="imap", **imap),  # type: ignore[arg-type]
            await sink.store(b"Message-ID: <c@x>\r\n\r\n", source="imap", **imap),  # type: ignore[arg-type]
        ]
        return [r.duplicate for r in results]

    assert run_async(scenario()) == [False, True, False, True]
    assert [m.message_id for m in sink.messages] == ["a@x", "b@x"]


def test_a_notification_while_the_worker_is_busy_is_not_lost() -> None:
    async def scenario() -> list[bool]:
        notifier = InboxNotifier()
        seen = [await notifier.wait(timeout=0.01)]  # nothing yet
        notifier.notify()
        notifier.notify()  # coalesced
        seen.append(await notifier.wait(timeout=1))
        seen.append(await notifier.wait(timeout=0.01))
        waiter = asyncio.create_task(notifier.wait(timeout=5))
        await asyncio.sleep(0)
        notifier.notify()
        seen.append(await waiter)
        return seen

    assert run_async(scenario()) == [False, True, False, True]
