"""No loops, no floods: machine mail is never answered; replies per sender are limited."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory, transaction, upgrade
from narrator.models import Game, Vote
from narrator.service import games as service
from narrator.service.inbox import InboxSettings
from narrator.service.limits import NOTICE_KIND, Limits
from narrator.service.work import unit_of_work
from tests.security.security_support import NARRATOR, Narrator, Sent, mail, players
from tests.support.shipped import shipped_mailer

pytestmark = pytest.mark.slow  # every exchange with a responder played out

MAIL_DIR = Path(__file__).resolve().parent.parent / "mail"

# Machine mail, by the rule that must stop it; each is sent in every reply situation below.
MACHINE_HEADERS = {
    "auto-submitted": [("Auto-Submitted", "auto-replied")],
    "auto-generated": [("Auto-Submitted", "auto-generated")],
    "precedence-bulk": [("Precedence", "bulk")],
    "precedence-list": [("Precedence", "list")],
    "list-id": [("List-Id", "<spel.lists.example.net>")],
    "list-unsubscribe": [("List-Unsubscribe", "<mailto:leave@lists.example.net>")],
    "x-autoreply": [("X-Autoreply", "yes")],
    "exchange-auto": [("X-MS-Exchange-Generated-Message-Source", "Mailbox Rules Agent")],
    "x-loop-ours": [("X-Loop", NARRATOR)],
    "dsn": [("X-Failed-Recipients", "someone@example.net")],
}
SITUATIONS = {
    "help-forward": ("Help", "Hoe werkt dit?"),
    "no-game-error": ("Iets anders", "Hallo"),
    "signup": ("WW5", "Zora, vrouw"),
    "bad-signup": ("WW5", "ik wil meedoen"),
    "vote-or-error": ("WW6", "Anna"),
}


def _game_ready(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    narrator.add_game("WW6")
    narrator.sign_up("WW6", players(5))
    narrator.start("WW6")


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
@pytest.mark.parametrize("rule", sorted(MACHINE_HEADERS))
def test_machine_mail_is_never_answered(narrator: Narrator, rule: str, situation: str) -> None:
    _game_ready(narrator)
    before = narrator.last_outbox_id()
    subject, body = SITUATIONS[situation]
    outcome = narrator.receive(
        mail("anna@example.net", subject, body, headers=MACHINE_HEADERS[rule])
    )
    assert outcome.state == "ignored", outcome
    assert narrator.outbox(after=before) == []


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
@pytest.mark.parametrize(
    "sender",
    [
        "mailer-daemon@example.net",
        "postmaster@example.net",
        NARRATOR,
        "Verteller@Example.org",
        "verteller+ww6-abcdef1234@example.org",
    ],
)
def test_bounces_and_our_own_mail_are_never_answered(
    narrator: Narrator, sender: str, situation: str
) -> None:
    _game_ready(narrator)
    before = narrator.last_outbox_id()
    subject, body = SITUATIONS[situation]
    outcome = narrator.receive(mail(sender, subject, body))
    assert outcome.state == "ignored", outcome
    assert narrator.outbox(after=before) == []


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
def test_null_envelope_sender_is_a_bounce(narrator: Narrator, situation: str) -> None:
    _game_ready(narrator)
    before = narrator.last_outbox_id()
    subject, body = SITUATIONS[situation]
    outcome = narrator.receive(mail("anna@example.net", subject, body), envelope_from="")
    assert outcome == outcome.__class__("ignored", "ignored: bounce")
    assert outcome.rule == "bounce"  # the inbox chain's rule (the envelope), not the parser's
    assert narrator.outbox(after=before) == []


@pytest.mark.parametrize(
    "fixture",
    [
        "bounce_dsn_mailer_daemon.eml",
        "bounce_null_return_path_only.eml",
        "bounce_postmaster_exchange.eml",
        "list_copy_list_id.eml",
        "bulk_newsletter.eml",
        "loop_from_narrator.eml",
        "loop_x_loop_header.eml",
    ],
)
def test_machine_mail_fixtures_are_never_answered(narrator: Narrator, fixture: str) -> None:
    _game_ready(narrator)
    before = narrator.last_outbox_id()
    outcome = narrator.receive((MAIL_DIR / fixture).read_bytes())
    assert outcome.state == "ignored", outcome
    assert narrator.outbox(after=before) == []


# --- per-sender limits ----------------------------------------------------------------------


def test_replies_per_hour_then_one_notice_a_day(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=3, replies_per_day=5))
    flood = "flood@example.net"

    def send(count: int) -> list[Sent]:
        before = narrator.last_outbox_id()
        for _ in range(count):
            narrator.receive(mail(flood, "Geen spel", "hallo"))
        return narrator.outbox(after=before)

    first_hour = send(4)
    assert [m.kind for m in first_hour] == ["error", "error", "error", NOTICE_KIND]
    assert all(m.recipient == flood for m in first_hour)
    assert "beantwoordt de Verteller je mail een tijdje niet meer" in first_hour[-1].text
    assert send(6) == []  # told already: silence (the mails still count against the day)
    narrator.clock.now += timedelta(hours=1)
    assert send(3) == []  # a new hour, but 13 mails in the last 24 hours: over the day's 5
    narrator.clock.now += timedelta(hours=24)
    # A new day: the budget is back, and one more notice once it runs out.
    assert [m.kind for m in send(5)] == ["error", "error", "error", NOTICE_KIND]
    narrator.clock.now += timedelta(hours=1)
    assert send(3) == []  # the hour has room, the day (5) has not; notice given already
    # Other senders are not affected.
    before = narrator.last_outbox_id()
    narrator.receive(mail("other@example.net", "Geen spel", "hallo"))
    assert [m.kind for m in narrator.outbox(after=before)] == ["error"]


def test_over_the_limit_votes_still_count_and_game_mails_still_go(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=2, replies_per_day=0))
    narrator.add_game("WW5")
    cast = players(5)
    narrator.sign_up("WW5", cast)
    narrator.clock.now += timedelta(hours=1)
    narrator.start("WW5")
    with unit_of_work(narrator.factory) as work:
        session = work.session
        game = session.scalars(select(Game)).one()
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        asked = list(rs.asked(state))
        name = asked[0]
        action = rs.choices(state, name).actions[0]
        body = " ".join(action.targets[: max(action.min_names, 1)]) or "blanco"
        keyword = f" {action.keyword}" if action.keyword else ""
    address = dict(cast)[name]
    before = narrator.last_outbox_id()
    outcomes = [narrator.receive(mail(address, "WW5", body + keyword)) for _ in range(6)]
    assert all(o.what.startswith("vote accepted") for o in outcomes), outcomes
    kinds = [m.kind for m in narrator.outbox(after=before)]
    assert kinds == ["receipt", "receipt", NOTICE_KIND]
    with transaction(narrator.factory) as session:
        assert session.scalar(select(func.count(Vote.id))) == 6
    # The step's deadline: the story and the next step reach the silenced player too.
    narrator.clock.now += timedelta(hours=2)
    before = narrator.last_outbox_id()
    with unit_of_work(narrator.factory) as work:
        session = work.session
        for game in service.due_games(session, narrator.clock()):
            service.close_step(work, narrator.mailer, game, now=narrator.clock())
    to_player = [m.kind for m in narrator.outbox(after=before) if m.recipient == address]
    assert to_player and set(to_player) <= {"story", "step", "game_over"}


def test_help_forwards_are_limited_per_sender(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=2, replies_per_day=0))
    for _ in range(5):
        narrator.receive(mail("asker@example.net", "Help", "Vraagje"))
    sent = narrator.outbox()
    assert [(m.kind, m.recipient) for m in sent] == [
        ("help_forward", "beheer@example.org"),
        ("help_received", "asker@example.net"),  # the sender is told it went on
        ("help_forward", "beheer@example.org"),
        ("help_received", "asker@example.net"),
        (NOTICE_KIND, "asker@example.net"),
    ]


# --- two narrators, a vacation responder, a naive echo bot: nothing loops -------------------


def _vacation(received: Sent, *, rfc3834: bool) -> bytes:
    """An out-of-office answer: RFC 3834-compliant, or an old responder that marks nothing."""
    headers = [("Auto-Submitted", "auto-replied")] if rfc3834 else []
    subject = "Out of office: " if rfc3834 else "Re: "
    return mail(
        received.recipient,
        subject + str(received.message["Subject"]),
        "I am away until Monday.",
        headers=headers,
    )


def _echo(received: Sent) -> bytes:
    """A naive bot that answers everything, quoting it, without any automatic-mail header."""
    quoted = "\n".join("> " + line for line in received.text.splitlines())
    return mail(received.recipient, "Re: " + str(received.message["Subject"]), "Thanks!\n" + quoted)


def test_vacation_responders_peer_narrator_and_echo_bot_never_loop(
    narrator: Narrator, tmp_path: Path
) -> None:
    peer_url = f"sqlite:///{tmp_path / 'peer.db'}"
    upgrade(peer_url)
    peer_engine = make_engine(peer_url)
    try:
        peer_factory: sessionmaker[Session] = session_factory(peer_engine)
        peer_address = "verteller@peer.example"
        peer = Narrator(
            peer_factory,
            shipped_mailer(peer_address),
            InboxSettings(address=peer_address, admins=("beheer@peer.example",)),
        )
        peer.clock = narrator.clock
        peer.add_game("WW9")
        narrator.add_game("WW5")
        cast = players(4)
        good, bad, echo = "away@example.net", "oldaway@example.net", "bot@example.net"
        cast += [("Vera", good), ("Otto", bad), ("Bert", echo), ("Peer", peer_address)]
        narrator.sign_up("WW5", cast)
        narrator.start("WW5")
        # Somebody signs our narrator up in the peer's game: the peer now writes to us too.
        peer.receive(mail(NARRATOR, "WW9", "Verteller, man"))

        exchanged = {"ours": 0, "peer": 0, "responders": 0}
        for _ in range(500):
            moved = 0
            for sent in narrator.take_pending():
                moved += 1
                exchanged["ours"] += 1
                if sent.recipient == peer_address:
                    peer.deliver(sent.raw, envelope_from=NARRATOR)
                elif sent.recipient in (good, bad):
                    exchanged["responders"] += 1
                    narrator.deliver(_vacation(sent, rfc3834=sent.recipient == good))
                elif sent.recipient == echo:
                    exchanged["responders"] += 1
                    narrator.deliver(_echo(sent))
            for sent in peer.take_pending():
                moved += 1
                exchanged["peer"] += 1
                assert sent.recipient == NARRATOR
                narrator.deliver(sent.raw, envelope_from=peer_address)
            narrator.process()
            peer.process()
            narrator.clock.now += timedelta(minutes=1)
            if moved == 0:
                break
        else:
            pytest.fail(f"mail still flowing after 500 rounds: {exchanged}")
        # Bounded: besides the game's own mails, at most an hour's replies and one notice to
        # each responder that marks nothing; the peer and the RFC 3834 responder get no answers.
        limit = Limits().replies_per_hour
        assert exchanged["peer"] <= 2, exchanged
        game_kinds = {"signup_confirmed", "role", "step"}
        ours = narrator.outbox()
        assert {m.kind for m in ours if m.recipient in (good, peer_address)} <= game_kinds
        for responder in (bad, echo):
            # The signup confirmation was a reply too: it used one of the hour's answers.
            replies = [m.kind for m in ours if m.recipient == responder and m.kind != "role"]
            replies = [kind for kind in replies if kind != "step"]
            assert len(replies) == limit + 1, replies
            assert replies[0] == "signup_confirmed"
            assert replies[-1] == NOTICE_KIND
        assert len(ours) == exchanged["ours"]
        assert all(state in ("done", "ignored") for state, _ in narrator.inbox_states())
    finally:
        peer_engine.dispose()


def test_the_narrators_own_addresses_are_folded_once_with_the_settings() -> None:
    settings = InboxSettings(
        address=" Verteller@Example.org", own_addresses=frozenset({"NR@X.org"})
    )
    assert settings.addresses == frozenset({"verteller@example.org", "nr@x.org"})
    assert settings.is_own("VERTELLER+ww5-abc@example.org") and settings.is_own("nr@x.org ")
    assert not settings.is_own("anna@example.org") and not settings.is_own("verteller")
    # Settings made from others (dataclasses.replace) fold their own addresses again.
    other = dataclasses.replace(settings, own_addresses=frozenset())
    assert other.addresses == frozenset({"verteller@example.org"})
    assert not other.is_own("nr@x.org")
