"""The game pages read the stories as the post office stored them when it mailed them
(page_chapters: the village's, each player's private ones, the epilogue), never the log: every
page of a game (public, each player's own, their JSON, the ended game's) reads the same with
the game's log deleted.  A game told before its stories were stored has them built once from
its log (narrator.service.pages): the same rows, so the same pages."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import ChapterKind, Game, GameLogEntry, PageChapter, Player, game_players
from narrator.service.pages import build_missing_pages, build_pages
from narrator.service.removal import remove_player
from narrator.service.table import table_of
from narrator.service.work import unit_of_work
from narrator.web.tokens import page_token
from stories import Renderer
from stories.store import MemoryStore
from tests.support.botgame import BotGame
from tests.support.bymail import Table, game_view
from tests.support.shipped import SHIPPED_RENDERER
from tests.support.web import fetch, serving, site_of

SECRET = "the key of the personal links"
GAME = BotGame(
    "wakkerdam",
    "nl",
    "WW6",
    (
        ("Anna", "vrouw"),
        ("Bram", "man"),
        ("Carla", "vrouw"),
        ("Dirk", "man"),
        ("Eva", "vrouw"),
        ("Frank", "man"),
        ("Greet", "vrouw"),
        ("Hans", "man"),
        ("Ilse", "vrouw"),
    ),
    seed=11,
)
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _pages(factory: sessionmaker[Session], root: str) -> dict[str, str]:
    """Every page of the game: public, and each player's own, with their JSON."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
        tokens = {
            p.name: page_token(SECRET, game.id, p.id) for p in game_players(work.session, game)
        }
    pages = {
        "public": fetch(f"{root}/games/{GAME.name}").body,
        "public.json": fetch(f"{root}/games/{GAME.name}.json").body,
    }
    for name, token in tokens.items():
        page = fetch(f"{root}/p/{token}")
        assert page.status == 200, name
        pages[name] = page.body
        pages[f"{name}.json"] = fetch(f"{root}/p/{token}.json").body
    return pages


def _rows(factory: sessionmaker[Session]) -> list[tuple[int | None, str, str, str, object]]:
    """The game's stored stories, in the order told: (player, kind, moment, text, tallies)."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
        query = (
            select(
                PageChapter.player_id,
                PageChapter.kind,
                PageChapter.moment,
                PageChapter.story,
                PageChapter.tallies,
            )
            .where(PageChapter.game_id == game.id)
            .order_by(PageChapter.id)
        )
        return [tuple(row) for row in work.session.execute(query)]


def _forget(factory: sessionmaker[Session], *, village: bool, news: bool) -> None:
    """Make the game one told before its stories were stored (the village's, the rest)."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
        mine = PageChapter.game_id == game.id
        told = PageChapter.player_id.is_(None) & (PageChapter.kind == ChapterKind.STORY.value)
        if village:
            work.session.execute(delete(PageChapter).where(mine & told))
            game.chapters_stored = False
        if news:
            work.session.execute(delete(PageChapter).where(mine & ~told))
            game.news_stored = False


def _remove_someone(table: Table) -> None:
    with unit_of_work(table.factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
        players = work.session.scalars(select(Player).where(Player.game_id == game.id)).all()
        view = table_of(work, game).view
        alive = [p for p in players if (seat := view.find(p.name)) is not None and seat.alive]
        remove_player(work, table.mailer, game, alive[0], now=table.clock(), by="test")


def test_built_stories_are_the_stored_ones_and_no_page_reads_the_log(
    factory: sessionmaker[Session],
) -> None:
    table = Table(factory, language="nl")
    site = replace(site_of(factory), secret=SECRET)
    renderer = SHIPPED_RENDERER
    with serving(site) as root:
        GAME.open(table)
        GAME.start(table)
        steps = GAME.steps(table)
        for _ in range(3):
            next(steps)
        _remove_someone(table)  # told as the game master's announcement, mid-step
        stored, pages = _rows(factory), _pages(factory, root)
        assert any(player is None for player, *_ in stored)
        assert any(player is not None for player, *_ in stored), "somebody was told alone"
        # A running game older than the stored stories: built once, the same rows and pages.
        _forget(factory, village=True, news=True)
        assert _rows(factory) == []
        assert build_missing_pages(factory, renderer, lambda: NOW) == [GAME.name]
        assert build_missing_pages(factory, renderer, lambda: NOW) == []  # once
        assert sorted(_rows(factory), key=repr) == sorted(stored, key=repr)
        assert _pages(factory, root) == pages
        for _ in steps:
            pass
        assert game_view(factory).over
        stored, pages = _rows(factory), _pages(factory, root)
        assert [kind for _p, kind, *_ in stored].count(ChapterKind.EPILOGUE.value) == 1
        assert "Nawoord" in pages["public"] and "Wie was wie" in pages["public"]
        # A game stored since 0008 (the village's stories) but not 0009: the rest is built.
        _forget(factory, village=False, news=True)
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
            assert build_pages(work, game, renderer, NOW) > 0
            assert game.chapters_stored and game.news_stored
        assert sorted(_rows(factory), key=repr) == sorted(stored, key=repr)
        assert _pages(factory, root) == pages
        # No page replays the log: without it every page reads the same.
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
            work.session.execute(delete(GameLogEntry).where(GameLogEntry.game_id == game.id))
        assert _pages(factory, root) == pages


def test_a_running_game_s_pages_read_without_its_log(
    factory: sessionmaker[Session], caplog: pytest.LogCaptureFixture
) -> None:
    table = Table(factory, language="nl")
    site = replace(site_of(factory), secret=SECRET)
    with serving(site) as root:
        GAME.open(table)
        GAME.start(table)
        steps = GAME.steps(table)
        for _ in range(2):
            next(steps)
        pages = _pages(factory, root)
        stored = _rows(factory)
        # Built at a daemon's start: a story that fails to render (here: no stories at all)
        # leaves the game for the next start, and keeps no daemon from starting.
        _forget(factory, village=True, news=True)
        nothing = Renderer(MemoryStore())
        assert build_missing_pages(factory, nothing, lambda: NOW) == []
        assert _rows(factory) == [] and "building the pages of game" in caplog.text
        assert build_missing_pages(factory, SHIPPED_RENDERER, lambda: NOW) == [GAME.name]
        assert sorted(_rows(factory), key=repr) == sorted(stored, key=repr)
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
            logged = work.session.scalar(
                select(func.count(GameLogEntry.id)).where(GameLogEntry.game_id == game.id)
            )
            assert logged
            work.session.execute(delete(GameLogEntry).where(GameLogEntry.game_id == game.id))
        assert _pages(factory, root) == pages
