"""A whole game played through the inbox: signups, start, votes by mail, deadlines, the end."""

from __future__ import annotations

import email
from datetime import timedelta
from email.message import Message

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.inbound.dbsink import DbSink
from narrator.models import Game, GameLogEntry, GameStatus, OutboxMessage, game_players
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, process_pending
from narrator.service.mailer import Mailer
from narrator.service.work import unit_of_work
from tests.support.bymail import NARRATOR, Clock, compose
from tests.support.shipped import shipped_mailer


def mail(sender: str, subject: str, body: str, n: int) -> bytes:
    """Mail number ``n`` of ``sender`` (Message-ID ``<mN.sender>``)."""
    return compose(sender, subject, body, f"m{n}.{sender}")


@pytest.fixture
def mailer() -> Mailer:
    return shipped_mailer(NARRATOR)


def outbox(factory: sessionmaker[Session]) -> list[tuple[str, str, Message]]:
    with transaction(factory) as session:
        rows = session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        return [(r.recipient, r.kind, email.message_from_bytes(r.raw)) for r in rows]


def test_a_game_from_signup_to_the_end(factory: sessionmaker[Session], mailer: Mailer) -> None:
    clock = Clock()
    settings = InboxSettings(address=NARRATOR, admins=("beheer@example.org",))
    sink = DbSink(factory)
    with transaction(factory) as session:
        session.add(
            Game(
                name="WW5",
                name_key="ww5",
                ruleset="wakkerdam",
                language="nl",
                theme="wakkerdam",
                speed=3600,
                strictness=2,
                status="signup",
            )
        )
    names = ["Anna", "Bram", "Carla", "Dirk", "Eva", "Frank"]
    counter = iter(range(10_000))
    for name in names:
        gender = "vrouw" if name in ("Anna", "Carla", "Eva") else "man"
        sink.store_sync(
            mail(f"{name.lower()}@example.org", "WW5", f"{name}, {gender}", next(counter)),
            source="inject",
        )
    outcomes = process_pending(factory, mailer, settings, clock)
    assert [o.what for o in outcomes] == [f"signup: {n}" for n in names]
    sent = outbox(factory)
    assert [(to, kind) for to, kind, _ in sent] == [
        (f"{n.lower()}@example.org", "signup_confirmed") for n in names
    ]
    first = sent[0][2]
    assert first["Auto-Submitted"] == "auto-replied"
    assert first["In-Reply-To"] == "<m0.anna@example.org>"

    with unit_of_work(factory) as work:
        session = work.session
        game = session.scalars(select(Game)).one()
        service.start_game(work, mailer, game, now=clock(), seed=7)
        assert game.status == GameStatus.RUNNING.value
        roles = {p.name: p.role for p in service.load_state(work, game).players}
    kinds = [kind for _, kind, _ in outbox(factory)]
    assert kinds.count("role") == 6

    # Play: everybody asked votes for the first valid choice each step; deadlines pass.
    for _ in range(200):
        with unit_of_work(factory) as work:
            session = work.session
            game = session.scalars(select(Game)).one()
            if game.status == GameStatus.ENDED.value:
                break
            rs = service.ruleset_of(game)
            state = service.load_state(work, game)
            players = {p.name: p for p in game_players(session, game)}
            ballots = []
            for name in rs.asked(state):
                choices = rs.choices(state, name)
                action = choices.actions[0]
                keyword = f" {action.keyword}" if action.keyword else ""
                body = (
                    " ".join(action.targets[: action.min_names])
                    if action.targets and action.min_names
                    else "blanco"
                )
                ballots.append(mail(players[name].email, "WW5", body + keyword, next(counter)))
        for raw in ballots:
            sink.store_sync(raw, source="inject")
        process_pending(factory, mailer, settings, clock)
        clock.now += timedelta(hours=1)
        with unit_of_work(factory) as work:
            session = work.session
            for game in service.due_games(session, clock()):
                service.close_step(work, mailer, game, now=clock())
    with unit_of_work(factory) as work:
        session = work.session
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
        state = service.load_state(work, game)
        entries = session.scalars(
            select(GameLogEntry).where(GameLogEntry.game_id == game.id).order_by(GameLogEntry.seq)
        ).all()
        replayed = service.replay(game, entries)
        assert service.ruleset_of(game).dump_state(replayed) == game.state
    sent = outbox(factory)
    over = [to for to, kind, _ in sent if kind == "game_over"]
    assert sorted(over) == sorted(f"{n.lower()}@example.org" for n in names)
    assert {kind for _, kind, _ in sent} >= {
        "signup_confirmed",
        "role",
        "step",
        "receipt",
        "story",
        "game_over",
    }
    assert roles  # dealt
