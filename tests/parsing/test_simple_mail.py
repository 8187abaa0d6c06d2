"""A mail of one text/plain part with a plain header block is read without the email package
(``parsing.mime._plain_mail``): into what its parser's message says of it (its fields, its
Content-Type parameters, its payload), and so to the same ``ParsedMail``; any other mail is
left to the parser."""

from __future__ import annotations

import email
from email.message import Message
from email.policy import compat32
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing import mime, parse_mail


def _by_the_parser(raw: bytes) -> Message:
    return email.message_from_bytes(raw, policy=compat32)


def _as_the_parser_reads_it(raw: bytes) -> None:
    """`_plain_mail` reads `raw` as the parser does: a message of one text/plain part without
    defects, its fields, parameters and decoded payload."""
    read = mime._plain_mail(raw)
    assert read is not None
    fields, params, payload = read
    parsed = _by_the_parser(raw)
    assert fields == list(parsed.raw_items())
    assert parsed.get_content_type() == "text/plain"
    assert list(params) == list(parsed.get_params(unquote=False) or ())
    assert not parsed.is_multipart() and parsed.get_unixfrom() is None
    assert payload == parsed.get_payload(decode=True)
    assert parsed.defects == []


def _parsed_by_the_parser(raw: bytes) -> object:
    """`parse_mail` as it reads every mail by the email package's parser."""
    with mock.patch.object(mime, "_plain_mail", lambda raw: None):
        return parse_mail(raw)


_NAMES = st.sampled_from(
    [
        "Content-Type",
        "Content-Transfer-Encoding",
        "From",
        "To",
        "Subject",
        "Message-ID",
        "Content-Type",
        "content-type",
        "Content-Transfer-Encoding",
        "MIME-Version",
        "Auto-Submitted",
        "X-Loop",
        "List-Id",
        "Return-Path",
        "From ",  # a unix From line, or with the colon a field the parser reads apart
        "",
        "X-Ünicode",
        "Bad Name",
        "A;B",
    ]
)
_VALUES = st.one_of(
    st.sampled_from(
        [
            "text/plain; charset=utf-8",
            'text/plain; charset="iso-8859-1"; format=flowed; delsp=yes',
            "TEXT/HTML",
            "text/html; charset=utf-8",
            'multipart/alternative; boundary="b"',
            "multipart/mixed",
            "message/rfc822",
            "message/delivery-status",
            "quoted-printable",
            "base64",
            "x-uuencode",
            "8bit",
            "Anna <anna@example.net>",
            "=?utf-8?q?Zo=C3=AB?= <zoe@example.net>",
            "Re: WW5",
            "auto-replied",
            "",
        ]
    ),
    st.sampled_from(["text/plain", "text/html", "text/plain; format=flowed", "quoted-printable"]),
    st.sampled_from(["base64", "7bit", "binary", "QUOTED-PRINTABLE", "x-uue"]),
    st.text(st.characters(codec="latin-1"), max_size=20),
)
_ENDS = st.sampled_from(["\r\n", "\n", "\r", ""])


_CLEAN_NAMES = st.sampled_from(
    ["From", "Subject", "Content-Type", "Content-Transfer-Encoding", "X-Loop", "Return-Path"]
)
_CLEAN_VALUES = st.one_of(
    _VALUES.filter(lambda value: "\r" not in value and "\n" not in value),
    st.text(st.characters(min_codepoint=32, max_codepoint=0x17F), max_size=20),
)


_PLAIN_TYPES = st.one_of(
    st.from_regex(mime._PLAIN_CONTENT_TYPE, fullmatch=True),
    st.from_regex(
        r"[Tt][Ee][Xx][Tt]/[Pp][Ll][Aa][Ii][Nn](; ?[a-z-]{1,8}=\"?[A-Za-z0-9.-]{0,6}\"?){0,3}",
        fullmatch=True,
    ),
)
_ENCODINGS = ["7bit", "8bit", "binary", "quoted-printable", "Quoted-Printable", "base64", "uue", ""]


@st.composite
def _mails(draw: st.DrawFn) -> bytes:
    """Plain header blocks (of a mail of one part, or not), and blocks with every kind of line
    the parser reads otherwise (a lone CR, a continuation first, a line of no field, a unix
    From line, no empty line); 8-bit bytes; any body."""
    end = draw(st.sampled_from(["\r\n", "\n"]))
    clean = draw(st.integers(0, 9)) < 6
    names, values = (_CLEAN_NAMES, _CLEAN_VALUES) if clean else (_NAMES, _VALUES)
    lines = []
    if not clean and draw(st.integers(0, 4)) == 0:
        lines.append("From anna@example.net Sat Nov 28 08:00:00 2026" + end)
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 29))
        if kind == 0 and not clean:
            lines.append(draw(st.text(max_size=10)) + draw(_ENDS))
        elif kind <= 3:
            lines.append(draw(st.sampled_from([" ", "\t", "  "])) + draw(values) + end)
        else:
            sep = draw(st.sampled_from([": ", ":", ":\t"] if clean else [": ", " : "]))
            line_end = end if kind > 4 or clean else draw(_ENDS)
            lines.append(f"{draw(names)}{sep}{draw(values)}{line_end}")
    if clean:
        # A Content-Type and a transfer encoding of a text part, often: plain or nearly.
        if draw(st.booleans()):
            content_type = draw(st.one_of(_PLAIN_TYPES, _VALUES))
            lines.insert(draw(st.integers(0, len(lines))), f"Content-Type: {content_type}{end}")
        if draw(st.booleans()):
            encoding = draw(st.sampled_from(_ENCODINGS))
            lines.insert(
                draw(st.integers(0, len(lines))), f"Content-Transfer-Encoding: {encoding}{end}"
            )
        lines.append(end)
    elif draw(st.integers(0, 9)):
        lines.append(draw(st.sampled_from([end, "\r\n", "\n", "\r", " " + end])))
    body = draw(
        st.sampled_from(
            ["", "Bram\r\n", "Bram", "Stem: Zo=C3=AB=\n\nBram\r\n", "PGI+QnJhbTwvYj4=\r\n", "QnJh!"]
        )
    )
    if draw(st.booleans()):
        body += draw(st.text(max_size=40)) + draw(_ENDS)
    head = "".join(lines).encode("utf-8" if draw(st.booleans()) else "latin-1", "replace")
    return head + body.encode("utf-8")


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mails())
@example(b"From: a@example.net\r\nSubject: WW5\r\n\r\nBram\r\n")
@example(b"From: a@example.net\nSubject: WW5\n\nBram")
@example(b"Subject: a\r\n b\r\n\tc\r\n\r\n")
@example(b"Subject: WW5\r\n\r\n")
@example(b"Subject: WW5\r\n")
@example(b"\r\nBram\r\n")
@example(b"Subject: WW5\r\rBram\r\n")
@example(b"Subject: WW5\r\n\r\r\nBram\r\n")
@example(b"Subject:\r\n\r\nBram")
@example(b" Subject: WW5\r\n\r\nBram")
@example(b"Subject: W\xc3\xbc\r\nFrom: Z\xeb <z@example.net>\r\n\r\nZo\xc3\xab\r\n")
def test_a_plain_mail_is_read_as_the_parser_reads_it(raw: bytes) -> None:
    if mime._plain_mail(raw) is not None:
        _as_the_parser_reads_it(raw)
    assert parse_mail(raw) == _parsed_by_the_parser(raw)


SIMPLE = [
    # A vote as the benchmark's players write it.
    b"From: Anna <anna@example.net>\r\nTo: verteller@example.org\r\nSubject: Re: WW5\r\n"
    b"Message-ID: <v1@example.net>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nBram\r\n",
    # Thunderbird's: folded fields, a quoted-printable body of 8-bit text, a quote.
    b"From: =?UTF-8?Q?Zo=c3=ab?= <zoe@example.net>\r\nSubject: Re: WW5\r\n"
    b"References: <a@example.net>\r\n <b@example.net>\r\nMIME-Version: 1.0\r\n"
    b"Content-Type: text/plain; charset=UTF-8; format=flowed\r\n"
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\nStem Zo=C3=AB=\r\n\r\n"
    b"Op 28-11-2026 om 08:00 schreef Verteller:\r\n> Wie?\r\n",
    # Raw 8-bit in the header and the body, LF line ends, no Content-Type.
    b"From: Zo\xc3\xab <zoe@example.net>\nSubject: WW5 \xc3\xa9\n\nZo\xc3\xab\n",
    # Quoted-printable, 7bit, binary, any case.
    b"From: a@example.net\r\nContent-Transfer-Encoding: Quoted-Printable\r\n\r\nZo=C3=AB=\r\n",
    b"From: a@example.net\r\nContent-Transfer-Encoding: 7BIT\r\n\r\nBram\r\n",
    b"From: a@example.net\r\nContent-Transfer-Encoding: binary\r\n\r\nBram\r\n",
]
NOT_SIMPLE = [
    # HTML alone; base64 (decoded with defects of the email package's own); another type.
    b"From: a@example.net\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<b>Bram</b>\r\n",
    b"From: a@example.net\r\nContent-Transfer-Encoding: base64\r\n\r\nQnJhbQ=\r\n",
    b"From: a@example.net\r\nContent-Transfer-Encoding: x-uue\r\n\r\nBram\r\n",
    b"From: a@example.net\r\nContent-Type: text/plain; name*=utf-8''x\r\n\r\nBram\r\n",
    b"From: a@example.net\r\nContent-Type: text\r\n\r\nBram\r\n",
    b"From a@example.net Sat Nov 28 08:00:00 2026\r\nSubject: WW5\r\n\r\nBram\r\n",
    b"From: a@example.net\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n"
    b"--b\r\nContent-Type: text/plain\r\n\r\nBram\r\n--b--\r\n",
    b"From: a@example.net\r\nContent-Type: message/rfc822\r\n\r\nSubject: x\r\n\r\nBram\r\n",
    b"From: a@example.net\r\nSubject: WW5\r\nBram\r\n",  # no empty line: Bram is a defect
    b"From: a@example.net\rSubject: WW5\r\r\rBram\r",  # CR line ends
    b" folded: first\r\nSubject: WW5\r\n\r\nBram\r\n",
    b": no name\r\n\r\nBram\r\n",
]


def test_which_mails_are_simple() -> None:
    for raw in SIMPLE:
        _as_the_parser_reads_it(raw)
        assert parse_mail(raw) == _parsed_by_the_parser(raw)
    for raw in NOT_SIMPLE:
        assert mime._plain_mail(raw) is None, raw
        assert parse_mail(raw) == _parsed_by_the_parser(raw)


def _decoded_by_name(message: Message) -> tuple[dict[str, list[str]], list[str]]:
    """The decoded header by name as read before its fields were read in the same pass."""
    headers: dict[str, list[str]] = {}
    defects = []
    for count, (name, value) in enumerate(message.raw_items()):
        if count >= mime.MAX_HEADERS:
            defects.append("too-many-headers")
            break
        text = mime._unfold(mime._from_surrogates(str(value)[: mime.MAX_HEADER_CHARS]))
        headers.setdefault(str(name).strip().lower(), []).append(text)
    return headers, defects


def _fields_as_written(message: Message) -> tuple[tuple[str, str], ...]:
    return tuple(
        (str(name).strip().lower(), mime._FOLD.sub(" ", str(value)).strip())
        for name, value in list(message.raw_items())[: mime.MAX_HEADER_FIELDS]
    )


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mails(), st.sampled_from([0, 1, 3, 8_000, 9_000]))
def test_the_header_read_in_one_pass_is_both_reads(raw: bytes, long: int) -> None:
    """A field short and ASCII is decoded as written (unfolded); any other, by decoding."""
    message = _by_the_parser(b"X-Long: " + b"a" * long + b"\r\n" + raw)
    defects: list[str] = []
    headers, fields = mime._read_headers(message.raw_items(), defects)
    assert (headers, defects) == _decoded_by_name(message)
    assert fields == _fields_as_written(message)


def test_too_many_header_fields_are_read_as_both_reads() -> None:
    for count in (mime.MAX_HEADERS, mime.MAX_HEADERS + 1, mime.MAX_HEADER_FIELDS + 3):
        raw = b"".join(b"X-N%d: %d\r\n" % (i, i) for i in range(count)) + b"\r\nbody"
        message = _by_the_parser(raw)
        defects: list[str] = []
        headers, fields = mime._read_headers(message.raw_items(), defects)
        assert (headers, defects) == _decoded_by_name(message)
        assert fields == _fields_as_written(message)
