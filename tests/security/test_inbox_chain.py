"""The inbox as a chain of named rules: each rule decides what it should, and the chain records
which rule decided (narrator/service/chain.py, INBOX_CHAIN in narrator/service/inbox.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from narrator.models import InboxMessage
from narrator.service.authenticity import SenderAuth
from narrator.service.chain import Action, Rule, Verdict, go_on, walk
from narrator.service.inbox import INBOX_CHAIN, _arrived
from narrator.service.letters import Draft, Letter, Recipient
from narrator.service.limits import NOTICE_KIND, Limits
from narrator.service.work import unit_of_work
from tests.security.conftest import ADMIN
from tests.security.security_support import NARRATOR, Narrator, mail

ANNA = "anna@example.net"
STRANGER = "zora@example.net"


def test_the_chain_lists_the_checks_in_their_order() -> None:
    assert [rule.name for rule in INBOX_CHAIN] == [
        "automatic",
        "bounce",
        "loop",
        "no-sender",
        "unusable-sender",
        "game",
        "unauthenticated",
        "rate-limit",
        "hostile",
        "too-large",
        "help",
        "command",
    ]


# --- the walk -------------------------------------------------------------------------------


def _letter(name: str) -> Letter:
    return Letter("error", Draft("error", {}, name), (Recipient(f"{name}@example.net", "", name),))


def test_walk_stops_at_the_first_rule_that_decides_and_records_it() -> None:
    asked: list[str] = []
    posted: list[list[str]] = []

    def rule(name: str, verdict: Verdict[int]) -> Rule[int]:
        def check(mail: int) -> Verdict[int]:
            asked.append(f"{name}:{mail}")
            return verdict

        return Rule(name, check)

    rules = [
        rule("quiet", go_on()),
        rule("counts", go_on(2, [_letter("notice")], hit=True)),  # completes the mail
        rule("refuses", Verdict(Action.ANSWER, "error: x", (_letter("refusal"),))),
        rule("never", Verdict(Action.IGNORE, "ignored: never")),
    ]

    def post(letters: Sequence[Letter]) -> None:
        posted.append([letter.to[0].identity for letter in letters])

    decision = walk(rules, 1, post)
    assert decision.rule == "refuses"
    assert decision.verdict.what == "error: x"
    assert decision.hits == ("counts", "refuses")  # "quiet" found nothing
    assert decision.mail == 2  # as "counts" left it
    assert asked == ["quiet:1", "counts:1", "refuses:2"]
    assert posted == [["notice"], ["refusal"]]  # each verdict's letters as it came


def test_a_verdict_that_carries_nothing_is_one_constant_and_any_other_carries_it() -> None:
    assert go_on() is go_on() == Verdict(Action.CONTINUE)
    assert go_on(0).mail == 0  # a mail, even a falsy one, is carried
    assert go_on(hit=True).hit and go_on(hit=True) is not go_on()
    assert go_on(letters=[_letter("notice")]).letters == (_letter("notice"),)


def test_a_chain_in_which_nothing_decides_is_an_error() -> None:
    with pytest.raises(ValueError, match="no rule"):
        walk([Rule("quiet", lambda mail: go_on())], 0, lambda letters: None)


# --- each rule, through the inbox ------------------------------------------------------------


def _raw(headers: str, body: str = "hoi") -> bytes:
    return (headers + "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body + "\r\n").encode()


def test_automatic(narrator: Narrator) -> None:
    auto = mail(ANNA, "Afwezig", "Ik ben weg", headers=[("Auto-Submitted", "auto-replied")])
    outcome = narrator.receive(auto)
    assert (outcome.state, outcome.what, outcome.rule) == (
        "ignored",
        "ignored: auto-reply",
        "automatic",
    )
    assert narrator.outbox() == []


def test_bounce(narrator: Narrator) -> None:
    outcome = narrator.receive(mail(ANNA, "Help", "hoi"), envelope_from="")
    assert (outcome.state, outcome.what, outcome.rule) == ("ignored", "ignored: bounce", "bounce")
    assert outcome.hits == ("bounce",)
    assert narrator.outbox() == []


def test_loop(narrator: Narrator) -> None:
    # The parser knows the narrator's addresses (``automatic``); the inbox also knows its
    # personal reply addresses (a ``+detail``).
    assert narrator.receive(mail(NARRATOR, "Help", "hoi")).rule == "automatic"
    own = NARRATOR.replace("@", "+ww5-abcdef@")
    outcome = narrator.receive(mail(own, "Help", "hoi"))
    assert (outcome.state, outcome.what, outcome.rule) == ("ignored", "ignored: loop", "loop")


def _rule(name: str) -> Rule[Any]:
    return next(rule for rule in INBOX_CHAIN if rule.name == name)


def test_no_sender(narrator: Narrator) -> None:
    # The parser reads a mail without a sender as a bounce (``automatic``); the rule stands
    # behind it for a sender the parser left empty.
    assert narrator.receive(_raw(f"To: {NARRATOR}\r\nSubject: Help\r\n")).rule == "automatic"
    row = InboxMessage(raw=mail(ANNA, "Help", "hoi"), envelope_from=ANNA, source="inject")
    with unit_of_work(narrator.factory) as work:
        arrived = _arrived(work, narrator.mailer, narrator.settings, row, narrator.clock())
    assert _rule("no-sender").check(arrived).action is Action.CONTINUE
    verdict = _rule("no-sender").check(arrived._replace(parsed=replace(arrived.parsed, sender="")))
    assert (verdict.action, verdict.what) == (Action.IGNORE, "ignored: no-sender")


def test_unusable_sender(narrator: Narrator) -> None:
    sender = "a" * 300 + "@example.net"
    outcome = narrator.receive(_raw(f"From: <{sender}>\r\nTo: {NARRATOR}\r\nSubject: Help\r\n"))
    assert outcome.state == "ignored"
    assert (outcome.what, outcome.rule) == ("ignored: unusable-sender", "unusable-sender")


def test_unauthenticated(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator()
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [("Anna", ANNA)])
    narrator.settings = replace(
        narrator.settings, sender_auth=SenderAuth("dmarc", ("mx.example.org",))
    )
    before = narrator.last_outbox_id()
    # A player is told (his address already gets the narrator's mail) ...
    outcome = narrator.receive(mail(ANNA, "WW5", "Anna, vrouw"))
    assert outcome.state == "done" and outcome.rule == "unauthenticated"
    assert outcome.what.startswith("refused: unauthenticated (")
    assert [(m.recipient, m.kind) for m in narrator.outbox(after=before)] == [(ANNA, "error")]
    # ... a stranger is not (backscatter).
    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail(STRANGER, "WW5", "Zora, vrouw"))
    assert outcome.state == "ignored" and outcome.rule == "unauthenticated"
    assert outcome.what.startswith("ignored: unauthenticated (")
    assert narrator.outbox(after=before) == []


def test_rate_limit_finds_without_deciding(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=1, replies_per_day=5))
    outcome = narrator.receive(mail(STRANGER, "Geen spel", "hallo"))
    assert (outcome.rule, outcome.hits) == ("command", ("command",))  # within his limit
    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail(STRANGER, "Geen spel", "hallo"))
    # Over his limit: the rate-limit rule found it (and sent the notice); the command still
    # decided (a player's vote over the limit still counts), its answer silent.
    assert outcome.rule == "command" and outcome.hits == ("rate-limit", "command")
    assert outcome.what == "error: no-game (over the reply limit: notice)"
    assert [m.kind for m in narrator.outbox(after=before)] == [NOTICE_KIND]


def test_hostile(narrator: Narrator) -> None:
    head = f"From: deep@example.net\r\nTo: {NARRATOR}\r\nSubject: WW5\r\nMIME-Version: 1.0\r\n"
    body = "Zora, vrouw\r\n"
    for level in range(60):
        body = (
            f'Content-Type: multipart/mixed; boundary="b{level}"\r\n\r\n'
            f"--b{level}\r\n{body}\r\n--b{level}--\r\n"
        )
    outcome = narrator.receive((head + body).encode())
    assert (outcome.state, outcome.rule) == ("done", "hostile")
    assert outcome.what == "error: too-complex (mime-too-deep)"
    assert [m.kind for m in narrator.outbox()] == ["error"]


def test_too_large(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(max_message_bytes=50_000))
    narrator.add_game("WW5")
    outcome = narrator.receive(mail(STRANGER, "WW5", "Zora, vrouw\n" + "x" * 60_000))
    assert (outcome.state, outcome.what, outcome.rule) == ("done", "error: too-large", "too-large")
    # A too-large auto-reply is decided earlier: never answered.
    auto = mail(ANNA, "WW5", "x" * 60_000, headers=[("Auto-Submitted", "auto-replied")])
    assert narrator.receive(auto).rule == "automatic"


def test_help(narrator: Narrator) -> None:
    outcome = narrator.receive(mail(STRANGER, "Help", "Hoe doe ik mee?"))
    assert (outcome.state, outcome.what, outcome.rule) == (
        "done",
        "help forwarded to 1 admin(s)",
        "help",
    )
    assert ADMIN in [m.recipient for m in narrator.outbox()]


def test_command(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    outcome = narrator.receive(mail(STRANGER, "WW5", "Zora, vrouw"))
    assert (outcome.state, outcome.what, outcome.rule) == ("done", "signup: Zora", "command")
    outcome = narrator.receive(mail(STRANGER, "Geen spel", "hallo"))
    assert (outcome.what, outcome.rule) == ("error: no-game", "command")
