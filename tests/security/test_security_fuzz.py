"""A fuzz run over the whole pipeline: generated mail is stored in the inbox and processed.

Every mail must end ``done`` (answered: a reply, a Help forward, or a notice) or ``ignored``
by a named rule; no exception may escape, no row may stay ``new``, and every mail the
narrator queues must have only the headers it writes and exactly one recipient.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from narrator.service.limits import Limits
from tests.security.security_support import ALLOWED_HEADERS, NARRATOR, Narrator, players

EXAMPLES = 5000
MAIL_DIR = Path(__file__).resolve().parent.parent / "mail"
CORPUS = sorted(path.read_bytes() for path in MAIL_DIR.glob("*.eml"))
IGNORE_REASONS = (
    "ignored: auto-reply",
    "ignored: bounce",
    "ignored: list",
    "ignored: loop",
    "ignored: no-sender",
    "ignored: unusable-sender",
    "ignored: hostile (",
    "ignored: unauthenticated (",  # a From with several addresses, from a stranger
)
CAST = players(6)
SIGNUP_CAST = players(3, domain="signup.example")

senders = st.one_of(
    st.sampled_from([email for _, email in CAST + SIGNUP_CAST]),
    st.sampled_from(
        [
            "new@example.net",
            "MAILER-DAEMON@example.net",
            NARRATOR,
            "verteller+ww6-0123456789@example.org",
            "",
            "<>",
            "a@b",
            "évil@exämple.org",
            "x" * 300 + "@example.net",
            '"quoted local"@example.net',
        ]
    ),
    st.emails().map(str),
)
names = st.sampled_from([name for name, _ in CAST + SIGNUP_CAST] + ["Zora", "Bobby"])
words = st.one_of(
    names,
    st.sampled_from(["blanco", "witte", "burgemeester", "man", "vrouw", "help", ",", "\n", "> "]),
    st.text(max_size=20),
)
bodies = st.one_of(
    st.lists(words, max_size=12).map(" ".join),
    st.builds(lambda n, g: f"{n}, {g}", names, st.sampled_from(["man", "vrouw", "x"])),
    st.text(max_size=300),
    st.sampled_from(["<html><body><b>Anna</b></body></html>", "=?utf-8?q?Anna?=", "\x00\r\n.\r\n"]),
)
subjects = st.one_of(
    st.sampled_from(["WW5", "WW6", "Re: WW6", "Help", "FW: WW5", "", "ww6!", "Out of office"]),
    st.text(max_size=40),
    st.builds(
        lambda s: "=?utf-8?b?" + base64.b64encode(s.encode()).decode() + "?=", st.text(max_size=30)
    ),
)
extra_headers = st.lists(
    st.sampled_from(
        [
            "Auto-Submitted: auto-replied",
            "Auto-Submitted: no",
            "Precedence: bulk",
            "List-Id: <x.example>",
            "X-Loop: verteller@example.org",
            "Return-Path: <>",
            "Content-Transfer-Encoding: base64",
            "Content-Type: text/html; charset=utf-8",
            "Content-Type: text/plain; charset=bogus-8",
            "Content-Type: multipart/mixed; boundary=zz",
            "Content-Type: multipart/report; report-type=delivery-status",
            "Authentication-Results: mx.example.org; dmarc=fail header.from=example.net",
            "Delivered-To: verteller+ww6-abc@example.org",
            "Reply-To: other@example.net",
            "Cc: =?utf-8?q?a=0D=0Ab?= <c@example.net>",
        ]
    ),
    max_size=4,
)


@st.composite
def structured_mail(draw: st.DrawFn) -> bytes:
    sender = draw(senders)
    display = draw(st.sampled_from(["", "Eve", "=?utf-8?q?E=0D=0ABcc:_x@y?=", '"A, B"']))
    lines = [f"From: {display} <{sender}>" if display else f"From: {sender}"]
    lines += [f"To: {NARRATOR}", f"Subject: {draw(subjects)}"]
    lines += draw(extra_headers)
    body = draw(bodies)
    raw = ("\r\n".join(lines) + "\r\n\r\n" + body + "\r\n").encode("utf-8", "surrogatepass")
    return raw


@st.composite
def mutated_corpus_mail(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(CORPUS)))
    for _ in range(draw(st.integers(0, 8))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        if action == "flip":
            data[at] = draw(st.integers(0, 255))
        elif action == "insert":
            data[at:at] = draw(st.binary(max_size=16))
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        else:
            del data[at:]
    return bytes(data)


mails = st.one_of(structured_mail(), mutated_corpus_mail(), st.binary(max_size=400))


@pytest.mark.slow
def test_fuzz_the_pipeline(
    make_narrator: Callable[..., Narrator], capsys: pytest.CaptureFixture[str]
) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=0, replies_per_day=0))
    narrator.add_game("WW5")
    narrator.add_game("WW6")
    narrator.sign_up("WW6", CAST)
    narrator.start("WW6")
    narrator.sign_up("WW5", SIGNUP_CAST)
    figures = {"cases": 0, "duplicates": 0, "done": 0, "ignored": 0, "mails": 0}
    started = time.monotonic()
    last = [narrator.last_outbox_id()]

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(raw=mails)
    def case(raw: bytes) -> None:
        figures["cases"] += 1
        result = narrator.sink.store_sync(raw, source="inject")
        if result.duplicate:
            figures["duplicates"] += 1
            return
        outcomes = narrator.process()
        assert len(outcomes) == 1, outcomes
        outcome = outcomes[0]
        figures[outcome.state] = figures.get(outcome.state, 0) + 1
        sent = narrator.outbox(after=last[0])
        if sent:
            last[0] = sent[-1].id
        figures["mails"] += len(sent)
        if outcome.state == "ignored":
            assert outcome.what.startswith(IGNORE_REASONS), outcome
            assert sent == [], (outcome, sent)
        else:
            assert outcome.state == "done", (outcome, raw[:500])
            # A player's mail with an ambiguous From is refused once a day, then silently.
            assert sent or outcome.what.endswith("(over the reply limit: silent)"), outcome
        for mail_out in sent:
            assert mail_out.header_names <= ALLOWED_HEADERS
            assert len(mail_out.message["To"].addresses) == 1

    case()
    states = narrator.inbox_states()
    assert all(state in ("done", "ignored") for state, _ in states)
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\npipeline fuzz: {figures} in {elapsed:.1f} s; inbox rows {len(states)}")
    assert figures["cases"] >= EXAMPLES * 0.9
