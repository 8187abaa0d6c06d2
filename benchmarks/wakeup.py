"""Benchmark of the admin wake-up: what an idle daemon spends watching, and how fast it reacts.

Creates 100 running games of 8 players (``--games``) on a SQLite file (default) or on the
PostgreSQL database ``--database`` names, runs the real ``narrator serve`` (every default: the
scheduler re-reads the games every 30 s, the sender polls every 60 s, the change counter is
read every second on SQLite), waits until the role mails are out, then prints:

- the daemon's CPU while idle over ``--seconds`` (default 30), as a share of one core;
- what one read of the change counter costs, as the watcher reads it (the bare statement on the
  driver's connection) and through SQLAlchemy's execution, measured in this process: back to
  back (2,000 reads: every cache warm) and spaced as the watcher's are (20 reads, a second
  apart: every cache cold, the figure that counts);
- how long ``narrator game extend`` takes to reach the daemon (its deadline job moved), over
  ``--rounds`` commands.

Prints figures; asserts nothing about timing.  Usage:
    python benchmarks/wakeup.py [--games 100] [--seconds 30] [--rounds 10] [--database URL]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, func, select
from sqlalchemy.pool import NullPool

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from narrator.changes import counter_query, read_counter, read_counter_raw  # noqa: E402
from narrator.db import make_engine, session_factory, transaction, upgrade  # noqa: E402
from narrator.models import (  # noqa: E402
    Game,
    GameStatus,
    OutboxMessage,
    OutboxState,
    Player,
    fold_email,
    fold_name,
)
from narrator.service import games as service  # noqa: E402
from narrator.service.mailer import Mailer  # noqa: E402
from narrator.service.work import unit_of_work  # noqa: E402
from stories import FileStore  # noqa: E402
from tests.faults.harness import ServeProcess, poll  # noqa: E402
from tests.support.home import NARRATOR, PLAYERS, cli, deadline_of, write_home  # noqa: E402


def create_games(url: str, count: int) -> list[int]:
    """`count` started games of eight players (role and step mails queued); their ids."""
    upgrade(url)
    engine = make_engine(url)
    factory = session_factory(engine)
    mailer = Mailer(FileStore(), NARRATOR)
    ids = []
    try:
        for number in range(count):
            with unit_of_work(factory) as work:
                session = work.session
                name = f"B{number}"
                game = Game(
                    name=name,
                    name_key=name.lower(),
                    ruleset="wakkerdam",
                    language="nl",
                    theme="wakkerdam",
                    speed=2 * 86400,
                    strictness=2,
                    status=GameStatus.SIGNUP.value,
                )
                session.add(game)
                session.flush()
                for seat, (player, gender) in enumerate(PLAYERS, start=1):
                    session.add(
                        Player(
                            game_id=game.id,
                            seat=seat,
                            name=player,
                            name_key=fold_name(player),
                            email=fold_email(f"{player.lower()}.{number}@spelers.example.org"),
                            gender=gender,
                        )
                    )
                session.flush()
                service.start_game(work, mailer, game, now=datetime.now(UTC), seed=number)
                ids.append(game.id)
    finally:
        engine.dispose()
    return ids


def pending(url: str) -> int:
    """Outbox rows not yet sent."""
    engine = make_engine(url)
    try:
        with transaction(session_factory(engine)) as session:
            query = select(func.count(OutboxMessage.id)).where(
                OutboxMessage.state == OutboxState.PENDING.value
            )
            return int(session.scalar(query) or 0)
    finally:
        engine.dispose()


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process `pid` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def counter_read_cost(url: str, *, raw: bool, reads: int, spacing: float) -> float:
    """Seconds of CPU of one read of the change counter, `spacing` seconds apart: on the
    driver's connection as the SQLite watcher does it (`raw`), or through SQLAlchemy."""
    engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    query = counter_query(engine)
    try:
        with engine.connect() as connection:
            cursor = connection.connection.cursor()

            def read() -> int:
                return read_counter_raw(cursor, query) if raw else read_counter(connection)

            read()
            used = 0.0
            for _ in range(reads):
                time.sleep(spacing)  # the watcher's wait: nothing to wait for
                started = time.thread_time()
                read()
                used += time.thread_time() - started
            return used / reads
    finally:
        engine.dispose()


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--database", help="a migrated-or-empty database URL (default: SQLite)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="narrator-wakeup-") as directory:
        home = Path(directory)
        url = args.database or f"sqlite:///{home / 'narrator.db'}"
        started = time.perf_counter()
        game_ids = create_games(url, args.games)
        print(f"{args.games} running games created in {time.perf_counter() - started:.1f}s")
        config = write_home(home / "home", url, home / "outbox")
        serve = ServeProcess(config, module="narrator", args=("--log-level", "DEBUG"))
        serve.start()
        try:
            serve.wait_serving(60)
            poll(lambda: pending(url) == 0, 300, "the role mails to go out", interval=0.5)
            time.sleep(2.0)  # let the sending pass end; then the daemon is idle
            assert serve.process is not None
            pid = serve.process.pid
            before, wall = cpu_seconds(pid), time.monotonic()
            time.sleep(args.seconds)  # measuring idle CPU: nothing to wait for
            used, elapsed = cpu_seconds(pid) - before, time.monotonic() - wall
            print(
                f"idle daemon, {args.games} open games ({serve_backend(url)}): "
                f"{used:.3f}s CPU in {elapsed:.1f}s = {100 * used / elapsed:.3f}% of one core"
            )
            if url.startswith("sqlite"):
                for raw, how in ((True, "as the watcher reads it"), (False, "via SQLAlchemy")):
                    warm = counter_read_cost(url, raw=raw, reads=2000, spacing=0.0)
                    cold = counter_read_cost(url, raw=raw, reads=20, spacing=1.0)
                    print(
                        f"one read of the change counter {how}: {warm * 1e6:.1f} µs of CPU "
                        f"back to back, {cold * 1e6:.1f} µs a second apart (read once a "
                        f"second: {100 * cold:.4f}% of one core)"
                    )
            delays = []
            for round_ in range(args.rounds):
                game_id = game_ids[round_ % len(game_ids)]
                cli(config, "game", "extend", f"B{round_ % len(game_ids)}", "1h")
                issued = time.monotonic()
                line = f"deadline:{game_id} at {deadline_of(url, game_id)}"
                poll(lambda line=line: line in serve.current_log(), 10, "the moved deadline")
                delays.append(time.monotonic() - issued)
            delays.sort()
            print(
                f"`game extend` seen by the daemon after: median {delays[len(delays) // 2]:.2f}s, "
                f"max {delays[-1]:.2f}s ({len(delays)} commands)"
            )
            serve.stop()
        finally:
            serve.close()


def serve_backend(url: str) -> str:
    """SQLite or PostgreSQL, for the printout."""
    return "SQLite, counter read every second" if url.startswith("sqlite") else "PostgreSQL, LISTEN"


if __name__ == "__main__":
    main()
