"""Benchmark of the game pages: their render time (CPU) for a 100-player game on day 5 and ended.

Builds a SQLite database in a temporary directory with one Wakkerdam game of `--players`
players, played through the service (every asked player votes, the steps close, their mails
are posted: the post office stores each story as it mails it) until the day `--day` is open;
then reads and renders, `--runs` times each, the game's public page and the Ziener's own page
(the read model from the game table, the stories as the post office stored them, the Jinja2
page) and prints the CPU time of the first (cold: templates compiled) and the median, and
what building the game's stored stories once from its log costs (what the daemon's start does
for a game told before they were stored).  Then it plays the game to its end and prints the
same for the ended game's pages (epilogue and every role); `--no-end` stops before.
Target (DESIGN.md): under 50 ms.  Prints figures; asserts nothing.  Usage:
    python benchmarks/web.py [--players 100] [--day 5] [--runs 20] [--no-end]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import delete, func, select  # noqa: E402

from narrator.db import make_engine, session_factory, transaction, upgrade  # noqa: E402
from narrator.models import Game, PageChapter, Player, Step  # noqa: E402
from narrator.service import games as service  # noqa: E402
from narrator.service.letters import post  # noqa: E402
from narrator.service.mailer import Mailer  # noqa: E402
from narrator.service.pages import build_pages  # noqa: E402
from narrator.service.table import table_of  # noqa: E402
from narrator.service.work import unit_of_work  # noqa: E402
from narrator.web.app import Site, render_game, render_private  # noqa: E402
from narrator.web.private import private_page  # noqa: E402
from narrator.web.public import public_game  # noqa: E402
from stories import FileStore, Renderer  # noqa: E402

NAMES = "Anna Bram Carla Dirk Eva Frank Greet Hans Ilse Joost Karin Lars Mieke Niels Olga Piet"
START = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)


def _names(count: int) -> list[str]:
    """`count` one-word names of letters only: Anna, Bram, …, Annab, Bramb, …"""
    base = NAMES.split()
    return [
        base[i % len(base)] + ("" if i < len(base) else chr(97 + i // len(base)))
        for i in range(count)
    ]


def build(url: str, players: int, day: int | None) -> None:
    """One game of `players` players, played until day `day` is open (None: until the end);
    a game played already is played on."""
    upgrade(url)
    factory = session_factory(make_engine(url))
    with transaction(factory) as session:
        played = session.scalars(select(Game)).first() is not None
        last = session.scalar(select(func.max(Step.started_at)))
    if played:
        _play(factory, players, day, last or START)
        return
    with transaction(factory) as session:
        game = Game(
            name="WW100",
            name_key="ww100",
            ruleset="wakkerdam",
            language="nl",
            theme="wakkerdam",
            timezone="Europe/Amsterdam",
            speed=86400,
            strictness=9,
            status="signup",
        )
        session.add(game)
        session.flush()
        for seat, name in enumerate(_names(players), start=1):
            gender = "vrouw" if seat % 2 else "man"
            email = f"{name.lower()}@example.org"
            session.add(
                Player(
                    game_id=game.id,
                    seat=seat,
                    name=name,
                    name_key=name.lower(),
                    email=email,
                    gender=gender,
                )
            )
    _play(factory, players, day, START)


def _play(factory: Any, players: int, day: int | None, now: datetime) -> None:
    """Play the game on from `now` (see :func:`build`)."""
    # The letters are posted, as the daemon posts them: the post office stores each story the
    # village is told for the page (page_chapters), as it mails it.
    mailer = Mailer(FileStore(), "verteller@example.org")
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        if game.status == "signup":
            post(work.session, mailer, service.start(table_of(work, game), now, seed=5), now)
    order = _names(players)
    random.Random(5).shuffle(order)
    for _ in range(200):
        now += timedelta(days=1)
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            table = table_of(work, game)
            view = table.view
            if view.over or (day is not None and view.day >= day and view.phase == "day"):
                return
            by_name = {p.name: p for p in table.players}
            for name in table.rules.asked(table.state):
                service.cast_vote(table, by_name[name], _ballot(table, name, order), now)
            post(work.session, mailer, service.close(table, now).letters, now)
    raise SystemExit("the game did not reach the day, or its end")


def _ballot(table: Any, name: str, order: list[str]) -> service.Ballot:
    actions = table.rules.choices(table.state, name).actions
    action = next((a for a in actions if a.keyword is None), actions[0])
    count = max(action.min_names, 1) if action.max_names else 0
    targets = [n for n in order if n in action.targets][:count]
    keywords = [action.keyword] if action.keyword else []
    return service.Ballot(targets, not targets and action.blanco, keywords)


def _timed(runs: int, page: Callable[[], tuple[str, Any]]) -> tuple[list[float], str, Any]:
    """CPU time (ms) of `runs` calls of `page`, and its last (html, read model)."""
    times: list[float] = []
    html, model = "", None
    for _ in range(runs):
        cpu = time.process_time()
        html, model = page()
        times.append((time.process_time() - cpu) * 1000)
    return times, html, model


def _figure(what: str, times: list[float], html: str) -> str:
    return (
        f"{what} ({len(html) // 1024} KiB): first {times[0]:.1f} ms CPU, "
        f"median {statistics.median(times[1:] or times):.1f} ms CPU (target < 50 ms)"
    )


def _measure(factory: Any, site: Site, runs: int, reader: str | None = None) -> str:
    """Print the public page's figure and a player's own page's (`reader`'s, else the
    Ziener's: his private news every night); return whose."""

    def public() -> tuple[str, Any]:
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            page = public_game(work, game)
        return render_game(site, page), page

    def private() -> tuple[str, Any]:
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            page = private_page(work, game, _reader(work, game, reader))
        return render_private(site, page, "token"), page

    times, html, page = _timed(runs, public)
    chapters = sum(len(section.chapters) for section in page.sections)
    moment = page.moment or "ended"
    title = f"{page.name} ({len(page.players)} players, {moment}, {chapters} chapters)"
    print(_figure(f"public page of {title}", times, html))
    times, html, mine = _timed(runs, private)
    news = sum(len(section.chapters) for section in mine.news)
    print(_figure(f"own page of {mine.player} ({mine.role}, {news} private stories)", times, html))
    return str(mine.player)


def _reader(work: Any, game: Game, name: str | None) -> Player:
    """The player whose own page is measured: `name`, else the Ziener (told a role every
    night), else a werewolf."""
    if name is None:
        view = table_of(work, game).view
        seers = [seat for seat in view.players if seat.role in ("ziener", "weerwolf")]
        seers.sort(key=lambda seat: (seat.role != "ziener", not seat.alive))
        name = seers[0].name
    player: Player = work.session.scalars(select(Player).where(Player.name == name)).one()
    return player


def _build_cost(factory: Any, site: Site) -> None:
    """Print what building the game's stored stories once from its log costs (the daemon's
    start, for a game told before they were stored); rolled back."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        work.session.execute(delete(PageChapter).where(PageChapter.game_id == game.id))
        game.chapters_stored = game.news_stored = False
        cpu = time.process_time()
        rows = build_pages(work, game, site.renderer, START)
        spent = (time.process_time() - cpu) * 1000
        work.session.rollback()
    print(f"building its {rows} stored stories once from the log: {spent:.0f} ms CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--day", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-end", action="store_true", help="skip the ended game's pages")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'narrator.db'}"
        began = time.perf_counter()
        build(url, args.players, args.day)
        print(f"built a {args.players}-player game in {time.perf_counter() - began:.1f}s")
        factory = session_factory(make_engine(url))
        site = Site(factory, Renderer(FileStore()), "verteller@example.org", "wakkerdam", "nl", "")
        reader = _measure(factory, site, args.runs)
        _build_cost(factory, site)
        if args.no_end:
            return
        began = time.perf_counter()
        build(url, args.players, None)
        print(f"played it to the end in {time.perf_counter() - began:.1f}s")
        _measure(factory, site, args.runs, reader)
        _build_cost(factory, site)


if __name__ == "__main__":
    main()
