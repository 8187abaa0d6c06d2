"""The public page reads the village's stories as the post office stored them (page_chapters),
and they are what replaying the log tells: the same chapters, stories and tallies, through a
whole game with a removal in it; a game started before the chapters were stored replays."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, PageChapter, Player
from narrator.service.removal import remove_player
from narrator.service.table import table_of
from narrator.service.work import unit_of_work
from narrator.web.public import PublicGame, public_game
from stories import FileStore, Renderer
from tests.support.botgame import BotGame
from tests.support.bymail import Table

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


def _told(page: PublicGame) -> list[Any]:
    return [
        (s.moment, [(c.moment, str(c.story), c.tallies) for c in s.chapters]) for s in page.sections
    ]


def _both(table: Table) -> tuple[list[Any], list[Any], int]:
    """The page's sections from the stored chapters and from a replay of the log (the same
    game read as one started before the chapters were stored), and the stored rows."""
    renderer = Renderer(FileStore())
    with unit_of_work(table.factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
        assert game.chapters_stored
        stored = _told(public_game(work, game, renderer))
        rows = work.session.scalar(
            select(func.count(PageChapter.id)).where(PageChapter.game_id == game.id)
        )
        game.chapters_stored = False
        replayed = _told(public_game(work, game, renderer))
        work.session.rollback()
    return stored, replayed, int(rows or 0)


def test_the_stored_chapters_are_the_replayed_ones_through_a_game_with_a_removal(
    factory: sessionmaker[Session],
) -> None:
    table = Table(factory, language="nl")
    GAME.open(table)
    GAME.start(table)
    steps = GAME.steps(table)
    for _ in range(3):
        next(steps)
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == GAME.name)).one()
        players = work.session.scalars(select(Player).where(Player.game_id == game.id)).all()
        view = table_of(work, game).view
        alive = [p for p in players if (seat := view.find(p.name)) is not None and seat.alive]
        assert alive
        remove_player(work, table.mailer, game, alive[0], now=table.clock(), by="test")
    stored, replayed, rows = _both(table)
    assert rows >= 3 and stored == replayed
    assert any("spelleiding" in story for _m, ch in stored for _cm, story, _t in ch)
    for _ in steps:
        pass
    stored, replayed, _rows = _both(table)
    assert stored == replayed
    assert any(tallies for _m, ch in stored for _cm, _s, tallies in ch)  # the lynch's votes
