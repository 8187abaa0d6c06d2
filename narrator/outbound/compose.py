"""Build outgoing mails as RFC 5322 bytes: UTF-8 plain text (+ HTML), safe headers, stable IDs.

The header block is written here, not by :mod:`email`'s header registry, so that what reaches the
wire is exactly what this module decided: every value is first stripped of control characters
(CR, LF, NUL, Unicode line separators...), then written either as plain printable ASCII or as
RFC 2047 encoded words, and folded with CRLF + space.  A display name or subject can therefore
never start a new header line, and text that merely *looks* like an encoded word (``=?...?=``) is
itself encoded so that a reader decodes it back to the literal text, not to what it pretends to be.
As a last guard, :func:`compose` checks its own output and raises :class:`HeaderInjection` if the
header names are not exactly the ones it wrote (it counts the line breaks of its header block,
and reads the block line by line where a value holds any but its own and its folds).

Headers (interfaces.md §5): ``Message-ID`` (caller-fixed, see :func:`make_message_id`), ``Date``,
``From``, ``To``, ``Subject``, ``Auto-Submitted: auto-replied`` for replies and ``auto-generated``
for everything else, ``In-Reply-To``/``References`` when answering a mail (and ``References``
alone on a game's own mails: the game's thread root), optional ``Reply-To``,
and ``X-Auto-Response-Suppress: All`` (Exchange/Outlook autoresponders honour it).

``Precedence`` is deliberately *not* set.  RFC 3834 (§3.1.8) advises automatic responders not to
use it, as it is non-standard; ``Auto-Submitted`` is the standard signal and every RFC 3834 / Sieve
(RFC 5230) vacation responder honours it, ``X-Auto-Response-Suppress`` covers Exchange.  Setting
``Precedence: bulk`` on the per-player game mails would invite bulk/spam classification of mail
the players need, for little gain: the inbound side ignores auto-replies anyway, so an old
responder that still answers cannot start a loop.

The body is ``text/plain`` alone, or ``multipart/alternative`` (plain, then HTML), both UTF-8 and
quoted-printable (7-bit safe, readable for mostly-ASCII text, no overlong lines).  The MIME
boundary is derived from the Message-ID and starts with ``=_``, which quoted-printable text can
never contain, so the same input always gives the same bytes.
"""

from __future__ import annotations

import email.base64mime
import email.header
import email.quoprimime
import email.utils
import hashlib
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

CRLF = "\r\n"
MAX_LINE = 78
MAX_REFERENCES = 10
MAX_WORD = 60  # a longer unbroken word could not be folded under MAX_LINE

# Everything that could end a header line or confuse a reader: C0/C1 controls, DEL, and the
# Unicode line/paragraph separators.  They become spaces before anything else happens.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SPACES = re.compile(r"\s+")
# RFC 5322 atext (for dot-atom local parts and unquoted display names).
_ATEXT = r"A-Za-z0-9!#$%&'*+/=?^_`{|}~\-"
_DOT_ATOM = rf"[{_ATEXT}]+(?:\.[{_ATEXT}]+)*"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = rf"(?:{_LABEL}\.)*{_LABEL}"
_ADDR_SPEC = re.compile(rf"{_DOT_ATOM}@{_DOMAIN}")
_DOMAIN_ONLY = re.compile(_DOMAIN)
_PLAIN_PHRASE = re.compile(rf"[{_ATEXT} ]+")
_MSG_ID = re.compile(r"<[!-;=?-~]+@[!-;=?-~]+>")  # printable ASCII except < and >
_MSG_ID_MAX = 250


class MailKind(StrEnum):
    """Whether a mail answers a player's mail (reply) or comes on the narrator's own (generated)."""

    REPLY = "reply"
    GENERATED = "generated"


class InvalidAddress(ValueError):
    """An address that cannot be written into a header safely (not a plain ASCII addr-spec)."""


class HeaderInjection(RuntimeError):
    """The composed mail's headers are not the ones written: a bug or an attack got through."""


@dataclass(frozen=True, slots=True)
class Address:
    """A mailbox: an ASCII addr-spec and an optional display name (any Unicode)."""

    email: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class OutgoingMail:
    """Everything that makes one outgoing mail, before it gets its Message-ID and Date.

    ``in_reply_to`` is the Message-ID of the mail answered and ``references`` the thread it
    belongs to: the game's root id, then the answered mail's own ``References`` (ids, or the
    raw header text); the composed ``References`` is those followed by ``in_reply_to``, trimmed
    by :func:`trim_references`.  A mail that answers nothing may still carry ``references``
    (the game's root), written without ``In-Reply-To``.  Ids that are not well-formed
    ``<left@right>`` are dropped, since they come from whoever wrote to us.
    """

    sender: Address
    to: Address
    subject: str
    text: str
    html: str | None = None
    kind: MailKind = MailKind.GENERATED
    in_reply_to: str | None = None
    references: Sequence[str] | str = ()
    reply_to: Address | None = None
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    # `text` and `html` already encoded (:func:`encode_content`), when the same text goes to
    # many readers; used only where it is of this very text and HTML.
    content: Content | None = None


@dataclass(frozen=True, slots=True)
class Content:
    """A mail's text and HTML with their quoted-printable bodies, encoded once by
    :func:`encode_content` for every mail that carries them (the village's story of a step
    goes to every player: its parts are not encoded again for each of them)."""

    text: str
    html: str | None
    plain: bytes
    encoded_html: bytes | None


def encode_content(text: str, html: str | None) -> Content:
    """`text` and `html` with their quoted-printable bodies, for :attr:`OutgoingMail.content`."""
    encoded = None if html is None else _quoted_printable(html)
    return Content(text, html, _quoted_printable(text), encoded)


def make_message_id(domain: str, key: str) -> str:
    """Return ``<narrator.HASH@domain>``: the same for the same key, distinct for distinct keys.

    Callers pick a key that names the mail once (e.g. ``"receipt/<inbound id>/<recipient>"`` or a
    random token stored with the outbox row), so a mail rebuilt after a crash keeps its id.
    Raises :class:`InvalidAddress` when ``domain`` is not a plain DNS name.
    """
    domain = domain.strip().lower()
    if not _DOMAIN_ONLY.fullmatch(domain):
        raise InvalidAddress(f"not a domain name: {domain!r}")
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"<narrator.{digest}@{domain}>"


def domain_of(address: str) -> str:
    """Return the domain of an addr-spec (for :func:`make_message_id`)."""
    return check_address(address).rpartition("@")[2]


def check_address(address: str) -> str:
    """Return ``address`` if it is a plain ASCII ``local@domain``; raise :class:`InvalidAddress`."""
    if not isinstance(address, str) or not _ADDR_SPEC.fullmatch(address) or len(address) > 254:
        raise InvalidAddress(f"not a usable mail address: {address!r}")
    return address


def parse_message_ids(value: str | Sequence[str] | None) -> list[str]:
    """Return the well-formed ``<id>`` tokens of a header text or list of ids, in order, unique.

    Bare ids (``abc@host`` without brackets) in a list are accepted and bracketed; anything with
    whitespace, controls or angle brackets inside is dropped.
    """
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    found: list[str] = []
    for item in items:
        if _MSG_ID.fullmatch(item) is not None:
            # One well-formed id (ours; one parsed before): all the search below would find in
            # it, as its inside holds neither "<" nor ">" (a test compares the two ways).
            matches = [item]
        else:
            text = _CONTROL.sub(" ", item)
            stripped = text.strip()
            if not isinstance(value, str) and "<" not in stripped and " " not in stripped:
                text = f"<{stripped}>"
            matches = _MSG_ID.findall(text)
        for match in matches:
            if len(match) <= _MSG_ID_MAX and match not in found:
                found.append(match)
    return found


def trim_references(ids: Sequence[str]) -> list[str]:
    """At most :data:`MAX_REFERENCES` ids: the first (the thread's root) and the last ones.

    RFC 5322 §3.6.4 builds References as the parent's References plus the parent's id; a long
    chain is shortened in the middle (as RFC 5537 §3.4.4 does for news), so that the root that
    holds a conversation together is never the one dropped.
    """
    if len(ids) <= MAX_REFERENCES:
        return list(ids)
    return [ids[0], *ids[len(ids) - MAX_REFERENCES + 1 :]]


def compose(mail: OutgoingMail, *, message_id: str, date: datetime) -> bytes:
    """Return the mail as CRLF-terminated RFC 5322 bytes, ready for SMTP ``DATA``.

    ``message_id`` must be a well-formed ``<left@right>`` id (see :func:`make_message_id`) and
    ``date`` timezone-aware.  Raises :class:`InvalidAddress` for an unusable address,
    ``ValueError`` for a bad id, date or extra header name, and :class:`HeaderInjection` if the
    result does not parse back to the headers written (which would be a bug).
    """
    ids = parse_message_ids(message_id)
    if ids != [message_id]:
        raise ValueError(f"not a well-formed Message-ID: {message_id!r}")
    if date.tzinfo is None or date.utcoffset() is None:
        raise ValueError("the Date of a mail must be timezone-aware")

    headers: list[tuple[str, str]] = [
        ("Message-ID", message_id),
        ("Date", _date_value(date)),
        ("From", _address_value(mail.sender, "From")),
        ("To", _address_value(mail.to, "To")),
    ]
    if mail.reply_to is not None:
        headers.append(("Reply-To", _address_value(mail.reply_to, "Reply-To")))
    headers.append(("Subject", _unstructured_value(mail.subject, "Subject")))
    in_reply_to = parse_message_ids(mail.in_reply_to)[:1]
    references = [r for r in parse_message_ids(mail.references) if r not in in_reply_to]
    references = trim_references(references + in_reply_to)
    if in_reply_to:
        headers.append(("In-Reply-To", in_reply_to[0]))
    if references:
        headers.append(("References", _fold_tokens("References", references)))
    auto = "auto-replied" if mail.kind is MailKind.REPLY else "auto-generated"
    headers.append(("Auto-Submitted", auto))
    headers.append(("X-Auto-Response-Suppress", "All"))
    for name, value in mail.extra_headers.items():
        headers.append((_header_name(name), _unstructured_value(value, name)))

    head = "".join(f"{name}: {value}{CRLF}" for name, value in headers)
    raw = head.encode("ascii") + _body(mail, message_id)
    if not _breaks_as_written(head, len(headers)):  # (never, unless a value smuggles one)
        _verify(raw, [name for name, _ in headers])
    return raw


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _date_value(date: datetime) -> str:
    """What ``email.utils.format_datetime(date)`` writes for a timezone-aware `date` (a test
    compares the two): its fields read directly, without its time tuple and ``strftime``.  An
    offset with seconds (none in use since 1972) is left to it."""
    offset = date.utcoffset()
    seconds = 0 if offset is None else offset.days * 86400 + offset.seconds
    if offset is None or offset.microseconds or seconds % 60:
        return email.utils.format_datetime(date)
    sign, minutes = ("-", -seconds // 60) if seconds < 0 else ("+", seconds // 60)
    return (
        f"{_DAYS[date.weekday()]}, {date.day:02d} {_MONTHS[date.month - 1]} {date.year:04d} "
        f"{date.hour:02d}:{date.minute:02d}:{date.second:02d} {sign}{minutes // 60:02d}"
        f"{minutes % 60:02d}"
    )


_RESERVED = {
    name.lower()
    for name in (
        "Message-ID",
        "Date",
        "From",
        "To",
        "Cc",
        "Bcc",
        "Subject",
        "Reply-To",
        "Sender",
        "In-Reply-To",
        "References",
        "Auto-Submitted",
        "X-Auto-Response-Suppress",
        "MIME-Version",
        "Content-Type",
        "Content-Transfer-Encoding",
        "Return-Path",
        "Received",
    )
}
_FIELD_NAME = re.compile(r"[!-9;-~]{1,76}")


def _header_name(name: str) -> str:
    if not _FIELD_NAME.fullmatch(name) or name.lower() in _RESERVED:
        raise ValueError(f"not an allowed extra header name: {name!r}")
    return name


def _clean(text: str) -> str:
    """Controls and line breaks become single spaces; the result is stripped.

    A printable text (every name and subject but a hostile one) has neither a control nor
    any white space but the ASCII space (Python's printable leaves out every other): only a
    run of spaces would change inside it, so without one it is only stripped, without the
    two substitutions (a test compares the two ways on any text)."""
    if text.isprintable() and "  " not in text:
        return text.strip()
    return _SPACES.sub(" ", _CONTROL.sub(" ", text)).strip()


def _needs_encoding(text: str) -> bool:
    """Non-ASCII, encoded-word look-alikes, and words too long to fold are written encoded
    (a text no longer than MAX_WORD has no word longer: its words are not looked at)."""
    return (
        not text.isascii()
        or "=?" in text
        or "?=" in text
        or (len(text) > MAX_WORD and any(len(word) > MAX_WORD for word in text.split(" ")))
    )


#: What an encoded word adds to its encoded text: ``=?utf-8?b?`` and ``?=``.
_WORD_CHROME = len("=?utf-8?b??=")


def _encoded_words(text: str, name: str) -> str:
    """RFC 2047 encoded words (UTF-8, B or Q, whichever is shorter), folded with CRLF SP.

    What :class:`email.header.Header` writes (a test compares the two).  A text whose word fits
    on the header's line (a subject, a name) is written here as it writes it, by its own
    encoders, without its search for where to break, which encodes the text again for each
    of its characters; a longer one it writes itself.
    """
    data = text.encode("utf-8")
    by_b64 = email.base64mime.header_length(data)
    by_qp = email.quoprimime.header_length(data)
    room = MAX_LINE - len(name) - 2 - _WORD_CHROME
    if min(by_b64, by_qp) <= room and text.splitlines() == [text]:  # one line, no break
        if by_b64 < by_qp:  # the shorter; Q when both are as long (as email.charset chooses)
            return email.base64mime.header_encode(data, charset="utf-8")
        return email.quoprimime.header_encode(data, charset="utf-8")
    header = email.header.Header(text, charset="utf-8", maxlinelen=MAX_LINE, header_name=name)
    return header.encode(linesep=CRLF)


def _unstructured_value(text: str, name: str) -> str:
    text = _clean(text)
    if _needs_encoding(text):
        return _encoded_words(text, name)
    return _fold_tokens(name, text.split(" "))


def _fold_tokens(name: str, tokens: Sequence[str]) -> str:
    """Join tokens with spaces, breaking lines (CRLF SP) before a token that would pass 78."""
    lines: list[str] = []
    line = ""
    width = len(name) + 2
    for token in tokens:
        if line and width + len(line) + 1 + len(token) > MAX_LINE:
            lines.append(line)
            line, width = token, 1
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return (CRLF + " ").join(lines)


def _address_value(address: Address, header: str) -> str:
    addr = check_address(address.email)
    name = _clean(address.name)
    if not name:
        return addr
    if _needs_encoding(name):
        phrase = _encoded_words(name, header)
    elif _PLAIN_PHRASE.fullmatch(name):
        phrase = name
    else:
        phrase = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    last = phrase.rpartition(CRLF)[2]
    width = len(last) if CRLF in phrase else len(header) + 2 + len(last)
    separator = CRLF + " " if width + 3 + len(addr) > MAX_LINE else " "
    return f"{phrase}{separator}<{addr}>"


_PLAIN_HEAD = (
    b'Content-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n'
)
_HTML_HEAD = (
    b'Content-Type: text/html; charset="utf-8"\r\nContent-Transfer-Encoding: quoted-printable\r\n'
)


def _body(mail: OutgoingMail, message_id: str) -> bytes:
    """The MIME headers and body as CRLF bytes (starting with ``MIME-Version``).

    Written directly, byte for byte what :class:`email.message.EmailMessage` with
    ``set_content``/``add_alternative`` and ``email.policy.SMTP`` writes (a test compares
    the two), at a fraction of the cost.
    """
    content = mail.content
    if content is None or content.text != mail.text or content.html != mail.html:
        content = encode_content(mail.text, mail.html)
    plain = content.plain
    if content.encoded_html is None:
        return _PLAIN_HEAD + b"MIME-Version: 1.0\r\n\r\n" + plain
    html = content.encoded_html
    digest = hashlib.sha256(message_id.encode("ascii")).hexdigest()[:24]
    boundary = f"=_narrator_{digest}".encode("ascii")
    return b"".join(
        (
            b"MIME-Version: 1.0\r\nContent-Type: multipart/alternative;\r\n",
            b' boundary="' + boundary + b'"\r\n\r\n',
            b"--" + boundary + b"\r\n" + _PLAIN_HEAD + b"\r\n" + plain,
            b"\r\n--" + boundary + b"\r\n" + _HTML_HEAD + b"\r\n" + html,
            b"\r\n--" + boundary + b"--\r\n",
        )
    )


#: The bytes quoted-printable writes as they are (the "safe" bytes of :mod:`email.quoprimime`:
#: printable ASCII but ``=``, space and tab), and line ends.
_QP_SAFE = bytes(range(ord(" "), ord("~") + 1)).replace(b"=", b"") + b"\t\n"
#: Each byte's escape, ``=XX`` (upper-case hex, as :mod:`email.quoprimime` writes it).
_QP_ESCAPES = tuple(b"=%02X" % n for n in range(256))
_WHITE = (b" ", b"\t")


def _quoted_printable(text: str) -> bytes:
    """UTF-8 quoted-printable lines of at most 78 characters, CRLF-terminated (as ``email``).

    Byte for byte what ``email.quoprimime.body_encode`` writes (a test compares the two on
    every kind of line), without its loop in Python over every character: the bytes to escape
    are found and replaced by searches in C (one per distinct byte: ``=`` first, as every
    escape starts with it), then only the lines quoted-printable breaks (longer than
    MAX_LINE) or ends otherwise (a space or tab at the end) go through its loop, in Python.
    """
    body = _text(text).encode("utf-8")
    unsafe = body.translate(None, _QP_SAFE)  # the bytes not written as they are
    if unsafe:
        if b"=" in unsafe:
            body = body.replace(b"=", b"=3D")
        for byte in set(unsafe).difference(b"="):
            body = body.replace(bytes((byte,)), _QP_ESCAPES[byte])
    lines = body.split(b"\n")  # the last one empty: the body ends with a line end
    # The lines to end as it does: those longer than MAX_LINE (their lengths compared in one
    # pass), and those ending with a space or a tab, if any (a tab is looked for alone first:
    # a search for one byte is quicker than for two, and mails hardly have tabs).
    to_wrap = {n for n, size in enumerate(map(len, lines)) if size > MAX_LINE}
    if b" \n" in body or (b"\t" in body and b"\t\n" in body):
        count, pick = itertools.count, itertools.compress
        to_wrap.update(pick(count(), map(bytes.endswith, lines, itertools.repeat(_WHITE))))
    for n in to_wrap:
        lines[n] = _wrap(lines[n])
    return b"\r\n".join(lines)


def _wrap(line: bytes) -> bytes:
    """One escaped line as ``email.quoprimime.body_encode`` ends it: broken by soft line breaks
    into pieces of at most MAX_LINE characters (never inside an escape), a space or tab at its
    end escaped (or followed by a soft break)."""
    pieces: list[bytes] = []
    start = 0
    last = len(line) - 1 - MAX_LINE
    while start <= last:
        stop = start + MAX_LINE - 1
        if line[stop - 2] == 61:  # "=": an escape cut after its "=" (which breaks the line)
            pieces.append(line[start : stop - 1])
            start = stop - 2
        elif line[stop - 1] == 61:  # an escape cut at its "="
            pieces.append(line[start:stop])
            start = stop - 1
        else:
            pieces.append(line[start:stop] + b"=")
            start = stop
    if line.endswith(_WHITE):
        room = start - last
        if room >= 3:  # room for its escape
            end = _QP_ESCAPES[line[-1]]
        elif room == 2:  # for itself and a soft break
            end = line[-1:] + b"=\r\n"
        else:  # for a soft break only: its escape on a line of its own
            end = b"=\r\n" + _QP_ESCAPES[line[-1]]
        pieces.append(line[start:-1] + end)
    else:
        pieces.append(line[start:])
    return b"\r\n".join(pieces)


def _text(text: str) -> str:
    """Normalise line ends to ``\\n`` (the generator writes CRLF) and end with one."""
    if "\r" in text:  # (a rendered mail has none)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if text.endswith("\n") else text + "\n"


_HEADER_LINE = re.compile(rb"([!-9;-~]+):")
_FOLD = re.compile("\r\n[ \t]")


def _breaks_as_written(head: str, count: int) -> bool:
    """Whether the only line breaks in `head` (the `count` header lines :func:`compose` wrote,
    each ended by its CRLF) are those CRLFs and folds (CRLF then a space or a tab).

    Then :func:`_verify` would find exactly the headers written: every line of the block
    starts with a name written (each is a field name) or with a space or a tab (continuing
    the header above), and what :func:`_body` writes below them is always the same MIME
    headers.  So :func:`compose` reads its header block with :func:`_verify` only when this
    says no (a value with any other CR or LF): a few counts in C instead of a pass in Python
    over every line, the verdict the same (a test checks both on any value).
    """
    unfolded = _FOLD.sub("", head)  # one pass: no fold is made of what another leaves
    return unfolded.count("\r") == unfolded.count("\n") == count


def _verify(raw: bytes, written: list[str]) -> None:
    """Check that `raw`'s header block holds exactly the headers written (and the MIME ones).

    Reads the header block as a mail parser does: lines end at CR, LF or CRLF, the block ends at
    the first empty line, a line starting with a space or a tab continues the header above, and
    every other line must be ``name:``.  (Cheaper than :mod:`email`'s parser; the same verdict.)
    """
    found: list[str] = []
    content_type = b""
    # Only the lines up to the first CRLF CRLF are read (the block ends there at the latest),
    # not the body's: a long mail costs no more to check than a short one.
    end = raw.find(b"\r\n\r\n")
    for line in (raw if end < 0 else raw[: end + 2]).splitlines():
        if not line:
            break
        if line[:1] in (b" ", b"\t") and found:
            continue
        match = _HEADER_LINE.match(line)
        if match is None:
            raise HeaderInjection(f"composed header line is not a header: {line[:60]!r}")
        found.append(match[1].decode("ascii").lower())
        if found[-1] == "content-type":
            content_type = line[match.end() :].strip().lower()
    expected = [name.lower() for name in written]
    expected += ["mime-version", "content-type"]
    if "content-transfer-encoding" in found and not content_type.startswith(b"multipart/"):
        expected.append("content-transfer-encoding")
    if sorted(found) != sorted(expected):
        raise HeaderInjection(f"composed headers {found} differ from those written {expected}")
