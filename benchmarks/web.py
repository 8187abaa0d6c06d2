"""Benchmark of the public game page: its render time (CPU) for a 100-player game on day 5.

Builds a SQLite database in a temporary directory with one Wakkerdam game of `--players`
players, played through the service (every asked player votes, the steps close, their mails
are posted) until the day `--day` is open; then reads and renders the game's public page (the
read model from the game table, the story so far as the post office stored it when it mailed
it, the Jinja2 page) `--runs` times and prints the CPU time of the first (cold: templates
compiled) and the median.  `--replay` reads the game as one started before the stories were
stored: the story so far replayed from the log and rendered again (the figure before).
Target (DESIGN.md): under 50 ms.  Prints figures; asserts nothing.  Usage:
    python benchmarks/web.py [--players 100] [--day 5] [--runs 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import select  # noqa: E402

from narrator.db import make_engine, session_factory, transaction, upgrade  # noqa: E402
from narrator.models import Game, Player  # noqa: E402
from narrator.service import games as service  # noqa: E402
from narrator.service.letters import post  # noqa: E402
from narrator.service.mailer import Mailer  # noqa: E402
from narrator.service.table import table_of  # noqa: E402
from narrator.service.work import unit_of_work  # noqa: E402
from narrator.web.app import Site, render_game  # noqa: E402
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


def build(url: str, players: int, day: int) -> None:
    """One game of `players` players, played until day `day` is open."""
    upgrade(url)
    factory = session_factory(make_engine(url))
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
    now = START
    # The letters are posted, as the daemon posts them: the post office stores each story the
    # village is told for the page (page_chapters), as it mails it.
    mailer = Mailer(FileStore(), "verteller@example.org")
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        post(work.session, mailer, service.start(table_of(work, game), now, seed=5), now)
    order = _names(players)
    random.Random(5).shuffle(order)
    for _ in range(200):
        now += timedelta(days=1)
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            table = table_of(work, game)
            view = table.view
            if view.over or (view.day >= day and view.phase == "day"):
                return
            by_name = {p.name: p for p in table.players}
            for name in table.rules.asked(table.state):
                service.cast_vote(table, by_name[name], _ballot(table, name, order), now)
            post(work.session, mailer, service.close(table, now).letters, now)
    raise SystemExit("the game did not reach the day")


def _ballot(table: Any, name: str, order: list[str]) -> service.Ballot:
    actions = table.rules.choices(table.state, name).actions
    action = next((a for a in actions if a.keyword is None), actions[0])
    count = max(action.min_names, 1) if action.max_names else 0
    targets = [n for n in order if n in action.targets][:count]
    keywords = [action.keyword] if action.keyword else []
    return service.Ballot(targets, not targets and action.blanco, keywords)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--day", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--replay", action="store_true", help="replay the log (the old way)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'narrator.db'}"
        began = time.perf_counter()
        build(url, args.players, args.day)
        print(f"built a {args.players}-player game in {time.perf_counter() - began:.1f}s")
        factory = session_factory(make_engine(url))
        site = Site(factory, Renderer(FileStore()), "verteller@example.org", "wakkerdam", "nl", "")
        times = []
        size = 0
        for _ in range(args.runs):
            cpu = time.process_time()
            with unit_of_work(factory) as work:
                game = work.session.scalars(select(Game)).one()
                game.chapters_stored = not args.replay  # a throwaway database
                page = public_game(work, game, site.renderer)
            size = len(render_game(site, page))
            times.append((time.process_time() - cpu) * 1000)
            chapters = sum(len(section.chapters) for section in page.sections)
        print(
            f"public page of {game.name} ({len(page.players)} players, {page.moment}, "
            f"{chapters} chapters, {size // 1024} KiB): first {times[0]:.1f} ms CPU, "
            f"median {statistics.median(times[1:] or times):.1f} ms CPU (target < 50 ms)"
        )


if __name__ == "__main__":
    main()
