"""Benchmark of an inbox pass by its size: its CPU per pass, per game in it, per vote in it.

The daemon's worker processes the mail stored since its last pass in one transaction
(``process_pending``); at 20 votes/s a pass holds about five votes over four or five games, at
50 votes/s about fifteen over eight. Much of a pass is paid per pass (its transaction, claim,
statements, commit) or per game it opens (the game's row and players, its rules state, view,
cast and name index, the state written back), whatever its votes: this benchmark separates
the three, back to back, with the daemon's own mailer and settings (replies queued claimed by
a sender, as ``narrator serve`` queues them).

`--games` games of `--players` players are set up (as ``benchmarks/pipeline.py`` does), then
passes are run of K votes each (``--sizes``), K stored at once before each pass: the votes of
one game (``same``), or one vote from each of K games (``spread``). Each pass is timed by its
thread's CPU (``time.thread_time``); the median of ``--passes`` passes is printed per size and
kind, then the estimate: a pass of one vote = per pass + one game + one vote; K votes of one
game add K-1 votes; K votes of K games add K-1 games and K-1 votes.

Back to back every cache is warm: the daemon, which idles between passes, pays more for the
same work (``benchmarks/idle.py``), so these figures are for comparing code, not for the
daemon's CPU per vote (``benchmarks/latency.py``). Prints figures; asserts nothing.  Usage:
    python benchmarks/passes.py [--sizes 1 5] [--passes 20] [--games 10] [--players 50]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pipeline import set_up_games  # noqa: E402

from narrator.config import load_config  # noqa: E402
from narrator.db import make_engine, session_factory, upgrade  # noqa: E402
from narrator.inbound.dbsink import DbSink, Incoming  # noqa: E402
from narrator.outbound.outbox import Claimant  # noqa: E402
from narrator.service.inbox import process_pending  # noqa: E402
from narrator.service.wiring import inbox_settings, make_mailer, utc_now  # noqa: E402

Vote = tuple[str, bytes]  # (sender, raw mail)


def by_game(votes: list[Vote]) -> list[list[Vote]]:
    """The votes grouped by the game their subject names (``Re: <game>``), in set-up order."""
    games: dict[bytes, list[Vote]] = defaultdict(list)
    for vote in votes:
        subject = vote[1].partition(b"Subject: Re: ")[2].partition(b"\r\n")[0]
        games[subject].append(vote)
    return list(games.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--passes", type=int, default=20, help="passes of each size and kind")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=50)
    args = parser.parse_args()
    if max(args.sizes) > args.games:
        parser.error("--sizes: a spread pass needs a game for each of its votes")
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory(prefix="narrator-bench-passes-") as tmp:
        database = f"sqlite:///{Path(tmp) / 'passes.db'}"
        upgrade(database)
        factory = session_factory(make_engine(database))
        games = by_game(set_up_games(factory, args.games, args.players, speed=86400, prefix="P"))
        config = load_config(None, cwd=tmp)
        mailer = make_mailer(config, factory)
        mailer.prepare()
        claimant = Claimant(1, timedelta(minutes=10))
        settings = replace(inbox_settings(config), claimant=claimant)
        sink = DbSink(factory)

        def one_pass(votes: list[Vote]) -> float:
            stored = [Incoming(raw, "smtp", envelope_from=sender) for sender, raw in votes]
            sink.store_many_sync(stored)
            started = time.thread_time()
            outcomes = process_pending(factory, mailer, settings, utc_now)
            spent = time.thread_time() - started
            if len(outcomes) != len(votes):
                raise RuntimeError(f"a pass took {len(outcomes)} of {len(votes)} mails")
            return 1000 * spent

        taken = [0] * len(games)  # the votes of each game used so far

        def next_votes(size: int, kind: str) -> list[Vote]:
            if kind == "same":
                game = max(range(len(games)), key=lambda g: len(games[g]) - taken[g])
                chosen = [game] * size
            else:
                chosen = sorted(range(len(games)), key=lambda g: taken[g] - len(games[g]))[:size]
            votes = []
            for game in chosen:
                if taken[game] >= len(games[game]):
                    raise RuntimeError("out of votes: fewer --passes or more --players")
                votes.append(games[game][taken[game]])
                taken[game] += 1
            return votes

        one_pass(next_votes(2, "spread"))  # warm: the first pass compiles its statements
        figures: dict[tuple[int, str], float] = {}
        for size in args.sizes:
            for kind in ("same", "spread") if size > 1 else ("same",):
                times = [one_pass(next_votes(size, kind)) for _ in range(args.passes)]
                figures[size, kind] = statistics.median(times)
                where = "" if size == 1 else f" ({kind}: {1 if kind == 'same' else size} games)"
                print(
                    f"a pass of {size} vote(s){where}: {figures[size, kind]:.2f} ms of CPU"
                    f" (median of {args.passes}), {figures[size, kind] / size:.2f} ms a vote"
                )
    larger = [size for size in args.sizes if size > 1]
    if 1 in args.sizes and larger:
        size = max(larger)
        vote = (figures[size, "same"] - figures[1, "same"]) / (size - 1)
        game = (figures[size, "spread"] - figures[size, "same"]) / (size - 1)
        fixed = figures[1, "same"] - vote - game
        print(
            f"estimate (from the passes of 1 and {size}): per pass {fixed:.2f} ms, per game in it"
            f" {game:.2f} ms, per vote {vote:.2f} ms"
        )


if __name__ == "__main__":
    main()
