"""A whole game by mail, read as the players' mail clients thread it, with its deadlines.

Each player's mails form one thread per game (every mail References the game's root), each
game day one conversation (one subject per day or night, no role in it), and each answer to
his mail sits under that mail (``Re: <his subject>``, ``In-Reply-To``, his References kept).
The game runs in Europe/Amsterdam: deadlines are written in its wall-clock time, zone named.
"""

from __future__ import annotations

import email
import email.header
import email.policy
import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import session_factory, transaction
from narrator.inbound.dbsink import DbSink
from narrator.models import Game, GameStatus, OutboxMessage, game_players
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, process_pending
from narrator.service.threads import MAX_SUBJECT, reply_subject, root_message_id
from narrator.service.work import unit_of_work
from tests.stories.test_stories_subjects import role_words
from tests.support.shipped import shipped_mailer

NARRATOR = "verteller@example.org"
START = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)  # 10:00 in Amsterdam (CET)
NAMES = ["Anna", "Bram", "Carla", "Dirk", "Eva", "Frank"]
GENERATED = ("role", "step", "story", "reminder", "game_over")
MOMENT = {"nl": r"(Het begin|Nacht \d+|Dag \d+)", "en": r"(The beginning|Night \d+|Day \d+)"}


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def raw_mail(sender: str, subject: str, body: str, message_id: str, references: str = "") -> bytes:
    threading = ""
    if references:
        threading = f"In-Reply-To: {references.split()[-1]}\r\nReferences: {references}\r\n"
    # Encoded as a mail client writes it (RFC 2047: "=?utf-8?q?Re=3A_WW5_=E2=80=94_Nacht_1?=").
    header = email.header.Header(subject, "utf-8").encode() if not subject.isascii() else subject
    return (
        f"From: {sender}\r\nTo: {NARRATOR}\r\nSubject: {header}\r\n"
        f"Message-ID: {message_id}\r\nDate: Wed, 18 Nov 2026 09:00:00 +0000\r\n"
        f"{threading}"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


@pytest.fixture
def factory(engine: Engine) -> Iterator[sessionmaker[Session]]:
    yield session_factory(engine)


def sent_mails(
    factory: sessionmaker[Session], after: int = 0
) -> list[tuple[int, str, str, EmailMessage]]:
    with transaction(factory) as session:
        rows = session.scalars(
            select(OutboxMessage).where(OutboxMessage.id > after).order_by(OutboxMessage.id)
        ).all()
        return [
            (
                r.id,
                r.recipient,
                r.kind,
                email.message_from_bytes(r.raw, policy=email.policy.default),
            )
            for r in rows
        ]


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


@pytest.mark.parametrize("language", ["nl", "en"])
def test_a_whole_game_threads_per_game_and_per_day(
    factory: sessionmaker[Session], language: str
) -> None:
    clock = Clock()
    mailer = shipped_mailer(NARRATOR)
    settings = InboxSettings(address=NARRATOR, admins=("beheer@example.org",))
    sink = DbSink(factory)
    with transaction(factory) as session:
        game = Game(
            name="WW5",
            name_key="ww5",
            ruleset="wakkerdam",
            language=language,
            theme="wakkerdam",
            timezone="Europe/Amsterdam",
            speed=3600,
            strictness=2,
            status="signup",
        )
        session.add(game)
        session.flush()
        root = root_message_id(game, "example.org")
    counter = iter(range(10_000))
    # What each player sent: Message-ID -> (subject, References he wrote).
    written: dict[str, tuple[str, str]] = {}

    def send(sender: str, subject: str, body: str, references: str = "") -> None:
        message_id = f"<p{next(counter)}.{sender}>"
        written[message_id] = (subject, references)
        sink.store_sync(raw_mail(sender, subject, body, message_id, references), source="inject")

    for name in NAMES:
        gender = "vrouw" if name in ("Anna", "Carla", "Eva") else "man"
        send(f"{name.lower()}@example.org", "WW5", f"{name}, {gender}")
    process_pending(factory, mailer, settings, clock)
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, mailer, game, now=clock(), seed=7)

    first_step = [m for _, _, kind, m in sent_mails(factory) if kind == "step"]
    assert first_step
    # 09:00 UTC + one hour = 11:00 in Amsterdam, written with the zone's name.
    local = "om 11:00 (Europe/Amsterdam)" if language == "nl" else "at 11:00 (Europe/Amsterdam)"
    assert all(local in text_of(m) for m in first_step)

    latest: dict[str, EmailMessage] = {}  # each player's latest step mail, to reply to
    batches: list[list[tuple[str, str, EmailMessage]]] = []
    seen = 0
    bad_vote_sent = False
    for round_number in range(200):
        new = sent_mails(factory, seen)
        if new:
            seen = new[-1][0]
            batches.append([(to, kind, m) for _, to, kind, m in new])
        for _, to, kind, message in new:
            if kind == "step":
                latest[to] = message
        with unit_of_work(factory) as work:
            session = work.session
            game = session.scalars(select(Game)).one()
            if game.status == GameStatus.ENDED.value:
                break
            rs = service.ruleset_of(game)
            state = service.load_state(work, game)
            players = {p.name: p for p in game_players(session, game)}
            ballots = []
            for n, name in enumerate(rs.asked(state)):
                action = rs.choices(state, name).actions[0]
                keyword = f" {action.keyword}" if action.keyword else ""
                body = (
                    " ".join(action.targets[: action.min_names])
                    if action.targets and action.min_names
                    else "blanco"
                )
                ballots.append((players[name].email, body + keyword, n))
        for sender, body, n in ballots:
            step_mail = latest[sender]
            if n == 0 and round_number % 2:
                send(sender, "WW5", body)  # a new mail, as the step mail says
                continue
            # A reply to the step mail, as a mail client writes it.
            chain = f"{step_mail['References']} {step_mail['Message-ID']}"
            if not bad_vote_sent:
                bad_vote_sent = True
                send(sender, f"Re: {step_mail['Subject']}", "Zorro", chain)
            send(sender, f"Re: {step_mail['Subject']}", body, chain)
        process_pending(factory, mailer, settings, clock)
        clock.now += timedelta(hours=1)
        with unit_of_work(factory) as work:
            for game in service.due_games(work.session, clock()):
                service.close_step(work, mailer, game, now=clock())
    new = sent_mails(factory, seen)
    batches.append([(to, kind, m) for _, to, kind, m in new])

    everything = [item for batch in batches for item in batch]
    signups = [m for _, _, kind, m in sent_mails(factory) if kind == "signup_confirmed"]
    assert {kind for _, kind, _ in everything} >= {"receipt", "error", "step", "story"}
    assert len(signups) == len(NAMES) and bad_vote_sent
    roles = re.compile(
        r"\b(" + "|".join(map(re.escape, role_words("wakkerdam", language))) + r")\b", re.IGNORECASE
    )
    day = re.compile(rf"WW5 — {MOMENT[language]}")
    per_player: dict[str, set[str]] = defaultdict(set)
    for message in [*signups, *(m for _, _, m in everything)]:
        references = message["References"].split()
        assert references[0] == root, "every game mail References the game's root"
        subject = str(message["Subject"])
        assert not roles.search(subject), subject
        per_player[str(message["To"])].add(subject)
        answered = message["In-Reply-To"]
        if answered is None:
            assert day.fullmatch(subject), subject
            assert message["Auto-Submitted"] == "auto-generated"
            assert references == [root]
            continue
        # An answer: under the player's own mail, his subject with one "Re: ", his chain kept.
        their_subject, their_references = written[answered]
        assert subject == reply_subject(their_subject)
        assert subject.startswith("Re: ") and not subject.startswith("Re: Re:")
        assert references[-1] == answered
        assert references[:-1] == list(dict.fromkeys([root, *their_references.split()]))
        assert message["Auto-Submitted"] == "auto-replied"
    # One subject per game day: in every batch (a step closed, the next opened) the stories
    # share one subject and the step mails one subject, for every player alike.
    for batch in batches:
        for kind in GENERATED:
            subjects = {str(m["Subject"]) for _, k, m in batch if k == kind}
            assert len(subjects) <= 1, (kind, subjects)
    # A player's conversations: a few days and nights, not one per mail.
    for player, subjects in per_player.items():
        generated = {s for s in subjects if not s.startswith("Re: ")}
        assert len(generated) < len(subjects), player
    reminders = [m for _, k, m in everything if k == "reminder"]
    for message in reminders:
        assert "(Europe/Amsterdam)" in text_of(message)


def test_an_answer_keeps_the_player_s_subject_header_safe() -> None:
    assert reply_subject("WW5") == "Re: WW5"
    assert reply_subject("RE: WW5 — Dag 2") == "RE: WW5 — Dag 2"
    assert reply_subject("re : WW5") == "re : WW5"
    assert reply_subject("Antw: WW5") == "Re: Antw: WW5"
    assert reply_subject("WW5\r\nBcc: evil@example.net\x00") == "Re: WW5 Bcc: evil@example.net"
    assert reply_subject("  \t ") == ""
    long = reply_subject("WW5 " + "stem " * 100)
    assert len(long) <= MAX_SUBJECT and long.endswith("…") and long.startswith("Re: WW5 stem")


def test_the_root_is_stable_and_names_the_game() -> None:
    game = Game(id=42, name="WW5", created_at=datetime(2026, 11, 18, 9, 0, 5, tzinfo=UTC))
    assert root_message_id(game, "Example.ORG") == "<narrator.game-42.20261118T090005@example.org>"
    with pytest.raises(ValueError):
        root_message_id(game, "bad domain>")


@settings(max_examples=300, deadline=None)
@given(st.datetimes())
def test_the_root_writes_the_creation_time_as_strftime(created: datetime) -> None:
    game = Game(id=7, name="WW5", created_at=created.replace(tzinfo=UTC))
    assert root_message_id(game, "example.org") == (
        f"<narrator.game-7.{created:%Y%m%dT%H%M%S}@example.org>"
    )
    assert root_message_id(Game(id=7, name="WW5"), "example.org") == (
        "<narrator.game-7@example.org>"
    )


def test_a_deadline_is_written_in_the_game_s_zone() -> None:
    from narrator.service.story_context import story_game

    game = Game(
        id=1,
        name="WW5",
        ruleset="wakkerdam",
        language="nl",
        theme="wakkerdam",
        timezone="America/New_York",
        speed=3600,
        strictness=2,
        status="signup",
        deadline=datetime(2026, 7, 1, 16, 30, tzinfo=UTC),
    )
    context = story_game(game, None)
    assert context["timezone"] == "America/New_York"
    assert context["deadline"] == datetime(2026, 7, 1, 12, 30, tzinfo=ZoneInfo("America/New_York"))
    assert context["deadline"].utcoffset() == timedelta(hours=-4)
    game.timezone = "Nowhere/Atlantis"  # a zone this machine lacks: UTC, and named so
    context = story_game(game, None)
    assert context["timezone"] == "UTC" and context["deadline"].hour == 16
