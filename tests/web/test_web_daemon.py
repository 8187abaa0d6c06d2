"""The pages inside a running daemon: a vote in a player's page form is stored in the inbox and
wakes the daemon's inbox worker at once (not at its next poll), which answers it with the
receipt mail, as it answers a mail; the personal reply address (plus addressing) is its To.
An admin panel's action is acted on at once too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.config import Config, load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction, upgrade
from narrator.models import (
    AdminAction,
    Game,
    InboxMessage,
    OutboxMessage,
    PageChapter,
    Player,
    Vote,
)
from narrator.service import games as service
from narrator.service.mailer import Mailer
from narrator.service.work import unit_of_work
from narrator.web.tokens import page_token
from stories import FileStore
from stories.words import load_words
from tests.support.admin import BOSS, AdminClient, csrf_of, store_hash
from tests.support.aio import run_async, wait_until
from tests.support.bymail import NARRATOR
from tests.support.web import fetch, post_form

SECRET = "pages key"
#: Polls far apart: only the wake-up of the form's vote can make the receipt come quickly.
OPTIONS = DaemonOptions(inbox_interval=600.0, scheduler_poll=600.0, outbox_poll=600.0)
NAMES = ("Anna", "Bram", "Carla", "Dirk", "Eva", "Frank")


def _sign_up(factory: sessionmaker[Session]) -> None:
    """A Wakkerdam game of six taking signups."""
    with transaction(factory) as session:
        game = Game(
            name="WW5",
            name_key="ww5",
            ruleset="wakkerdam",
            language="nl",
            theme="wakkerdam",
            speed=86400,
            strictness=2,
            status="signup",
        )
        session.add(game)
        session.flush()
        for seat, name in enumerate(NAMES, start=1):
            email = f"{name.lower()}@example.org"
            session.add(
                Player(
                    game_id=game.id,
                    seat=seat,
                    name=name,
                    name_key=name.lower(),
                    email=email,
                    gender="vrouw",
                )
            )


def _start_game(factory: sessionmaker[Session]) -> dict[str, str]:
    """A started Wakkerdam game of six; returns player -> his page token."""
    _sign_up(factory)
    mailer = Mailer(FileStore(), NARRATOR)
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, mailer, game, now=game.created_at, seed=7)
        players = work.session.scalars(select(Player)).all()
        return {p.name: page_token(SECRET, game.id, p.id) for p in players}


def _configured(
    tmp_path: Path, extra: str = "", environ: Mapping[str, str] | None = None
) -> tuple[Config, Engine, sessionmaker[Session]]:
    """A daemon's configuration on a new SQLite database in `tmp_path` (no SMTP receiver, its mail
    to the Maildir ``outbox``, the pages on a free port, then the TOML `extra`), read with
    `environ` (the pages' key by default); the database migrated, an engine and sessions on it."""
    database = f"sqlite:///{tmp_path / 'narrator.db'}"
    path = tmp_path / "narrator.toml"
    path.write_text(
        f'[narrator]\ndatabase = "{database}"\naddress = "{NARRATOR}"\n'
        "[inbound.smtp]\nenabled = false\n"
        '[outbound]\nmaildir = "outbox"\n'
        "[web]\nport = 0\n" + extra,
        encoding="utf-8",
    )
    config = load_config(path, environ=environ or {"NARRATOR_WEB_SECRET": SECRET})
    upgrade(database)
    engine = make_engine(database)
    return config, engine, session_factory(engine)


def test_a_form_vote_wakes_the_daemon_and_gets_its_receipt(tmp_path: Path) -> None:
    environ = {"NARRATOR_WEB_SECRET": SECRET, "NARRATOR_REPLY_SECRET": "reply key"}
    config, engine, factory = _configured(tmp_path, "[security]\nplus_addressing = true\n", environ)
    tokens = _start_game(factory)

    def receipts() -> list[str]:
        with transaction(factory) as session:
            query = select(OutboxMessage.recipient).where(OutboxMessage.kind == "receipt")
            return list(session.scalars(query))

    words = load_words("wakkerdam", "nl")

    async def scenario() -> tuple[str, list[str]]:
        async with Daemon(config, options=OPTIONS) as daemon:
            root = f"http://127.0.0.1:{daemon.web_port}"
            voter = None
            for name, token in tokens.items():
                data = json.loads((await asyncio.to_thread(fetch, f"{root}/p/{token}.json")).body)
                if data["asked"]:
                    voter, choices = name, data["choices"][0]
                    break
            assert voter is not None
            fields = [("name", n) for n in choices["choices"] if n != voter][:1]
            if choices["keyword"]:
                fields.append(("keyword", words.keywords[choices["keyword"]][0]))
            url = f"{root}/p/{tokens[voter]}"
            page = await asyncio.to_thread(post_form, url, fields)
            assert page.status == 200 and "Je stem is onderweg" in page.text
            await wait_until(lambda: bool(receipts()), timeout=10, message="the receipt")
            return voter, receipts()

    voter, got = run_async(scenario())
    assert got == [f"{voter.lower()}@example.org"]
    with transaction(factory) as session:
        [vote] = session.scalars(select(Vote)).all()
        [mail] = session.scalars(select(InboxMessage)).all()
        assert mail.state == "done" and vote.inbox_id == mail.id and mail.source == "web"
        # Written to his personal reply address, as plus addressing asks of his votes.
        assert b"To: verteller+ww5-" in mail.raw
    engine.dispose()


def test_an_admin_panel_action_is_acted_on_by_the_daemon_at_once(
    tmp_path: Path, boss_hash: str
) -> None:
    """An admin starts a game in the panel of a running daemon: its role mails go out at once,
    though every poll (and the change watcher's) is ten minutes away."""
    config, engine, factory = _configured(tmp_path, f'[admins]\nemails = ["{BOSS}"]\n')
    _sign_up(factory)
    store_hash(factory, BOSS, boss_hash)

    def sent() -> list[str]:
        with transaction(factory) as session:
            query = select(OutboxMessage.recipient).where(
                OutboxMessage.kind == "role", OutboxMessage.state == "sent"
            )
            return sorted(session.scalars(query))

    async def scenario() -> list[str]:
        options = replace(OPTIONS, change_interval=600.0)
        async with Daemon(config, options=options) as daemon:
            client = AdminClient(f"http://127.0.0.1:{daemon.web_port}")
            assert (await asyncio.to_thread(client.login)).status == 303
            page = await asyncio.to_thread(client.get, "/admin/games/WW5")
            answer = await asyncio.to_thread(
                client.post, "/admin/games/WW5/start", {"csrf": csrf_of(page), "seed": "7"}
            )
            assert answer.status == 303, answer.text
            await wait_until(lambda: len(sent()) == len(NAMES), timeout=10, message="role mails")
            return sent()

    assert run_async(scenario()) == sorted(f"{name.lower()}@example.org" for name in NAMES)
    assert len(list((tmp_path / "outbox" / "new").iterdir())) >= len(NAMES)
    with transaction(factory) as session:
        [action] = session.scalars(select(AdminAction)).all()
        assert (action.by, action.action, action.game) == (BOSS, "start", "WW5")
    engine.dispose()


def test_the_daemon_builds_an_older_game_s_stories_once_at_its_start(tmp_path: Path) -> None:
    """A game whose stories were told before the pages stored them (an upgraded database):
    the daemon's start tells them again from the log and stores them, before any page."""
    config, engine, factory = _configured(tmp_path)
    _start_game(factory)
    mailer = Mailer(FileStore(), NARRATOR)
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.close_step(work, mailer, game, now=game.created_at + timedelta(days=1))

    def stored() -> list[tuple[int | None, str, str]]:
        with transaction(factory) as session:
            query = select(PageChapter.player_id, PageChapter.kind, PageChapter.story)
            return sorted((tuple(row) for row in session.execute(query)), key=repr)

    told = stored()
    assert told
    with transaction(factory) as session:  # as a game of before migrations 0008 and 0009
        session.execute(delete(PageChapter))
        game = session.scalars(select(Game)).one()
        game.chapters_stored = game.news_stored = False

    async def scenario() -> None:
        async with Daemon(config, options=OPTIONS):
            pass

    run_async(scenario())
    assert stored() == told
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.chapters_stored and game.news_stored
    engine.dispose()
