"""The sink contract: Message-ID keys, idempotence, sync state, and the worker's wake-up."""

from __future__ import annotations

import asyncio
import hashlib
from email.parser import BytesHeaderParser
from email.policy import compat32

from hypothesis import given, settings
from hypothesis import strategies as st

from narrator.inbound.sink import (
    MAX_MESSAGE_ID_LENGTH,
    InboxNotifier,
    InboxSink,
    message_id_of,
    plain_message_id_field,
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


def full_reading(raw: bytes) -> tuple[str, bool]:
    """The key of `raw` as message_id_of gave it before its fast path: every field parsed."""
    value = BytesHeaderParser(policy=compat32).parsebytes(raw, headersonly=True).get("Message-ID")
    if isinstance(value, str):
        text = " ".join(value.split())
        start, end = text.find("<"), text.find(">")
        if start != -1 and end > start:
            text = text[start + 1 : end]
        text = text.strip()
        if text and text.isprintable() and len(text) <= MAX_MESSAGE_ID_LENGTH:
            return text, False
    return f"sha256-{hashlib.sha256(raw).hexdigest()}@narrator.invalid", True


_NAMES = st.one_of(
    st.sampled_from([b"Message-ID", b"Message-Id", b"message-id", b"MESSAGE-ID"]),
    st.sampled_from([b"X-Message-ID", b"Message-IDs", b"Subject", b"To", b"Received"]),
    st.sampled_from([b"Subject", b"To", b"Received", b"Date", b"In-Reply-To"]),
)
# Rarer: what the email package reads in its own way (no field name, a non-ASCII byte).
_ODD_NAMES = st.sampled_from([b"Message-ID ", b"", b"Sub\xc3\xa9ject", b"From"])
_TEXT = st.lists(
    st.sampled_from([b"<", b">", b"a", b"Z", b"@", b".", b"x.y", b" ", b"  ", b"\t", b"(c)"]),
    max_size=8,
).map(b"".join)
_ODD_TEXT = st.sampled_from(
    [
        *(b":", b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x7f", b"\xe9", b"<\xc3\xa9@x>"),
        *(b"\r", b"\n", b"From ", b"\rMessage-ID: <cr@x>", b"\r\nmessage-id: <crlf@x>"),
    ]
)


@st.composite
def raw_mails(draw: st.DrawFn) -> bytes:
    """Raw mails of plain and odd header blocks: folded fields, odd spacing, duplicate,
    missing and malformed Message-IDs, CRLF, LF and lone CR line ends, no end of the block."""
    odd = draw(st.integers(0, 2)) == 0  # a third of the mails may hold odd bytes

    def text() -> bytes:
        if odd and draw(st.booleans()):
            return draw(_TEXT) + draw(_ODD_TEXT) + draw(_TEXT)
        return draw(_TEXT)

    lines: list[bytes] = []
    if odd and draw(st.booleans()):
        lines.append(draw(st.sampled_from([b"From someone", b" folded first", b"no colon"])))
    for _ in range(draw(st.integers(0, 6))):
        name = draw(_ODD_NAMES) if odd and draw(st.integers(0, 3)) == 0 else draw(_NAMES)
        spacing = draw(st.sampled_from([b"", b" ", b"  ", b"\t", b" \t "]))
        lines.append(name + b":" + spacing + text())
        for _ in range(draw(st.integers(0, 2))):  # folded
            lines.append(draw(st.sampled_from([b" ", b"\t", b"   "])) + text())
    crlf = draw(st.booleans())
    ends = [b"\r\n", b"\n", b"\r"] if odd else [b"\r\n", b"\n"]
    raw = b""
    for line in lines:
        end = (
            (b"\r\n" if crlf else b"\n") if draw(st.integers(0, 4)) else draw(st.sampled_from(ends))
        )
        raw += line + end
    if draw(st.integers(0, 7)):
        raw += (b"\r\n" if crlf else b"\n") + b"body\r\n\r\nMessage-ID: <in@body>\r\n"
    return raw


@settings(max_examples=1500, deadline=None)
@given(raw_mails())
def test_the_fast_reading_of_the_message_id_is_the_full_one(raw: bytes) -> None:
    assert message_id_of(raw) == full_reading(raw)


def test_a_plain_header_block_is_read_without_the_email_package() -> None:
    for raw in (
        b"Return-Path: <a@x>\r\nSubject: x\r\nMessage-ID: <abc@x>\r\n\r\nbody\r\n",
        b"message-id:\t  <abc@x>  \nSubject: x\n\nbody\n",
        b"Subject: x\r\nMESSAGE-ID:\r\n <abc\r\n\t@x>\r\n\r\n",  # folded
        b"Subject: x\r\nTo: y\n\r\nMessage-ID: <in@body>\r\n",  # in the body: none
    ):
        plain, _ = plain_message_id_field(raw)
        assert plain and message_id_of(raw) == full_reading(raw), raw


def test_a_doubtful_header_block_is_left_to_the_email_package() -> None:
    for raw in (
        b"Message-ID: <a@x>\r\nMessage-ID: <b@x>\r\n\r\n",  # the first one counts
        b"From someone\r\nMessage-ID: <a@x>\r\n\r\n",
        b"Subject: caf\xc3\xa9\r\nMessage-ID: <a@x>\r\n\r\n",
        b"Message-ID: <caf\xc3\xa9@x>\r\n\r\n",  # no str for the package: a synthetic key
        b"Subject: x\rMessage-ID: <a@x>\r\n\r\n",  # a lone CR ends a line
        b"Subject x\r\nMessage-ID: <a@x>\r\n\r\n",  # no field: the body starts
        b"Message-ID: <a@x>\r\n",  # no empty line
    ):
        assert plain_message_id_field(raw) == (False, None)
        assert message_id_of(raw) == full_reading(raw), raw
    assert message_id_of(b"Message-ID: <a@x>\r\nMessage-ID: <b@x>\r\n\r\n")[0] == "a@x"
    assert message_id_of(b"Subject x\r\nMessage-ID: <a@x>\r\n\r\n")[1]  # synthetic


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
