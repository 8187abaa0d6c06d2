"""Random and malformed mail never makes the parser raise, and each message takes bounded time.

The bound is on the CPU time of the parsing thread (``time.thread_time``), the parser's own work:
a busy neighbour (a parallel test worker, another process) slows the wall clock, not this; so
these tests run in parallel with the rest of the suite."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from parsing import Command, GameInfo, ParsedMail, command_to_dict, parse_mail
from tests.parsing.reading import read_mail

pytestmark = pytest.mark.slow  # tens of thousands of messages (`make test-fast` leaves them out)

MAIL_DIR = Path(__file__).resolve().parent.parent / "mail"
CORPUS = [path.read_bytes() for path in sorted(MAIL_DIR.glob("*.eml"))]
PLAYERS = ("Anna", "Bram", "Carla", "Zoë", "Jan", "Ben", "Marieke")
GAMES = (GameInfo("WW5", players=PLAYERS), GameInfo("WW6", signup_open=True))
PER_MESSAGE_SECONDS = 2.0  # of the parsing thread's CPU


def check(raw: bytes) -> tuple[ParsedMail, Command]:
    """Parse, route and read ``raw``: a result always, within the time bound (CPU seconds)."""
    start = time.thread_time()
    parsed = parse_mail(raw)
    command = read_mail(parsed, GAMES)
    command_to_dict(command, parsed)
    elapsed = time.thread_time() - start
    assert elapsed < PER_MESSAGE_SECONDS, f"{elapsed:.2f}s of CPU for a {len(raw)}-byte message"
    return parsed, command


FAST = settings(
    max_examples=2500,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@seed(20251118)
@FAST
@given(st.binary(max_size=4000))
def test_random_bytes(raw: bytes) -> None:
    check(raw)


@seed(20251118)
@FAST
@given(st.text(max_size=2000))
def test_random_text(text: str) -> None:
    check(text.encode("utf-8", "surrogatepass"))


_HEADER_NAMES = st.sampled_from(
    [
        "From", "To", "Subject", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted",
        "Precedence", "List-Id", "Return-Path", "Message-ID", "References", "Reply-To",
        "Sender", "X-Loop", "Content-Disposition", "MIME-Version", "X-Autoreply",
    ]
)  # fmt: skip
_HEADER_VALUES = st.one_of(
    st.text(max_size=200),
    st.sampled_from(
        [
            "multipart/mixed; boundary=b",
            'multipart/alternative; boundary="b"',
            "text/html; charset=x-unknown",
            "text/plain; charset=utf-8; format=flowed; delsp=yes",
            "multipart/report; report-type=delivery-status; boundary=b",
            "base64",
            "quoted-printable",
            "=?utf-8?B?not base64?=",
            "=?x-nope?Q?=ZZ?=",
            "=?iso-2022-jp?B?GyRCJCIbKEI=?=",
            "<>",
            'Anna <anna@example.org>, "Bram, B" <b@x>',
            "Re: Fwd: AW: [WW5]",
        ]
    ),
)
_BODY_PIECES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "--b\r\n",
                "--b--\r\n",
                "Content-Type: text/plain\r\n\r\n",
                "Content-Type: text/html\r\n\r\n<div><blockquote>Anna",
                "Content-Type: message/rfc822\r\n\r\n",
                "Content-Transfer-Encoding: base64\r\n\r\n",
                "> Anna Bram Carla\r\n",
                "On Tue, Nov 18, 2025 Verteller <v@x> wrote:\r\n",
                "-- \r\n",
                "Bram\r\n",
                "Van: x\r\nVerzonden: y\r\n",
                "=C3=AB=\r\n",
                '<html><body><div id="divRplyFwdMsg"></div>',
            ]
        ),
        st.text(max_size=100),
        st.binary(max_size=100).map(lambda data: data.decode("latin-1")),
    ),
    max_size=30,
)


@seed(20251118)
@FAST
@given(st.lists(st.tuples(_HEADER_NAMES, _HEADER_VALUES), max_size=20), _BODY_PIECES)
def test_structured_malformed_mail(headers: list[tuple[str, str]], pieces: list[str]) -> None:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    raw = (head + "\r\n" + "".join(pieces)).encode("utf-8", "surrogatepass")
    check(raw)


@seed(20251118)
@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.sampled_from(CORPUS), st.data())
def test_mutated_corpus_mail(raw: bytes, data: st.DataObject) -> None:
    """Real-client fixtures with bytes flipped, cut, duplicated or inserted."""
    mutated = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 8))):
        if not mutated:
            break
        position = data.draw(st.integers(0, len(mutated) - 1))
        action = data.draw(st.integers(0, 3))
        if action == 0:
            mutated[position] = data.draw(st.integers(0, 255))
        elif action == 1:
            del mutated[position:]
        elif action == 2:
            mutated[position:position] = mutated[position : position + 64]
        else:
            mutated[position:position] = data.draw(st.binary(max_size=32))
    check(bytes(mutated))


def test_many_random_corpus_splices() -> None:
    """Fifteen thousand cheap variants: splices of two fixtures at random points."""
    rng = random.Random(7)
    for _ in range(15_000):
        first, second = rng.choice(CORPUS), rng.choice(CORPUS)
        cut_first, cut_second = rng.randrange(len(first)), rng.randrange(len(second))
        check(first[:cut_first] + second[cut_second:])


def test_ten_megabyte_body() -> None:
    raw = b"From: a@example.org\r\nSubject: WW5\r\n\r\nBram\r\n" + b"x" * 10_000_000
    parsed, _ = check(raw)
    assert "truncated-input" in parsed.defects


def test_ten_megabyte_single_header() -> None:
    check(b"Subject: " + b"WW5 " * 2_500_000 + b"\r\nFrom: a@example.org\r\n\r\nBram\r\n")


def test_hundred_thousand_headers() -> None:
    raw = b"From: a@example.org\r\n" + b"X-Junk: 1\r\n" * 100_000 + b"Subject: WW5\r\n\r\nBram"
    parsed, _ = check(raw)
    assert "too-many-headers" in parsed.defects


def test_deep_mime_nesting() -> None:
    depth = 3000
    head = b"From: a@example.org\r\nSubject: WW5\r\n"
    nested = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (level, level)
        for level in range(depth)
    )
    parsed, _ = check(head + nested + b"Content-Type: text/plain\r\n\r\nBram\r\n")
    assert "mime-too-deep" in parsed.defects


def test_many_parts() -> None:
    parts = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\nAnna\r\n" for _ in range(20_000))
    raw = (
        b"From: a@example.org\r\nSubject: WW5\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
    )
    parsed, _ = check(raw + parts + b"--b--\r\n")
    assert "too-many-parts" in parsed.defects


def test_deep_html_nesting() -> None:
    html = b"<div>" * 100_000 + b"Bram" + b"</div>" * 100_000
    raw = b"From: a@example.org\r\nSubject: WW5\r\nContent-Type: text/html\r\n\r\n" + html
    check(raw)


def test_long_line_of_reply_header_lookalikes() -> None:
    body = ("On " + "x " * 50_000 + "wrote:\n") * 3 + "Op " + "schreef " * 20_000 + ":\nBram\n"
    check(b"From: a@example.org\r\nSubject: WW5\r\n\r\n" + body.encode())


def test_huge_body_of_words_costs_bounded_name_matching() -> None:
    words = " ".join(f"woord{index % 977}x" for index in range(200_000))
    check(b"From: a@example.org\r\nSubject: WW5\r\n\r\n" + words.encode())
