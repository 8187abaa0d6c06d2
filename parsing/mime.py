"""Raw RFC 5322 bytes to a :class:`ParsedMail`: headers, sender, subject and the written text.

Parsing uses ``email.policy.compat32`` (about 20x cheaper than ``policy.default``), or, for a
mail of one text/plain part with a plain header block (nearly every vote), reads it as that
parser would, without it (:func:`_plain_mail`); and decodes the few headers it needs
explicitly: RFC 2047 encoded words in any charset Python knows, raw 8-bit headers (UTF-8, else
Windows-1252).  The body is the first readable text: ``text/plain`` preferred, ``text/html``
converted to text when no plain part exists; attachments and attached messages (forwards) are
skipped.  Every input yields a result: oversized input is cut, MIME nesting and part counts are
capped, and what was cut is listed in ``ParsedMail.defects``.
"""

from __future__ import annotations

import binascii
import codecs
import email
import email.errors
import email.parser
import email.utils
import quopri
import re
from collections.abc import Iterable, Sequence
from email.message import Message
from email.policy import compat32
from itertools import islice
from typing import Any

from parsing.autoreply import header_facts
from parsing.html import html_to_text
from parsing.model import ParsedMail
from parsing.quotes import strip_quotes
from parsing.subject import strip_subject_prefixes

MAX_RAW_BYTES = 4 * 1024 * 1024
MAX_HEADERS = 500
MAX_HEADER_FIELDS = 1000  # of ParsedMail.header_fields
MAX_HEADER_CHARS = 8192
MAX_PARTS = 200
MAX_DEPTH = 20
MAX_TEXT_CHARS = 100_000
MAX_HTML_CHARS = 1_000_000

_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=")
_BETWEEN_ENCODED_WORDS = re.compile(r"(\?=)\s+(=\?)")
_FOLD = re.compile(r"\r?\n[ \t]*")
_MESSAGE_ID = re.compile(r"<[^<>\s]{1,500}>")

# Mail software labels Windows-1252 text as Latin-1 or ASCII; browsers decode it as 1252 too.
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "ansi_x3.4-1968": "cp1252",
    "unknown-8bit": "utf-8",
    "x-unknown": "utf-8",
    "utf8": "utf-8",
    "ks_c_5601-1987": "cp949",
    "gb2312": "gb18030",
    "gbk": "gb18030",
}


def parse_mail(raw: bytes) -> ParsedMail:
    """Parse raw mail bytes; never raises for any input (what was cut is in ``defects``)."""
    defects: list[str] = []
    if len(raw) > MAX_RAW_BYTES:
        raw = raw[:MAX_RAW_BYTES]
        defects.append("truncated-input")
    plain = _plain_mail(raw)
    if plain is not None:
        # A mail of one text/plain part with a plain header block: read without the email
        # package's message, as it reads it (see _plain_mail).
        items, params, payload = plain
        headers, header_fields = _read_headers(items, defects)
        content_type, parser_defects = "text/plain", []
        text = decode_bytes(payload, _param(params, "charset") or None)
        full_text = _cut_text(_text_of(text, params), defects)
    else:
        message = _parse_message(raw, defects)
        headers, header_fields = _read_headers(message.raw_items(), defects)
        # The message's Content-Type parameters, read once: its report type, and (a message
        # of one part) its text's charset and format.
        content_type, params = _content_type(message), _params(message)
        full_text = _body_text(message, defects, params)
        parser_defects = message.defects[:20]

    sender_name, sender = _first_address(headers, "from")
    if not sender:
        sender_name, sender = _first_address(headers, "sender")
    reply_to = _first_address(headers, "reply-to")[1]
    if not sender:
        sender = reply_to
    raw_subject = _decode_words(_first(headers, "subject"))
    return ParsedMail(
        sender=sender,
        sender_name=sender_name,
        reply_to=reply_to,
        message_id=_first_message_id(_first(headers, "message-id")),
        in_reply_to=_first_message_id(_first(headers, "in-reply-to")),
        references=tuple(_MESSAGE_ID.findall(_first(headers, "references")))[:100],
        subject=strip_subject_prefixes(raw_subject),
        raw_subject=raw_subject,
        body=strip_quotes(full_text),
        full_text=full_text,
        facts=header_facts(headers, content_type, _param(params, "report-type")),
        defects=tuple(defects) + tuple(type(defect).__name__ for defect in parser_defects),
        header_fields=header_fields,
    )


def _read_headers(
    items: Iterable[tuple[str, Any]], defects: list[str]
) -> tuple[dict[str, list[str]], tuple[tuple[str, str], ...]]:
    """The header fields `items` (in order, as the message stores them: ``raw_items()``) read
    in one pass: decoded, by lower-cased name (the first :data:`MAX_HEADERS`, each cut at
    :data:`MAX_HEADER_CHARS`); and as written (``ParsedMail.header_fields``: names lower-cased
    and values unfolded, no more than :data:`MAX_HEADER_FIELDS`)."""
    headers: dict[str, list[str]] = {}
    fields: list[tuple[str, str]] = []
    read = max(MAX_HEADER_FIELDS, MAX_HEADERS + 1)  # (one more header: there are too many)
    for count, (name, value) in enumerate(islice(items, read)):
        key, text = str(name).strip().lower(), str(value)
        # (A field of one line, most, has no fold to take out: no call of the expression.)
        written = _FOLD.sub(" ", text).strip() if "\n" in text else text.strip()
        if count < MAX_HEADER_FIELDS:
            fields.append((key, written))
        if count >= MAX_HEADERS:
            if count == MAX_HEADERS:
                defects.append("too-many-headers")
            continue
        # A field short and ASCII has nothing to cut or decode: _decoded() would unfold it.
        plain = text.isascii() and len(text) <= MAX_HEADER_CHARS
        headers.setdefault(key, []).append(written if plain else _decoded(text))
    return headers, tuple(fields)


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode ``data`` in its declared charset, falling back to UTF-8, then Windows-1252."""
    name = (charset or "").strip().strip("\"'").lower()
    name = _CHARSET_ALIASES.get(name, name)
    candidates = [name] if name else []
    if name != "utf-8":
        candidates.append("utf-8")
    if name == "cp1252" and data.isascii():
        return data.decode("ascii")
    for candidate in candidates:
        try:
            codecs.lookup(candidate)
            return data.decode(candidate)
        except (LookupError, UnicodeDecodeError, ValueError):
            continue
    return data.decode("cp1252", errors="replace")


def _parse_message(raw: bytes, defects: list[str]) -> Message:
    try:
        return email.message_from_bytes(raw, policy=compat32)
    except RecursionError:
        # Pathological MIME nesting: keep the headers, drop the body.
        defects.append("mime-too-deep")
        return email.parser.BytesHeaderParser(policy=compat32).parsebytes(raw)


# A header field's first line as the email package's parser takes it: a name (printable ASCII
# but the colon; the parser also takes an empty one, as a defect), then its colon.
_FIELD_START = re.compile(r"[!-9;-~]+:")
# Transfer encodings the email package decodes with defects of its own (read by it).
_ENCODINGS_WITH_DEFECTS = ("base64", "x-uuencode", "uuencode", "uue", "x-uue")


def _plain_mail(raw: bytes) -> tuple[list[tuple[str, str]], _Params, bytes] | None:
    """A mail of one text/plain part read as the email package reads it (``message_from_bytes``,
    policy compat32): its header fields as the message stores them (``raw_items()``), its
    Content-Type parameters (``get_params(unquote=False)``) and its payload transfer-decoded
    (``get_payload(decode=True)``); the parser finds no defect in it.  None for any other mail
    (it is read by the parser).

    Such a mail (nearly every vote) has a header block of fields and their continuation lines
    only, every line ending in LF or CRLF, closed by an empty line; no Content-Type, or a plain
    one (see _PLAIN_CONTENT_TYPE) of text/plain; its transfer encoding none, 7bit, 8bit, binary
    or quoted-printable.  The parser reads such a header block line by line into these very
    fields, and the rest of the mail is its payload, as written.  Read here, without the
    parser's line buffer and state machine of parts and the message's look-ups, a vote's parse
    costs 31 us, 64 by the parser; tests/parsing/test_simple_mail.py compares the two.
    """
    text = raw.decode("ascii", "surrogateescape")  # as the parser reads bytes
    lines: list[list[str]] = []  # each field's lines, with their ends
    start = 0
    while True:
        end = text.find("\n", start) + 1
        if end == 0:
            return None  # no empty line closes the header block
        if end - start <= 2 and text[start:end] in ("\n", "\r\n"):
            break
        if text.find("\r", start, end - 2) >= 0:
            return None  # a lone CR (the parser ends a line there too)
        if text[start] in " \t":
            if not lines:
                return None  # a continuation of no field: the parser's defect
            lines[-1].append(text[start:end])
        elif _FIELD_START.match(text, start):
            lines.append([text[start:end]])
        else:
            return None  # a unix From line, a line of no field (the body starts: a defect)
        start = end
    fields: list[tuple[str, str]] = []
    content_type = encoding = None  # the first of each, as Message.get finds it
    for field in lines:
        # What compat32's header_source_parse makes of the field's lines.
        name, value = field[0].split(":", 1)
        value = (value.lstrip(" \t") + "".join(field[1:])).rstrip("\r\n")
        fields.append((name, value))
        key = name.lower()
        if content_type is None and key == "content-type":
            content_type = value
        elif encoding is None and key == "content-transfer-encoding":
            encoding = value
    params: _Params = ()
    if content_type is not None:
        plain = _PLAIN_CONTENT_TYPE.fullmatch(content_type)
        if plain is None or plain[1].lower() != "text/plain":
            return None  # another type (parts, HTML), or one the email package reads
        params = _plain_params(plain)
    payload = raw[end:]  # (the text is the bytes, one character a byte)
    cte = (encoding or "").lower()  # as get_payload compares it
    if not cte.isascii() or cte in _ENCODINGS_WITH_DEFECTS:
        return None
    if cte == "quoted-printable":
        payload = quopri.decodestring(payload)  # what get_payload decodes it by
    return fields, params, payload


def _decoded(value: str) -> str:
    """A header field's value decoded: cut at :data:`MAX_HEADER_CHARS`, raw 8-bit bytes read,
    unfolded."""
    return _unfold(_from_surrogates(value[:MAX_HEADER_CHARS]))


def _from_surrogates(value: str) -> str:
    """Raw 8-bit header bytes arrive as surrogate escapes: decode them as UTF-8 or 1252."""
    if value.isascii():
        return value
    try:
        data = value.encode("ascii", "surrogateescape")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8", "replace")
    return decode_bytes(data, "utf-8")


def _unfold(value: str) -> str:
    return _FOLD.sub(" ", value).strip()


def _first(headers: dict[str, list[str]], name: str) -> str:
    values = headers.get(name)
    return values[0] if values else ""


def _decode_words(value: str) -> str:
    """Decode RFC 2047 encoded words; malformed ones are left as written."""
    if "=?" not in value:
        return value
    value = _BETWEEN_ENCODED_WORDS.sub(r"\1\2", value)
    return _ENCODED_WORD.sub(_decode_word, value)


def _decode_word(match: re.Match[str]) -> str:
    charset, encoding, text = match.group(1), match.group(2).lower(), match.group(3)
    charset = charset.split("*", 1)[0]  # RFC 2231 language suffix
    try:
        if encoding == "b":
            data = binascii.a2b_base64(text + "=" * (-len(text) % 4))
        else:
            data = binascii.a2b_qp(text.encode("ascii", "replace"), header=True)
    except (binascii.Error, ValueError):
        return match.group(0)
    return decode_bytes(data, charset)


def _addresses(values: list[str]) -> list[tuple[str, str]]:
    if not values:
        return []
    try:
        pairs = email.utils.getaddresses(values[:5])
    except (ValueError, IndexError, TypeError, AttributeError):
        return []
    result = []
    for name, address in pairs[:50]:
        address = address.strip().strip("<>").lower()
        result.append((_decode_words(name).strip(), address))
    return result


# Most mail's From: one plain address in angle brackets after a display name of words (letters
# and digits, one space apart), or that address alone.  Such a field is read by this expression
# as the email package's address parser reads it (tests/parsing/test_plain_addresses.py
# compares the two), at a tenth of the cost; any other field is read by the parser.
_ATOM = r"[A-Za-z0-9_+-]+"
_PLAIN_ADDRESS = rf"{_ATOM}(?:\.{_ATOM})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
_PLAIN_FIELD = re.compile(
    rf"(?:(?P<name>[A-Za-z0-9]+(?: [A-Za-z0-9]+)*) )?<(?P<bracketed>{_PLAIN_ADDRESS})>"
    rf"|(?P<bare>{_PLAIN_ADDRESS})"
)


def _first_address(headers: dict[str, list[str]], name: str) -> tuple[str, str]:
    values = headers.get(name, [])
    plain = _PLAIN_FIELD.fullmatch(values[0]) if len(values) == 1 else None
    if plain is not None:
        return plain["name"] or "", (plain["bracketed"] or plain["bare"]).lower()
    for display, address in _addresses(values):
        if address:
            return display, address
    return "", ""


def _first_message_id(value: str) -> str:
    match = _MESSAGE_ID.search(value)
    return match.group(0) if match else value.strip()[:500]


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except (ValueError, TypeError, AttributeError, IndexError):
        return "text/plain"


# A part's Content-Type parameters as the email package reads them (RFC 2231 values are
# (charset, language, value) tuples), in order; none when it has no Content-Type, or one that
# can't be read.
_Params = Sequence[tuple[str, Any]]


# Most mail's Content-Type: a type, then parameters whose values are tokens, or tokens quoted
# (``text/plain; charset="UTF-8"; format=flowed``).  Such a field is read by these expressions
# as ``Message.get_params(unquote=False)`` reads it (tests/parsing/test_mime_params.py compares
# the two) at a third of the cost; any other by the email package.
_TOKEN = r"[A-Za-z0-9._-]+"
_PLAIN_PARAM = rf'; ?({_TOKEN})=(?:"([A-Za-z0-9._-]*)"|({_TOKEN}))'
_PLAIN_CONTENT_TYPE = re.compile(rf"({_TOKEN}/{_TOKEN})((?:{_PLAIN_PARAM})*)")
_PLAIN_PARAMS = re.compile(_PLAIN_PARAM)


def _params(part: Message) -> _Params:
    """The Content-Type parameters of `part`, read once for every one asked (:func:`_param`)."""
    try:
        value = part.get("content-type")
        if value is None:
            return ()  # (get_params finds none)
        plain = _PLAIN_CONTENT_TYPE.fullmatch(value) if isinstance(value, str) else None
        if plain is not None:
            return _plain_params(plain)
        return part.get_params(unquote=False) or ()
    except (ValueError, TypeError, AttributeError, IndexError):
        return ()


def _plain_params(plain: re.Match[str]) -> _Params:
    """The parameters of a Content-Type `_PLAIN_CONTENT_TYPE` matched (`plain`), as get_params
    reads them: the type as written, then each parameter's name lower-cased and its value
    quoted (a token holds nothing to escape)."""
    params = [
        (name.lower(), f'"{quoted or token}"')
        for name, quoted, token in _PLAIN_PARAMS.findall(plain[2])
    ]
    return [(plain[1], ""), *params]


def _param(params: _Params, name: str) -> str:
    """The first parameter `name` (any case) of `params`, unquoted, lower-cased; "" if none
    (what ``Message.get_param`` finds, collapsed to text)."""
    wanted = name.lower()
    value = next((v for k, v in params if k.lower() == wanted), None)
    if isinstance(value, tuple):  # as Message.get_param unquotes an RFC 2231 value
        value = (value[0], value[1], email.utils.unquote(value[2]))
        value = email.utils.collapse_rfc2231_value(value)
    elif value is not None:
        value = email.utils.unquote(value)
    return str(value or "").lower()


def _is_attachment(part: Message) -> bool:
    disposition = str(part.get("content-disposition", "")).split(";", 1)[0].strip().lower()
    return disposition == "attachment"


def _body_text(message: Message, defects: list[str], params: _Params) -> str:
    """The readable text of `message` (whose Content-Type parameters are `params`)."""
    budget = [MAX_PARTS]
    return _cut_text(_part_text(message, 0, budget, defects, params), defects)


def _cut_text(text: str, defects: list[str]) -> str:
    """A mail's text, cut at :data:`MAX_TEXT_CHARS`."""
    if len(text) > MAX_TEXT_CHARS:
        defects.append("truncated-text")
        text = text[:MAX_TEXT_CHARS]
    return text


def _part_text(
    part: Message, depth: int, budget: list[int], defects: list[str], params: _Params | None = None
) -> str:
    """The readable text of ``part``: plain preferred to HTML, attachments skipped (`params`:
    its Content-Type parameters when they were read already)."""
    budget[0] -= 1
    if budget[0] < 0:
        if "too-many-parts" not in defects:
            defects.append("too-many-parts")
        return ""
    if depth > MAX_DEPTH:
        if "mime-too-deep" not in defects:
            defects.append("mime-too-deep")
        return ""
    content_type = _content_type(part)
    if content_type.startswith("message/"):
        return ""  # an attached (forwarded) message, or a delivery report: not the sender's text
    if part.is_multipart():
        children = [child for child in _children(part) if isinstance(child, Message)]
        if content_type == "multipart/alternative":
            return _alternative_text(children, depth, budget, defects)
        if content_type == "multipart/signed" or content_type == "multipart/related":
            children = children[:1]
        texts = [_part_text(child, depth + 1, budget, defects) for child in children]
        return "\n".join(text for text in texts if text.strip())
    if depth > 0 and _is_attachment(part):
        return ""
    if content_type == "text/plain" or content_type.startswith("multipart/"):
        # A multipart whose boundary never appears arrives as one text payload.
        return _decoded_text(part, _params(part) if params is None else params)
    if content_type == "text/html":
        params = _params(part) if params is None else params
        return html_to_text(_decoded_payload(part, params)[:MAX_HTML_CHARS])
    return ""


def _alternative_text(
    children: list[Message], depth: int, budget: list[int], defects: list[str]
) -> str:
    for child in children:
        if _content_type(child) == "text/plain" and not _is_attachment(child):
            budget[0] -= 1
            return _decoded_text(child, _params(child))
    # No plain part: take the richest alternative that has text (the last one, by RFC 2046).
    for child in reversed(children):
        text = _part_text(child, depth + 1, budget, defects)
        if text.strip():
            return text
    return ""


def _children(part: Message) -> list[object]:
    payload = part.get_payload()
    return list(payload[:MAX_PARTS]) if isinstance(payload, list) else []


def _decoded_payload(part: Message, params: _Params) -> str:
    try:
        # Transfer decoding (base64, quoted-printable, uuencode) by the email package, which
        # tolerates broken input; 8-bit bodies come back as their raw bytes.
        data = part.get_payload(decode=True)
    except (ValueError, TypeError, LookupError, AssertionError):
        return ""
    if not isinstance(data, bytes):
        return ""
    return decode_bytes(data, _param(params, "charset") or None)


def _decoded_text(part: Message, params: _Params) -> str:
    return _text_of(_decoded_payload(part, params), params)


def _text_of(text: str, params: _Params) -> str:
    """A text part's decoded `text` (its Content-Type parameters `params`) as read: its line
    ends made LF, unflowed when it is ``format=flowed``."""
    text = text[: MAX_TEXT_CHARS * 2]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _param(params, "format") == "flowed":
        text = unflow(text, delsp=_param(params, "delsp") == "yes")
    return text


def unflow(text: str, *, delsp: bool = False) -> str:
    """Undo RFC 3676 ``format=flowed``: join soft-broken lines, keeping quote depth."""
    result: list[str] = []
    current: str | None = None
    current_depth = 0
    for line in text.split("\n"):
        stripped = line.lstrip(">")
        depth = len(line) - len(stripped)
        if stripped.startswith(" "):
            stripped = stripped[1:]  # space-stuffing
        if current is not None and depth != current_depth:
            result.append(">" * current_depth + (" " if current_depth else "") + current)
            current = None
        soft = stripped.endswith(" ") and stripped != "-- "
        piece = stripped[:-1] if soft and delsp else stripped
        current = piece if current is None else current + piece
        current_depth = depth
        if not soft:
            result.append(">" * depth + (" " if depth else "") + current)
            current = None
    if current is not None:
        result.append(">" * current_depth + (" " if current_depth else "") + current)
    return "\n".join(result)
