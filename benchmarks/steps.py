"""Benchmark of opening steps in big games: seconds per step mail batch, and how it scales.

For each size in `--sizes` (default 100 and 1,000 players) one game is created on a SQLite file
(players inserted directly, no signup mail), then timed:

- the start: `start_game` (a role mail to every player, then the first step's mails);
- opening a step: `close_step` until the step it opens asks every living player (the day vote),
  i.e. the story mail to every player plus a step mail to every living one, committed.

The pages are configured (a personal link in every step mail, the game's public page), as a
big game's game master has them: a game of more than 40 living players sums up the roster of
its mails and writes a long list of choices as a line pointing to the player's page
(docs/stories.md, "A big game"), and what every mail shares is worked out once for the step;
so the cost per mail should not grow with the game: the ratio t(1000)/t(100) should be near 10
(linear), not 100.
The targets (issue 25), printed with the figures: t(1000)/t(100) at most 15 for opening a step
and for the start, and a 1,000-player step's mails queued in at most 2 s.
With ``--profile`` prints the cProfile of the timed close_step of the biggest game.

The times are wall-clock seconds, with the CPU seconds of this process (the work itself, SQLite
included) beside them: on a shared machine those are the figures to compare.
Prints figures; asserts nothing about timing.  Usage:
    python benchmarks/steps.py [--sizes 100 1000] [--database-dir DIR] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import pstats
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session as DbSession

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pipeline import NARRATOR, everybody_asked, player_names  # noqa: E402

from narrator.db import make_engine, session_factory, transaction, upgrade  # noqa: E402
from narrator.models import Game, GameStatus, OutboxMessage, Player, fold_name  # noqa: E402
from narrator.service import games as service  # noqa: E402
from narrator.service.mailer import Mailer  # noqa: E402
from narrator.service.work import unit_of_work  # noqa: E402
from narrator.web.tokens import PageLinks  # noqa: E402
from stories import FileStore  # noqa: E402

RATIO_TARGET = 15.0  # t(1000)/t(100), opening a step and the start
STEP_TARGET = 2.0  # seconds to queue a 1,000-player step's mails
PAGES_SECRET = "benchmark-pages-key-of-at-least-32-bytes"
PAGES_URL = "https://narrator.example.org"


def queued(session: DbSession) -> int:
    """Mails in the outbox so far."""
    return int(session.scalar(select(func.count(OutboxMessage.id))) or 0)


def measure(
    database: str, players: int, *, profile: bool = False
) -> tuple[dict[str, float], cProfile.Profile | None]:
    """Create a game of `players`, time its start and the opening of an everybody-asked step.

    Returns the figures and (with `profile`) the profile of the timed close_step.
    """
    upgrade(database)
    engine = make_engine(database)
    factory = session_factory(engine)
    # The personal and public pages configured, as a big game's game master has them: its
    # mails sum the roster up and link the pages instead of listing every name (BIG_GAME).
    mailer = Mailer(FileStore(), NARRATOR, pages=PageLinks(PAGES_SECRET, PAGES_URL))
    now = datetime.now(UTC)
    name = f"S{players}"
    figures: dict[str, float] = {}
    profiler: cProfile.Profile | None = None
    try:
        with transaction(factory) as session:
            game = Game(
                name=name,
                name_key=name.lower(),
                ruleset="wakkerdam",
                language="nl",
                theme="wakkerdam",
                speed=2 * 86400,
                strictness=1000,
                status=GameStatus.SIGNUP.value,
            )
            session.add(game)
            session.flush()
            for n, player in enumerate(player_names(players)):
                session.add(
                    Player(
                        game_id=game.id,
                        seat=n + 1,
                        email=f"{player.lower()}@{name.lower()}.example.org",
                        name=player,
                        name_key=fold_name(player),
                        gender="vrouw" if n % 2 else "man",
                    )
                )
            game_id = game.id
        started, cpu = time.perf_counter(), time.process_time()
        with unit_of_work(factory) as work:
            session = work.session
            game = session.get(Game, game_id)
            service.start_game(work, mailer, game, now=now, seed=1)
            figures["start mails"] = queued(session)
        figures["start"] = time.perf_counter() - started
        figures["start cpu"] = time.process_time() - cpu
        for _ in range(20):
            with unit_of_work(factory) as work:
                session = work.session
                before = queued(session)
                game = session.get(Game, game_id)
                profiler = cProfile.Profile() if profile else None
                started, cpu = time.perf_counter(), time.process_time()
                if profiler is not None:
                    profiler.enable()
                service.close_step(work, mailer, game, now=now)
                session.flush()
                if profiler is not None:
                    profiler.disable()
                done = everybody_asked(work, game)
                mails = queued(session) - before
            elapsed = time.perf_counter() - started
            used = time.process_time() - cpu
            if done:
                figures["step"] = elapsed
                figures["step cpu"] = used
                figures["step mails"] = mails
                break
        else:
            raise RuntimeError(f"{name}: no step where everybody is asked")
    finally:
        engine.dispose()
    return figures, profiler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--database-dir", help="directory for the SQLite files (default temp)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=40, help="profile lines shown")
    parser.add_argument("--sort", default="cumulative", help="profile order (pstats key)")
    args = parser.parse_args()
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="narrator-bench-") as tmp:
        folder = Path(args.database_dir or tmp)
        for size in args.sizes:
            figures, profile = measure(
                f"sqlite:///{folder / f'steps-{size}.db'}",
                size,
                profile=args.profile and size == max(args.sizes),
            )
            results[size] = figures
            print(
                f"{size:6d} players: start {figures['start']:7.2f}s "
                f"({figures['start mails']:.0f} mails), open a step {figures['step']:7.2f}s "
                f"({figures['step mails']:.0f} mails, "
                f"{1000 * figures['step'] / figures['step mails']:.2f} ms per mail); CPU: start "
                f"{figures['start cpu']:.2f}s, step {figures['step cpu']:.2f}s"
            )
            if profile is not None:
                pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)
    sizes = sorted(results)
    for small, big in itertools.pairwise(sizes):
        step = results[big]["step"] / results[small]["step"]
        start = results[big]["start"] / results[small]["start"]
        verdict = ""
        if (small, big) == (100, 1000):
            verdict = f"; target at most {RATIO_TARGET:g}: {_met(max(step, start) <= RATIO_TARGET)}"
        print(
            f"t({big})/t({small}): open a step {step:.1f}, start {start:.1f} "
            f"(linear: {big / small:.0f}){verdict}"
        )
        step_cpu = results[big]["step cpu"] / results[small]["step cpu"]
        start_cpu = results[big]["start cpu"] / results[small]["start cpu"]
        print(  # the same by CPU time: steadier than the wall clock on a shared machine
            f"by CPU time: open a step {step_cpu:.1f}, start {start_cpu:.1f}"
        )
    if 1000 in results:
        seconds = results[1000]["step"]
        print(
            f"a 1000-player step's mails queued in {seconds:.2f}s; target at most "
            f"{STEP_TARGET:g}s: {_met(seconds <= STEP_TARGET)}"
        )


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


if __name__ == "__main__":
    main()
