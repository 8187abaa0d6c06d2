"""A big game's mails, read as a player reads them: more than BIG_GAME living players and the
pages configured, a step mail tells how many are alive and dead, names who just died and links
the game's page and his own, and lists no village of names; a small game's are as they were."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import UTC, datetime
from email.message import EmailMessage
from random import Random

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.inbound.dbsink import DbSink
from narrator.models import Game, GameStatus, OutboxMessage, Player, fold_name
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, process_pending
from narrator.service.work import unit_of_work
from narrator.web.tokens import PageLinks
from stories.helpers import Helpers
from stories.layout import BIG_GAME, fill
from stories.words import load_words
from tests.support.shipped import shipped_mailer

#: Who misses two votes in a row dies of it: a step kills, and its mail names the dead.
STRICTNESS = 2
BASE_URL = "https://narrator.example.org"
PAGES = PageLinks("a-key-for-the-pages-of-at-least-32-bytes", BASE_URL)
NOW = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
FIRST = "Anna Bram Carla Dirk Eva Frank Greet Hans Ilse Joost Karin Lars Mieke Niels Olga Piet"

#: One pack of each language: (ruleset, language, theme).
PACKS = [
    ("wakkerdam", "nl", "wakkerdam"),
    ("wakkerdam", "en", "wakkerdam"),
    ("lupus", "it", "lupus"),
    ("mafia", "ru", "mafia"),
]


def _names(count: int) -> list[str]:
    base = FIRST.split()
    return [f"{base[n % len(base)]}{n // len(base) or ''}" for n in range(count)]


def _new_game(
    factory: sessionmaker[Session], ruleset: str, language: str, theme: str, players: int
) -> int:
    with factory.begin() as session:
        game = Game(
            name="Groot",
            name_key="groot",
            ruleset=ruleset,
            language=language,
            theme=theme,
            speed=86400,
            strictness=STRICTNESS,
            status=GameStatus.SIGNUP.value,
        )
        session.add(game)
        session.flush()
        for seat, name in enumerate(_names(players), start=1):
            session.add(
                Player(
                    game_id=game.id,
                    seat=seat,
                    email=f"{name.lower()}@example.org",
                    name=name,
                    name_key=fold_name(name),
                    gender="vrouw" if seat % 2 else "man",
                )
            )
        return game.id


def _step_mails(
    factory: sessionmaker[Session],
    pack: tuple[str, str, str],
    players: int,
    *,
    after_deaths: bool = False,
) -> tuple[list[EmailMessage], list[str], list[str]]:
    """Start a game of `players` and close its steps until one asks every living player (with
    `after_deaths`, one that follows a step in which players died); return the step mails of
    that step, the living and who died in the step closed."""
    ruleset, language, theme = pack
    game_id = _new_game(factory, ruleset, language, theme, players)
    mailer = shipped_mailer("verteller@example.org", pages=PAGES)
    with unit_of_work(factory) as work:
        service.start_game(work, mailer, work.session.get(Game, game_id), now=NOW, seed=3)
    for _ in range(20):
        with unit_of_work(factory) as work:
            session = work.session
            before = session.scalar(select(OutboxMessage.id).order_by(OutboxMessage.id.desc()))
            game = session.get(Game, game_id)
            assert game is not None
            events = service.close_step(work, mailer, game, now=NOW)
            rs = service.ruleset_of(game)
            state = work.state(game)
            view = rs.view(state)
            assert not view.over
            fallen = [
                str(e["player"])
                for e in events
                if e.get("type") == "death" and e.get("audience") == "public"
            ]
            if sorted(rs.asked(state)) != sorted(view.alive) or (after_deaths and not fallen):
                continue
            work.flush()  # the mails the step queued are inserted when the unit of work flushes
            rows = session.scalars(
                select(OutboxMessage).where(
                    OutboxMessage.id > (before or 0), OutboxMessage.kind == "step"
                )
            ).all()
            mails = [email.message_from_bytes(r.raw, policy=email.policy.default) for r in rows]
            read = [m for m in mails if isinstance(m, EmailMessage)]
            return read, list(view.alive), fallen
    raise AssertionError("no step asks every living player")


def _text(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")  # type: ignore[attr-defined]


def _html(mail: EmailMessage) -> str:
    part = mail.get_body(("html",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("pack", "players", "after_deaths"),
    [
        # Wakkerdam: a hundred players, at the day's vote after the night's (and the Mayor
        # election's) missed votes killed some: the mail names them.
        (("wakkerdam", "nl", "wakkerdam"), 100, True),
        (("wakkerdam", "en", "wakkerdam"), 100, True),
        # Lupus: sixty, at the first day's vote (nobody has died yet).
        (("lupus", "it", "lupus"), 60, False),
    ],
)
def test_a_big_games_step_mail_sums_up_and_links_the_pages(
    factory: sessionmaker[Session], pack: tuple[str, str, str], players: int, after_deaths: bool
) -> None:
    mails, living, fallen = _step_mails(factory, pack, players, after_deaths=after_deaths)
    assert len(living) > BIG_GAME
    assert bool(fallen) == after_deaths
    words = load_words(pack[0], pack[1]).mail
    everybody = _names(players)
    assert len(mails) == len(living)
    for mail in mails[:3]:
        text, html = _text(mail), _html(mail)
        story, _, roster = text.partition("\n-- \n")
        lines = roster.splitlines()
        # How many are alive and dead, who just died, and where every name is.
        dead = str(players - len(living))
        assert lines[0] == fill(words.roster_count, alive=str(len(living)), dead=dead), roster
        game_link = f"{BASE_URL}/games/Groot"
        assert lines[-1] == fill(words.roster_link, url=game_link)
        if fallen:
            names = load_words(pack[0], pack[1])  # the language's list: "A, B en C"
            assert len(lines) == 3, roster
            for name in fallen:
                assert name in lines[1], (name, roster)
            assert lines[1].startswith(words.roster_fallen.partition("{")[0]), names.language
        # His own page, where his choices are: the step's line says how many, and links it.
        own = f"{BASE_URL}/p/"
        said = [line for line in story.splitlines() if own in line and str(len(living)) in line]
        assert said, story
        assert f'<a href="{game_link}">{game_link}</a>' in html
        # No list of the village: his own name, a name or two as an example (and who just
        # died), not every name.
        story_names = [n for n in everybody if n not in fallen]
        shown = [name for name in story_names if f"{name}\n" in text or f"{name}," in text]
        assert len(shown) <= 5, shown
        assert len([name for name in story_names if f">{name}<" in html]) <= 5


@pytest.mark.parametrize("pack", PACKS[:3])
def test_a_small_games_step_mail_still_lists_every_name(
    factory: sessionmaker[Session], pack: tuple[str, str, str]
) -> None:
    mails, living, _fallen = _step_mails(factory, pack, 12)
    words = load_words(pack[0], pack[1]).mail
    assert mails
    for mail in mails[:3]:
        text = _text(mail)
        story, _, roster = text.partition("\n-- \n")
        first = fill(words.alive, count=str(len(living)))
        assert roster.startswith(f"{first}: "), roster
        for name in living:
            assert name in roster and name in story, (name, roster)
        assert "/games/" not in text


def _outbox(factory: sessionmaker[Session], kind: str, after: int = 0) -> list[EmailMessage]:
    """The queued mails of `kind` after outbox row `after`, as their readers read them."""
    with factory.begin() as session:
        rows = session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.id > after, OutboxMessage.kind == kind)
            .order_by(OutboxMessage.id)
        ).all()
        raws = [row.raw for row in rows]
    mails = [email.message_from_bytes(raw, policy=email.policy.default) for raw in raws]
    return [m for m in mails if isinstance(m, EmailMessage)]


def _last_outbox_id(factory: sessionmaker[Session]) -> int:
    with factory.begin() as session:
        return session.scalar(select(OutboxMessage.id).order_by(OutboxMessage.id.desc())) or 0


def _start(factory: sessionmaker[Session], pack: tuple[str, str, str], players: int) -> None:
    game_id = _new_game(factory, *pack, players)
    mailer = shipped_mailer("verteller@example.org", pages=PAGES)
    with unit_of_work(factory) as work:
        service.start_game(work, mailer, work.session.get(Game, game_id), now=NOW, seed=3)


@pytest.mark.parametrize("pack", PACKS[:3])
def test_a_big_games_role_mails_sum_up_the_players_and_link_the_game_page(
    factory: sessionmaker[Session], pack: tuple[str, str, str]
) -> None:
    """(Not Mafia: a Mafia game has at most 40 players, never a big game; tests/stories renders
    its role mail with a big sample all the same.)"""
    players = 60
    _start(factory, pack, players)
    mails = _outbox(factory, "role")
    assert len(mails) == players
    words = load_words(pack[0], pack[1]).mail
    game_link = f"{BASE_URL}/games/Groot"
    everybody = _names(players)
    for mail in mails[:3]:
        text, html = _text(mail), _html(mail)
        # How many play, and where every name is: the game's page (and his own, as ever).
        summary = " ".join(
            [
                fill(words.roster_count, alive=str(players), dead="0"),
                fill(words.roster_link, url=game_link),
            ]
        )
        assert summary in text, text
        assert game_link in html
        assert f"{BASE_URL}/p/" in text
        # No list of the village: his own name, a mate or two, not every name.
        shown = [name for name in everybody if re.search(rf"\b{name}\b", text)]
        assert len(shown) <= 5, shown
        assert len(text) < 4000, len(text)


@pytest.mark.parametrize("pack", PACKS[:3])
def test_a_small_games_role_mail_still_names_every_player(
    factory: sessionmaker[Session], pack: tuple[str, str, str]
) -> None:
    _start(factory, pack, 12)
    for mail in _outbox(factory, "role")[:3]:
        text = _text(mail)
        for name in _names(12):
            assert name in text, (name, text)
        assert "/games/" not in text


def _write(factory: sessionmaker[Session], name: str, body: str, language: str) -> str:
    """`name` mails `body` to the game Groot; return what the narrator made of it."""
    raw = (
        f"From: {name} <{name.lower()}@example.org>\r\nTo: verteller@example.org\r\n"
        f"Subject: Groot\r\nMessage-ID: <{name.lower()}.{len(body)}@example.org>\r\n"
        f"Date: Fri, 20 Nov 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"\r\n{body}\r\n"
    ).encode()
    DbSink(factory).store_sync(raw, source="inject")
    mailer = shipped_mailer("verteller@example.org", pages=PAGES)
    settings = InboxSettings(address="verteller@example.org", language=language)
    return process_pending(factory, mailer, settings, lambda: NOW)[-1].what


@pytest.mark.parametrize(
    ("pack", "players"), [(("wakkerdam", "nl", "wakkerdam"), 100), (("lupus", "it", "lupus"), 60)]
)
def test_a_big_games_error_mail_counts_the_choices_and_links_his_page(
    factory: sessionmaker[Session], pack: tuple[str, str, str], players: int
) -> None:
    _mails, living, _fallen = _step_mails(factory, pack, players)
    before = _last_outbox_id(factory)
    voter = living[0]
    # A vote that names nobody: the parser's error, with what he may choose.
    assert _write(factory, voter, "Hallo allemaal", pack[1]) == "error: no-name"
    [mail] = _outbox(factory, "error", before)
    text, html = _text(mail), _html(mail)
    words = load_words(pack[0], pack[1])
    helpers = Helpers(words, (), Random(0))
    page = f"{BASE_URL}/p/"
    count = helpers.count(len(living), *words.mail.name_forms)
    said = [line for line in text.splitlines() if page in line and count in line]
    assert said and said[0].startswith(words.mail.choices_elsewhere.partition("{")[0]), text
    assert page in html
    shown = [name for name in living if name != voter and re.search(rf"\b{name}\b", text)]
    assert len(shown) <= 2, shown
    assert len(text) < 3000, len(text)


def test_a_small_games_error_mail_still_lists_every_choice(
    factory: sessionmaker[Session],
) -> None:
    pack = ("wakkerdam", "nl", "wakkerdam")
    _mails, living, _fallen = _step_mails(factory, pack, 12)
    before = _last_outbox_id(factory)
    assert _write(factory, living[0], "Hallo allemaal", "nl") == "error: no-name"
    [mail] = _outbox(factory, "error", before)
    text = _text(mail)
    for name in living:
        assert f"- {name}\n" in text, (name, text)
    assert "/p/" not in text
