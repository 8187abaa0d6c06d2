"""The example ruleset played by mail in Italian, signup to the end, through the narrator service.

It is the proof that a ruleset is a folder of its own: nothing outside `rules/example/`,
`stories/example/` (and its registry line) knows it, yet signups (`uomo`/`donna`), votes, the
blank word `nessuno`, the wolves' keyword-only `risparmia`, errors and the end all work.
"""

from __future__ import annotations

import email
from collections.abc import Iterator
from datetime import timedelta
from email.message import Message
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import session_factory, transaction
from narrator.inbound.dbsink import DbSink
from narrator.models import Game, GameStatus, OutboxMessage
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, process_pending
from narrator.service.mailer import Mailer
from narrator.service.work import unit_of_work
from stories import FileStore, default_pack_root
from tests.service.test_game_by_mail import NARRATOR, Clock

SIGNUPS = {"Lea": "donna", "Vera": "donna", "Carlo": "uomo", "Dina": "donna", "Ezio": "uomo"}


@pytest.fixture
def factory(engine: Engine) -> Iterator[sessionmaker[Session]]:
    yield session_factory(engine)


class Table:
    """The players' side: they write mail, the narrator reads it at once."""

    def __init__(self, factory: sessionmaker[Session]) -> None:
        self.factory = factory
        self.sink = DbSink(factory)
        self.clock = Clock()
        self.mailer = Mailer(FileStore(default_pack_root()), NARRATOR)
        self.settings = InboxSettings(address=NARRATOR, language="it")
        self.count = 0

    def write(self, name: str, body: str, subject: str = "Borgo") -> str:
        self.count += 1
        message_id = f"<m{self.count}.{name.lower()}@example.org>"
        raw = (
            f"From: {name} <{name.lower()}@example.org>\r\nTo: {NARRATOR}\r\n"
            f"Subject: {subject}\r\nMessage-ID: {message_id}\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        ).encode()
        self.sink.store_sync(raw, source="inject")
        outcomes = process_pending(self.factory, self.mailer, self.settings, self.clock)
        return outcomes[-1].what

    def deadline(self) -> None:
        self.clock.now += timedelta(days=1)
        with unit_of_work(self.factory) as work:
            for game in service.due_games(work.session, self.clock()):
                service.close_step(work, self.mailer, game, now=self.clock())

    def mails(self) -> list[tuple[str, str, Message]]:
        with transaction(self.factory) as session:
            rows = session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
            return [(r.recipient, r.kind, email.message_from_bytes(r.raw)) for r in rows]

    def roles(self) -> dict[str, str]:
        with unit_of_work(self.factory) as work:
            game = work.session.scalars(select(Game)).one()
            view = service.ruleset_of(game).view(work.state(game))
            return {seat.name: seat.role for seat in view.players}


def text_of(message: Message) -> str:
    """The plain text part of a mail the narrator wrote."""
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    raise AssertionError("no text/plain part")


def stories_by_reader(mails: Any) -> dict[str, str]:
    """Address -> the texts of the story mails to it, joined (the public story, then his own)."""
    told: dict[str, str] = {}
    for to, kind, message in mails:
        if kind == "story":
            told[to] = told.get(to, "") + text_of(message)
    return told


def test_an_example_game_by_mail_in_italian(factory: sessionmaker[Session]) -> None:
    table = Table(factory)
    with transaction(factory) as session:
        session.add(
            Game(
                name="Borgo",
                name_key="borgo",
                ruleset="example",
                language="it",
                theme="example",
                speed=86400,
                strictness=3,
                status=GameStatus.SIGNUP.value,
            )
        )
    for name, gender in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    assert table.write("Zeno", "Zeno, forse").startswith("error: bad-gender")

    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=4)
    roles = table.roles()
    wolf = next(n for n, r in roles.items() if r == "lupo")
    seer = next(n for n, r in roles.items() if r == "veggente")
    villagers = [n for n, r in roles.items() if r == "contadino"]
    assert sorted(kind for _, kind, _ in table.mails() if kind == "role") == ["role"] * 5

    # Day 1: a blank vote in Italian, a clear vote, and a word that is nobody.
    assert table.write(villagers[0], "nessuno") == "vote accepted"
    assert table.write(seer, f"Voto per {villagers[1]}") == "vote accepted"
    assert table.write(wolf, "Gandalf").startswith("error: no-name")
    for name in (wolf, villagers[1], villagers[2]):
        assert table.write(name, villagers[1] if name != villagers[1] else seer) == (
            "vote accepted"
        )
    table.deadline()
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        view = service.ruleset_of(game).view(work.state(game))
        assert (view.step, view.night, view.day) == ("notte", 1, 1)
        burnt = [seat.name for seat in view.players if not seat.alive]
    assert burnt == [villagers[1]]

    # Night 1: the wolf spares everybody with the keyword alone; the seer looks at the wolf.
    assert table.write(wolf, "risparmia") == "vote accepted"
    assert table.write(seer, wolf) == "vote accepted"
    assert table.write(villagers[0], wolf) == "vote rejected: not-asked"
    before = len(table.mails())
    table.deadline()
    stories = stories_by_reader(table.mails()[before:])
    seer_story = stories[f"{seer.lower()}@example.org"]
    other_story = stories[f"{villagers[0].lower()}@example.org"]
    assert wolf in seer_story and seer_story != other_story  # the vision is the seer's alone

    # Day 2: the village burns the wolf and wins.
    for name in (seer, villagers[0], villagers[2]):
        assert table.write(name, wolf) == "vote accepted"
    table.deadline()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    over = [to for to, kind, _ in table.mails() if kind == "game_over"]
    assert sorted(over) == sorted(f"{n.lower()}@example.org" for n in SIGNUPS)
    # Every mail is Italian and signed; none names a role in its subject.
    for _to, _kind, message in table.mails():
        subject = str(message["Subject"])
        assert "lupo" not in subject.lower() and "veggente" not in subject.lower()
