"""A fuzz run over the whole pipeline: generated mail is stored in the inbox and processed.

Every mail must end ``done`` (answered: a reply, a Help forward, or a notice) or ``ignored``
by a named rule; no exception may escape, no row may stay ``new``, and every mail the
narrator queues must have only the headers it writes and exactly one recipient.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from narrator.inbound.dbsink import GROUP_LIMIT, Incoming
from narrator.service.limits import Limits
from tests.security.security_support import (
    ALLOWED_HEADERS,
    NARRATOR,
    Clock,
    Narrator,
    Sent,
    players,
)

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


class TickingClock(Clock):
    """The narrator's clock, a millisecond later at each reading: the pipeline reads it once
    per mail it processes (``process_pending``), and a mail's answers are queued at that
    moment (their ``created_at``), which tells whose answers they are in a batch."""

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


def run_group(
    narrator: Narrator, raws: list[bytes], figures: dict[str, int], seen: list[int]
) -> None:
    """Store `raws` in one transaction and process them in the daemon's batches (as
    `narrator serve` does), then check each mail's outcome and the mails queued in answer."""
    results = narrator.sink.store_many_sync([Incoming(raw, "inject") for raw in raws])
    stored = []
    for raw, result in zip(raws, results, strict=True):
        assert not isinstance(result, Exception), (result, raw[:500])
        if result.duplicate:
            figures["duplicates"] += 1
        else:
            stored.append(raw)
    clock = narrator.clock
    assert isinstance(clock, TickingClock)
    first_reading = clock.now
    outcomes = narrator.process()
    # One reading of the clock per mail processed (no batch was taken apart and done again):
    # the k-th mail's answers carry the k-th reading.  Should the pipeline read it otherwise,
    # the answers could not be told apart: this says so rather than check the wrong mail.
    readings = [first_reading + timedelta(milliseconds=k + 1) for k in range(len(stored))]
    assert clock.now == (readings[-1] if readings else first_reading), (
        "the pipeline read the clock other than once per mail (a batch redone?)"
    )
    assert len(outcomes) == len(stored), outcomes
    sent = narrator.outbox(after=seen[0])
    if sent:
        seen[0] = sent[-1].id
    by_moment: dict[datetime | None, list[Sent]] = {}
    for mail_out in sent:
        by_moment.setdefault(mail_out.at, []).append(mail_out)
    assert set(by_moment) <= set(readings), "a mail queued at no mail's moment"
    for raw, outcome, at in zip(stored, outcomes, readings, strict=True):
        answers = by_moment.get(at, [])
        figures[outcome.state] = figures.get(outcome.state, 0) + 1
        figures["mails"] += len(answers)
        if outcome.state == "ignored":
            assert outcome.what.startswith(IGNORE_REASONS), (outcome, raw[:500])
            assert answers == [], (outcome, answers, raw[:500])
        else:
            assert outcome.state == "done", (outcome, raw[:500])
            # A player's mail with an ambiguous From is refused once a day, then silently.
            assert answers or outcome.what.endswith("(over the reply limit: silent)"), outcome
        for mail_out in answers:
            assert mail_out.header_names <= ALLOWED_HEADERS, (mail_out, raw[:500])
            assert len(mail_out.message["To"].addresses) == 1, (mail_out, raw[:500])


def draw_mails() -> list[bytes]:
    """The mails Hypothesis draws from `mails`: the same 5,000 at every run."""
    drawn: list[bytes] = []

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(raw=mails)
    def case(raw: bytes) -> None:
        drawn.append(raw)

    case()
    return drawn


@pytest.fixture(scope="session")
def fuzz_mails(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """The drawn mails, drawn once per test run for both databases (drawing them took as long
    as storing and processing them).  Under pytest-xdist the first worker that needs them
    draws them and leaves them in the run's temporary folder, which the workers share, for
    the other to read (as tests/stories/conftest.py's pack check); a worker that comes while
    the other is still drawing draws them too rather than wait (they are the same mails)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return draw_mails()
    shared = tmp_path_factory.getbasetemp().parent / "pipeline-fuzz-mails.json"
    with shared.with_suffix(".lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when the file closes
        except BlockingIOError:
            return draw_mails()  # the other worker is drawing them
        if shared.exists():
            encoded = json.loads(shared.read_text(encoding="ascii"))
            return [base64.b64decode(raw) for raw in encoded]
        drawn = draw_mails()
        encoded = [base64.b64encode(raw).decode("ascii") for raw in drawn]
        shared.write_text(json.dumps(encoded), encoding="ascii")
        return drawn


@pytest.mark.slow
def test_fuzz_the_pipeline(
    make_narrator: Callable[..., Narrator],
    fuzz_mails: list[bytes],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Hypothesis draws the mails (`fuzz_mails`); they are stored and processed in the
    daemon's groups and batches (one transaction per mail, as it was, made the run minutes
    long on PostgreSQL), and each mail is checked on its own."""
    narrator = make_narrator(limits=Limits(replies_per_hour=0, replies_per_day=0))
    narrator.add_game("WW5")
    narrator.add_game("WW6")
    narrator.sign_up("WW6", CAST)
    narrator.start("WW6")
    narrator.sign_up("WW5", SIGNUP_CAST)
    figures = {"cases": len(fuzz_mails), "duplicates": 0, "done": 0, "ignored": 0, "mails": 0}
    started = time.monotonic()
    seen = [narrator.last_outbox_id()]
    narrator.clock = TickingClock(narrator.clock.now)
    for at in range(0, len(fuzz_mails), GROUP_LIMIT):
        run_group(narrator, fuzz_mails[at : at + GROUP_LIMIT], figures, seen)
    states = narrator.inbox_states()
    assert all(state in ("done", "ignored") for state, _ in states)
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\npipeline fuzz: {figures} in {elapsed:.1f} s; inbox rows {len(states)}")
    assert figures["cases"] >= EXAMPLES * 0.9
