"""The header fields the authenticity checks read are the parser's when it read the same block.

The inbox takes a mail's header fields (``header_items``) from its parse
(``ParsedMail.header_fields``) rather than parsing the header again: for any bytes, they must
be exactly the fields a parse of the header block alone gives, also for a mail too large to
read (parsed by its header block only), and for headers no blank line ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from narrator.service.authenticity import MAX_HEADER_BYTES, header_items
from narrator.service.inbox import _headers_only
from parsing import ParsedMail, parse_mail
from parsing.mime import MAX_HEADER_FIELDS

CORPUS = sorted((Path(__file__).resolve().parent.parent / "mail").glob("*.eml"))

TRICKY = [
    b"From: Anna <anna@example.net>\r\nSubject: WW5\r\n\r\nBram\r\n",
    b"From: Anna <anna@example.net>\nSubject: WW5\n\nBram\n",  # LF only
    b"From: a@example.net\r\nSubject: x\r\r\n\r\nX-After: body\r\n",  # a lone CR
    b"From: a@example.net\r\rX-Evil: b\r\n\r\nbody",  # CR CR: a blank line to the parser
    b"From: a@example.net\n\r\nX-Evil: b\r\n\r\nbody",
    b"From: a@example.net\r\n\nTo: b@example.net\r\n\r\n",
    b"From: a@example.net\r\nSubject: folded\r\n  over\r\n\tlines\r\n\r\nbody",
    b"From: a@example.net\r\nSubject: ends folded\r\n \r\n\r\nbody",
    b"From: a@example.net\r\nno header line\r\nTo: b@example.net\r\n\r\nbody",
    b" continuation first\r\nFrom: a@example.net\r\n\r\n",
    b"From someone@example.net Mon Jan  1 00:00:00 2026\r\nFrom: a@example.net\r\n\r\n",
    b"From: =?utf-8?q?Zo=C3=AB?= <zoe@example.net>\r\nSubject: \xc3\xa9t\xe9\r\n\r\nbody",
    b"From: a@example.net\r\nFrom: b@example.net\r\n\r\n",  # two From fields: both kept
    b"From: a@example.net\r\nX-Empty:\r\nX-Colon: : \r\n\r\n",
    b"From: a@example.net",  # no end of the header at all
    b"From: a@example.net\r\n",
    b"",
    b"\r\n\r\nbody only",
    b"Content-Type: multipart/mixed; boundary=b\r\nFrom: a@example.net\r\n\r\n"
    b"--b\r\n\r\nx\r\n--b--",
    # Many fields, more than the parser keeps.
    b"".join(b"X-N%d: %d\r\n" % (i, i) for i in range(MAX_HEADER_FIELDS + 5)) + b"\r\nbody",
    # A header block no blank line ends within the bytes the checks read.
    b"From: a@example.net\r\nX-Long: " + b"y" * (MAX_HEADER_BYTES + 10) + b"\r\nTo: b@x\r\n\r\n",
    b"From: a@example.net\r\n" + b"X-Pad: zzzzzzzzzz\r\n" * (MAX_HEADER_BYTES // 20) + b"\r\n",
]


def _agree(raw: bytes) -> None:
    alone = header_items(raw)  # the header block parsed again, alone
    assert header_items(raw, parse_mail(raw)) == alone
    assert header_items(raw, parse_mail(_headers_only(raw))) == alone  # a too-large mail's


@pytest.mark.parametrize("raw", TRICKY, ids=range(len(TRICKY)))
def test_tricky_header_blocks(raw: bytes) -> None:
    _agree(raw)


@pytest.mark.parametrize("path", CORPUS, ids=[path.name for path in CORPUS])
def test_the_mail_corpus(path: Path) -> None:
    _agree(path.read_bytes())


def test_the_parse_keeps_every_field_as_written() -> None:
    raw = (
        b"From: Anna <anna@example.net>\r\nX-Two:  a\r\n\tb \r\nSubject: =?utf-8?q?Zo=C3=AB?=\r\n"
        b"from: second@example.net\r\n\r\nbody"
    )
    assert parse_mail(raw).header_fields == (
        ("from", "Anna <anna@example.net>"),
        ("x-two", "a b"),
        ("subject", "=?utf-8?q?Zo=C3=AB?="),
        ("from", "second@example.net"),
    )
    # A ParsedMail made by hand (no fields) is not believed: the fields are read from the bytes.
    assert header_items(raw, ParsedMail("")) == header_items(raw) != []


_LINE_ENDS = st.sampled_from([b"\r\n", b"\n", b"\r", b"\r\r\n", b"\n\r\n", b""])
_PIECES = st.one_of(
    st.sampled_from([b"From: ", b"To: ", b"Subject: ", b"X-A:", b" ", b"\t", b":", b"From "]),
    st.binary(max_size=12),
    _LINE_ENDS,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=30))
def test_any_bytes(pieces: list[bytes]) -> None:
    _agree(b"".join(pieces))
