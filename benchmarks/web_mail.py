"""Benchmark: serving game pages does not delay mail (receipt latency with and without pages).

The daemon runs in this process with its SMTP receiver and its web pages (the same event loop,
as `narrator serve` runs them).  Two runs, each on games of its own (`--games` Wakkerdam games of
`--players` players, brought to a step where every living player is asked):

1. votes arrive by SMTP at `--rate` votes/s (open loop: each at its own moment, one connection
   per vote, from client processes), nobody reads a page;
2. the same, while `--fetchers` client processes fetch the public page of one of the run's
   games (`/games/{name}`) at `--page-rate` pages/s in all (open loop);
3. the same, the fetchers fetching over and over, as fast as the daemon serves them.

A vote's receipt latency is the time from the moment its client began to send it to the moment
its receipt was queued in the outbox (its row's ``created_at``).  Prints the median, p90, p99
and the largest latency of the runs, their ratios (with pages / without), and the pages served
per second.  Prints figures; asserts nothing.  Usage:
    python benchmarks/web_mail.py [--games 2] [--players 100] [--rate 20] [--fetchers 2]\
        [--page-rate 10]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import smtplib
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, select

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.pipeline import NARRATOR, free_port, set_up_games  # noqa: E402
from narrator.config import load_config  # noqa: E402
from narrator.daemon import Daemon, DaemonOptions  # noqa: E402
from narrator.db import make_engine, session_factory, transaction, upgrade  # noqa: E402
from narrator.models import OutboxMessage  # noqa: E402


def send_open_loop(
    port: int, votes: Sequence[tuple[str, bytes]], rate: float, start: float, offset: int
) -> dict[str, float]:
    """Send vote n at `start + n / rate` (wall clock, seconds since the epoch); return each
    sender's moment of sending.  `offset`: this client's first n (clients interleave)."""
    sent: dict[str, float] = {}
    for n, (sender, raw) in enumerate(votes):
        moment = start + (offset + n * CLIENTS) / rate
        delay = moment - time.time()
        if delay > 0:
            time.sleep(delay)
        sent[sender] = time.time()
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.sendmail(sender, [NARRATOR], raw)
    return sent


CLIENTS = 4  # sending processes: a slow answer never holds back the next vote's moment


def fetch_until(url: str, start: float, until: float, interval: float) -> int:
    """Fetch `url` from `start` until the wall clock reaches `until`, one fetch every `interval`
    seconds (open loop; 0: over and over, as fast as it is served); return the count."""
    count = 0
    time.sleep(max(0.0, start - time.time()))
    while time.time() < until:
        with urllib.request.urlopen(url, timeout=60) as response:
            response.read()
        count += 1
        if interval:
            time.sleep(max(0.0, start + count * interval - time.time()))
    return count


def _warm_up(_: int) -> int:
    time.sleep(0.2)
    return os.getpid()


def latencies(database: str, sent: dict[str, float]) -> list[float]:
    """Each vote's receipt latency in seconds (its sender's receipt queued - its sending)."""
    engine = create_engine(database)
    try:
        with transaction(session_factory(engine)) as session:
            rows = session.execute(
                select(OutboxMessage.recipient, OutboxMessage.created_at).where(
                    OutboxMessage.kind.in_(("receipt", "error")),
                    OutboxMessage.recipient.in_(list(sent)),
                )
            ).all()
    finally:
        engine.dispose()
    queued = {recipient: at.timestamp() for recipient, at in rows}
    missing = set(sent) - set(queued)
    if missing:
        raise RuntimeError(f"{len(missing)} votes got no answer")
    return sorted(queued[s] - sent[s] for s in sent)


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    return {
        "median": statistics.median(ordered),
        "p90": at(0.90),
        "p99": at(0.99),
        "max": ordered[-1],
    }


async def one_run(
    pool: ProcessPoolExecutor,
    database: str,
    workdir: Path,
    votes: list[tuple[str, bytes]],
    *,
    rate: float,
    fetchers: int,
    page: str,
    page_rate: float = 0.0,
) -> tuple[dict[str, float], float]:
    """One run; returns the latencies' summary and the pages served per second."""
    smtp, web = free_port(), free_port()
    config_file = workdir / "narrator.toml"
    config_file.write_text(
        f"[web]\nport = {web}\n"
        f'[narrator]\ndatabase = "{database}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nport = {smtp}\n[outbound]\nmaildir = "outbox"\n',
        encoding="utf-8",
    )
    config = load_config(config_file)
    loop = asyncio.get_running_loop()
    async with Daemon(config, options=DaemonOptions(scheduler_poll=60)) as daemon:
        assert daemon.worker is not None
        total = len(votes)
        start = time.time() + 1.0
        seconds = total / rate
        url = f"http://127.0.0.1:{web}{page}"
        interval = fetchers / page_rate if page_rate else 0.0
        fetching = [
            loop.run_in_executor(
                pool, fetch_until, url, start + n * interval / fetchers, start + seconds, interval
            )
            for n in range(fetchers)
        ]
        batches = [votes[n::CLIENTS] for n in range(CLIENTS)]
        senders = [
            loop.run_in_executor(pool, send_open_loop, smtp, batch, rate, start, n)
            for n, batch in enumerate(batches)
        ]
        sent: dict[str, float] = {}
        for part in await asyncio.gather(*senders):
            sent.update(part)
        pages = sum(await asyncio.gather(*fetching))
        while daemon.worker.processed < total:
            await asyncio.sleep(0.05)
    return summary(await asyncio.to_thread(latencies, database, sent)), pages / seconds


async def main_async(args: argparse.Namespace, workdir: Path) -> None:
    database = f"sqlite:///{workdir / 'web_mail.db'}"
    upgrade(database)
    engine = make_engine(database)
    factory = session_factory(engine)
    print(f"setting up 2 x {args.games} games x {args.players} players")
    quiet = set_up_games(factory, args.games, args.players, speed=2 * 86400, prefix="Q")
    steady = set_up_games(factory, args.games, args.players, speed=2 * 86400, prefix="S")
    busy = set_up_games(factory, args.games, args.players, speed=2 * 86400, prefix="P")
    engine.dispose()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(CLIENTS + args.fetchers, mp_context=context) as pool:
        list(pool.map(_warm_up, range(CLIENTS + args.fetchers)))
        without, _ = await one_run(
            pool, database, workdir, quiet, rate=args.rate, fetchers=0, page="/games/Q1"
        )
        at_rate, steady_served = await one_run(
            pool,
            database,
            workdir,
            steady,
            rate=args.rate,
            fetchers=args.fetchers,
            page="/games/S1",
            page_rate=args.page_rate,
        )
        flat_out, served = await one_run(
            pool,
            database,
            workdir,
            busy,
            rate=args.rate,
            fetchers=args.fetchers,
            page="/games/P1",
        )
    print(f"{len(quiet)} votes per run at {args.rate:g} votes/s (open loop)")
    print(
        f"pages: {steady_served:.1f}/s offered at {args.page_rate:g}/s, then {served:.1f}/s "
        f"flat out, by {args.fetchers} fetchers (the public page of a {args.players}-player game)"
    )
    print(
        f"{'receipt latency':16} {'no pages':>9} {'pages/s':>9} {'ratio':>6} {'flat out':>9} "
        f"{'ratio':>6}"
    )
    for key in ("median", "p90", "p99", "max"):
        a, b, c = without[key], at_rate[key], flat_out[key]
        print(
            f"  {key:14} {1000 * a:7.0f}ms {1000 * b:7.0f}ms {b / a:6.2f} {1000 * c:7.0f}ms "
            f"{c / a:6.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per run (2)")
    parser.add_argument("--players", type=int, default=100, help="players per game (100)")
    parser.add_argument("--rate", type=float, default=20.0, help="votes per second (20)")
    parser.add_argument("--fetchers", type=int, default=2, help="page-fetching clients (2)")
    parser.add_argument(
        "--page-rate",
        type=float,
        default=10.0,
        help="pages per second offered in the second run (10: each of a 100-player game's "
        "players opening the page every 10 s); the third run fetches flat out",
    )
    args = parser.parse_args()
    began = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main_async(args, Path(tmp)))
    print(f"(run at {began:%H:%M} UTC; a shared machine's load moves these figures)")


if __name__ == "__main__":
    main()
