"""The narrow interface every receiver writes inbound mail to (its test double: tests/support)."""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Literal, Protocol, runtime_checkable

Source = Literal["smtp", "imap", "inject", "web"]

#: Longest Message-ID kept verbatim; longer ones (hostile or broken mail) are replaced by a hash.
MAX_MESSAGE_ID_LENGTH = 250

_HEADER_PARSER = BytesHeaderParser(policy=compat32)


# The receivers' own size limit follows `[security] max_message_bytes` (the inbox's, which
# answers a too-large mail politely from its headers): they take mail up to twice that (at least
# RECEIVER_SIZE_FLOOR), so mail somewhat over the limit still gets the polite reply; larger mail
# is refused during the SMTP dialogue (552), and the sending server reports that to its sender;
# the IMAP poller fetches only that much of it.
# With max_message_bytes = 0 (no limit) the receivers still stop at UNLIMITED_RECEIVER_SIZE:
# they hold a mail in memory while receiving it.
RECEIVER_SIZE_FLOOR = 1024 * 1024
UNLIMITED_RECEIVER_SIZE = 100 * 1024 * 1024


def receiver_size_limit(max_message_bytes: int) -> int:
    """The largest mail (bytes) the receivers take, for the inbox's ``max_message_bytes``.

    Twice the inbox's limit, at least :data:`RECEIVER_SIZE_FLOOR`;
    :data:`UNLIMITED_RECEIVER_SIZE` when the inbox has none (0).
    """
    if max_message_bytes <= 0:
        return UNLIMITED_RECEIVER_SIZE
    return max(2 * max_message_bytes, RECEIVER_SIZE_FLOOR)


class StorageUnavailable(Exception):
    """The inbox could not commit the message now; the sender should try again later.

    Receivers turn this (and any other exception from :meth:`InboxSink.store`) into a temporary
    failure: SMTP ``451``, no IMAP flag, ``narrator inject`` exit status 75.
    """


@dataclass(frozen=True, slots=True)
class StoreResult:
    """What :meth:`InboxSink.store` did with one message.

    ``inbox_id`` is the inbox row that holds the message (the earlier row for a duplicate);
    ``message_id`` is the key it is stored under (synthetic when the mail had none).
    """

    inbox_id: int
    message_id: str
    duplicate: bool


@runtime_checkable
class InboxSink(Protocol):
    """Durable, idempotent storage for raw inbound mail, plus the IMAP poller's sync state."""

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
        """Commit ``raw`` to the inbox; return only once it is durable.

        A message whose Message-ID (see :func:`message_id_of`) or IMAP ``(mailbox, uidvalidity,
        uid)`` is already stored is reported as a duplicate and not stored again.
        ``envelope_from`` is the SMTP envelope sender when known (``""`` for a null sender).
        Raises :class:`StorageUnavailable` (or another exception) when it could not commit.
        """
        ...

    async def has_message_id(self, message_id: str) -> bool:
        """Return whether a message with this (normalised) Message-ID is stored."""
        ...

    async def imap_last_uid(self, mailbox: str, uidvalidity: int) -> int | None:
        """Return the highest UID handled in ``mailbox`` under ``uidvalidity``, or None if never
        synced under that UIDVALIDITY."""
        ...

    async def set_imap_last_uid(self, mailbox: str, uidvalidity: int, uid: int) -> None:
        """Durably record that every UID up to ``uid`` in ``(mailbox, uidvalidity)`` is handled."""
        ...


def message_id_of(raw: bytes) -> tuple[str, bool]:
    """Return ``(message_id, is_synthetic)`` for a raw RFC 5322 message.

    The Message-ID is the first ``Message-ID`` header with surrounding angle brackets and white
    space removed. A message without one (or with an absurdly long one, or one holding control
    characters such as NUL, which no database text column takes) gets a stable synthetic id
    derived from a SHA-256 of its bytes, so storing the same bytes twice is still a duplicate.
    """
    plain, value = plain_message_id_field(raw)
    if not plain:
        value = _HEADER_PARSER.parsebytes(raw, headersonly=True).get("Message-ID")
    if isinstance(value, str):
        normalised = _normalise_message_id(value)
        if normalised and normalised.isprintable() and len(normalised) <= MAX_MESSAGE_ID_LENGTH:
            return normalised, False
    digest = hashlib.sha256(raw).hexdigest()
    return f"sha256-{digest}@narrator.invalid", True


# A header block as the email package reads it with no doubt: fields of a name (printable
# ASCII but the colon) and a colon, each line ended by LF or CRLF (a lone CR ends a line for
# the package too), continuation lines starting with a space or a tab; no "From " line.
# (Possessive quantifiers: no backtracking, a few microseconds for a mail's header block.)
_PLAIN_HEADER_BLOCK = re.compile(
    rb"(?:[\x21-\x39\x3b-\x7e]++:[^\r\n]*+\r?\n(?:[ \t][^\r\n]*+\r?\n)*+)*+"
)
_FIELD = b"\nmessage-id:"


def plain_message_id_field(raw: bytes) -> tuple[bool, str | None]:
    """Find the Message-ID field in the header block of `raw` alone, when the email package
    could read the block in no other way (a few microseconds, not a parse of every field).

    ``(True, value)``: the block is plain, and `value` is what ``BytesHeaderParser``
    (compat32) gives for ``Message-ID`` but for white space, which :func:`message_id_of`
    folds (None: the mail has none).  ``(False, None)``: in doubt, the package is to be
    asked: no empty line ends the block, or it holds a line that is no field, a non-ASCII
    byte, a lone CR, a "From " line or several Message-ID fields.
    """
    end = raw.find(b"\n\r\n")
    end_lf = raw.find(b"\n\n", 0, len(raw) if end == -1 else end)
    if end_lf != -1:
        end = end_lf
    if end == -1:
        return False, None
    head = raw[: end + 1]  # every line of it ends with LF
    if not head.isascii() or _PLAIN_HEADER_BLOCK.fullmatch(head) is None:
        return False, None
    # In a plain block a line starting with the name and a colon is that field's first line.
    lowered = b"\n" + head.lower()  # lowered[i + 1] is head[i]
    count = lowered.count(_FIELD)
    if count != 1:
        return count == 0, None
    start = lowered.find(_FIELD) + len(_FIELD) - 1  # where its value starts in head
    stop = head.find(b"\n", start)
    while head[stop + 1 : stop + 2] in (b" ", b"\t"):  # a continuation line
        stop = head.find(b"\n", stop + 1)
    return True, head[start : stop + 1].decode("ascii")


def sender_and_body_digest(raw: bytes) -> str:
    """A digest of a mail's From field and body: the same mail delivered twice has the same one,
    another sender's mail that reuses a Message-ID (by mistake or to make it vanish) has not."""
    head, separator, body = raw.partition(b"\r\n\r\n")
    if not separator:
        head, _, body = raw.partition(b"\n\n")
    try:
        sender = str(_HEADER_PARSER.parsebytes(head + b"\r\n\r\n").get("From", "")).strip()
    except Exception:  # any bytes: an unreadable From is no From
        sender = ""
    digest = hashlib.sha256(sender.lower().encode("utf-8", "replace") + b"\0")
    digest.update(body.replace(b"\r\n", b"\n").rstrip())
    return digest.hexdigest()[:16]


def other_mail_key(message_id: str, raw: bytes) -> str:
    """The key a mail is stored under when its Message-ID is already another mail's."""
    return f"{message_id[:MAX_MESSAGE_ID_LENGTH]}~{sender_and_body_digest(raw)}"


def _normalise_message_id(value: str) -> str:
    text = " ".join(value.split())
    start, end = text.find("<"), text.find(">")
    if start != -1 and end > start:
        text = text[start + 1 : end]
    return text.strip()


class InboxNotifier:
    """Wakes the processing worker when new mail was stored.

    Pass :meth:`notify` as a sink's ``on_stored`` callback; the worker loops on :meth:`wait`.
    Notifications that arrive while the worker is busy are not lost: the next ``wait`` returns
    at once.  Since the worker last looked (:meth:`clear`) the notifier counts the wake-ups
    (:attr:`count`: one per mail stored, as the sinks call it once per new mail; a wake-up for
    something else, an admin command or the worker's stop, counts as one too) and keeps the
    moments of the first and the latest (:attr:`first`, :attr:`latest`, ``time.monotonic()``),
    from which the worker decides how long it still gathers mail before its pass.
    """

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.count = 0
        self.first: float | None = None
        self.latest: float | None = None

    def notify(self, _result: StoreResult | None = None) -> None:
        """Signal that there is new mail (safe to call from the event loop only)."""
        now = time.monotonic()
        if self.first is None:
            self.first = now
        self.latest = now
        self.count += 1
        self._event.set()

    def clear(self) -> None:
        """Forget the wake-ups so far: the pass about to start takes the mail they announced
        (each comes after its mail's commit); mail stored from now on wakes the worker again,
        and is counted from naught."""
        self._event.clear()
        self.count = 0
        self.first = self.latest = None

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait until notified (or ``timeout`` seconds); return whether a notification came.
        The count and moments of the wake-ups are kept (until :meth:`clear`)."""
        try:
            # asyncio.timeout, not wait_for: no task of its own for each wait (the worker
            # waits again at each mail stored while it gathers).
            async with asyncio.timeout(timeout):
                await self._event.wait()
        except TimeoutError:
            return False
        self._event.clear()
        return True
