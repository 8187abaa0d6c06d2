"""Benchmark of the mail pipeline: inbound votes per second end to end, and the daemon's memory.

1. A bare aiosmtpd sink (answers 250 and keeps nothing) receives N votes.
2. The daemon (in-process: SMTP receiver -> inbox commit -> parse -> apply -> receipt queued)
   receives the same N votes: `--games` games of `--players` players, everybody voting at once
   in a step where every living player is asked.  The clock stops when the worker has
   committed the last of them (each with its receipt queued).  Both use the same clients
   (`--clients` processes, one SMTP connection per message, as players' MTAs do).  The figure
   of merit is the daemon's CPU per vote beside the sink's CPU per message (target: at most
   3 times, issue 25); the rates are printed for what they are (a closed-loop blast: the
   receipts' latency under an offered rate is benchmarks/latency.py's).
3. Memory (VmRSS) of `narrator serve` as a process with no games and with `--open-games` running
   games scheduled.

Prints figures; asserts nothing about timing.  The CPU figures (this process's threads: the
sink, or the whole daemon; the clients measure their own) vary less than the rates between
runs on a shared machine.  Usage:
    python benchmarks/pipeline.py [--games 10] [--players 50] [--database URL]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import smtplib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy import create_engine, func, select, update
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm import sessionmaker

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from narrator.config import load_config  # noqa: E402
from narrator.daemon import Daemon, DaemonOptions  # noqa: E402
from narrator.db import make_engine, session_factory, transaction, upgrade  # noqa: E402
from narrator.models import Game, GameStatus, OutboxMessage, OutboxState, game_players  # noqa: E402
from narrator.service import games as service  # noqa: E402
from narrator.service.letters import post  # noqa: E402
from narrator.service.mailer import Mailer  # noqa: E402
from narrator.service.table import table_of  # noqa: E402
from narrator.service.work import Work, unit_of_work  # noqa: E402
from stories import FileStore  # noqa: E402

NARRATOR = "verteller@example.org"
NAMES = "Anna Bram Carla Dirk Eva Frank Greet Hans Ilse Joost Karin Lars Mieke Niels Olga Piet"


# --- clients (run in worker processes) -----------------------------------------------------


def send_all(port: int, messages: Sequence[tuple[str, bytes]]) -> float:
    """Send each message over its own SMTP connection; return the CPU seconds it took."""
    cpu = time.process_time()
    for sender, raw in messages:
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.sendmail(sender, [NARRATOR], raw)
    return time.process_time() - cpu


def _warm_up(_: int) -> int:
    time.sleep(0.2)  # long enough that every worker process gets one
    return os.getpid()


@dataclass(frozen=True)
class Blast:
    seconds: float  # wall time until the last client got its last answer
    client_cpu: float  # CPU seconds of the client processes together


async def blast(
    pool: ProcessPoolExecutor, port: int, batches: Sequence[Sequence[tuple[str, bytes]]]
) -> Blast:
    """Send every batch at once (one client process per batch)."""
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    cpus = await asyncio.gather(*(loop.run_in_executor(pool, send_all, port, b) for b in batches))
    return Blast(time.perf_counter() - started, sum(cpus))


# --- the bare sink -------------------------------------------------------------------------


class NullHandler:
    """Accepts every message and keeps nothing."""

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return "250 OK"


@dataclass(frozen=True)
class Run:
    """One run's figures, per message."""

    rate: float  # messages/s (for the daemon: end to end)
    cpu_ms: float  # ms of this process's CPU (the sink, or the whole daemon)
    client_cpu_ms: float  # ms of the clients' CPU


async def bare_sink_rate(pool: ProcessPoolExecutor, batches: list[list[tuple[str, bytes]]]) -> Run:
    """The bare sink's rate and the CPU it and its clients spent per message."""
    loop = asyncio.get_running_loop()
    handler = NullHandler()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="localhost", loop=loop), "127.0.0.1", 0
    )
    port = server.sockets[0].getsockname()[1]
    total = sum(map(len, batches))
    try:
        cpu = time.process_time()
        sent = await blast(pool, port, batches)
        cpu = time.process_time() - cpu
    finally:
        server.close()
        await server.wait_closed()
    return Run(total / sent.seconds, 1000 * cpu / total, 1000 * sent.client_cpu / total)


# --- the daemon ----------------------------------------------------------------------------


def player_names(count: int) -> list[str]:
    base = NAMES.split()
    return [f"{base[n % len(base)]}{n // len(base) or ''}" for n in range(count)]


def everybody_asked(work: Work, game: Game) -> bool:
    rs = service.ruleset_of(game)
    state = work.state(game)
    return sorted(rs.asked(state)) == sorted(rs.view(state).alive)


def set_up_games(
    factory: sessionmaker[DbSession], games: int, players: int, *, speed: int, prefix: str = "B"
) -> list[tuple[str, bytes]]:
    """Create and start `games` games; bring each to a step where everybody living is asked.

    Returns one vote mail per living player (for the first valid choice of each).
    """
    mailer = Mailer(FileStore(), NARRATOR)
    now = datetime.now(UTC)
    votes: list[tuple[str, bytes]] = []
    for g in range(games):
        name = f"{prefix}{g + 1}"
        with unit_of_work(factory) as work:
            session = work.session
            game = Game(
                name=name,
                name_key=name.lower(),
                ruleset="wakkerdam",
                language="nl",
                theme="wakkerdam",
                speed=speed,
                strictness=1000,
                status=GameStatus.SIGNUP.value,
            )
            session.add(game)
            session.flush()
            for n, player in enumerate(player_names(players)):
                applicant = service.Applicant(
                    f"{player.lower()}@{name.lower()}.example.org",
                    player,
                    "vrouw" if n % 2 else "man",
                )
                signed = service.signup(table_of(work, game), applicant, now)
                post(work.session, mailer, signed.letters, now)
            service.start_game(work, mailer, game, now=now, seed=g)
            for _ in range(20):
                if everybody_asked(work, game):
                    break
                service.close_step(work, mailer, game, now=now)
            if not everybody_asked(work, game):
                raise RuntimeError(f"{name}: no step where everybody is asked")
            rs = service.ruleset_of(game)
            state = service.load_state(work, game)
            emails = {p.name: p.email for p in game_players(session, game)}
            for player in rs.asked(state):
                action = rs.choices(state, player).actions[0]
                targets = [t for t in action.targets if t != player][: action.min_names]
                body = " ".join(targets) or "blanco"
                if action.keyword:
                    body += f" {action.keyword}"
                sender = emails[player]
                raw = (
                    f"From: {player} <{sender}>\r\nTo: {NARRATOR}\r\nSubject: Re: {name}\r\n"
                    f"Message-ID: <vote-{name}-{player}@bench>\r\n"
                    f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
                ).encode()
                votes.append((sender, raw))
    with transaction(factory) as session:  # the set-up's own mail is not part of the run
        session.execute(update(OutboxMessage).values(state=OutboxState.SENT.value))
    return votes


def count_receipts(factory: sessionmaker[DbSession]) -> int:
    with transaction(factory) as session:
        return int(
            session.scalar(
                select(func.count(OutboxMessage.id)).where(
                    OutboxMessage.kind.in_(("receipt", "error"))
                )
            )
            or 0
        )


async def daemon_rate(
    pool: ProcessPoolExecutor,
    database: str,
    workdir: Path,
    batches: list[list[tuple[str, bytes]]],
) -> tuple[Run, float, dict[str, int]]:
    """Returns the run (end to end), votes/s acknowledged by SMTP, and the answers by kind."""
    port = free_port()
    config_file = workdir / "narrator.toml"
    config_file.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "{database}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nport = {port}\n[outbound]\nmaildir = "outbox"\n',
        encoding="utf-8",
    )
    config = load_config(config_file)
    # The clock stops when the worker has committed the last vote (its count is kept in
    # memory: watching the database instead would cost the daemon's process CPU and, on
    # SQLite, turns at the lock); the receipts are then counted once, through a plain engine.
    engine = create_engine(database)
    factory = session_factory(engine)
    total = sum(map(len, batches))
    try:
        async with Daemon(config, options=DaemonOptions(scheduler_poll=60)) as daemon:
            assert daemon.worker is not None
            started, cpu = time.perf_counter(), time.process_time()
            sent = asyncio.ensure_future(blast(pool, port, batches))
            while daemon.worker.processed < total:
                await asyncio.sleep(0.01)
            elapsed = time.perf_counter() - started
            cpu = time.process_time() - cpu
            blasted = await sent
            if (receipts := await asyncio.to_thread(count_receipts, factory)) < total:
                raise RuntimeError(f"{total} votes processed but {receipts} answers queued")
        with transaction(factory) as session:
            kinds = dict(
                session.execute(
                    select(OutboxMessage.kind, func.count(OutboxMessage.id))
                    .where(OutboxMessage.kind.in_(("receipt", "error")))
                    .group_by(OutboxMessage.kind)
                ).all()
            )
    finally:
        engine.dispose()
    run = Run(total / elapsed, 1000 * cpu / total, 1000 * blasted.client_cpu / total)
    return run, total / blasted.seconds, kinds


# --- memory of `narrator serve` ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_rss(workdir: Path, database: str, ready: Callable[[str], bool]) -> int:
    """Start `narrator serve`, wait until `ready(stderr so far)`, return its VmRSS in kB."""
    port = free_port()
    (workdir / "narrator.toml").write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "{database}"\naddress = "{NARRATOR}"\n'
        f"[inbound.smtp]\nport = {port}\n",
        encoding="utf-8",
    )
    log = workdir / "serve.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "narrator", "serve"],
            cwd=workdir,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 60
        while not ready(log.read_text()):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"narrator serve did not get ready:\n{log.read_text()}")
            time.sleep(0.1)
        time.sleep(1.0)  # let the first inbox pass and outbox pass settle
        status = Path(f"/proc/{process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1])
    finally:
        process.terminate()
        process.wait(timeout=30)


# --- main ----------------------------------------------------------------------------------


async def pipeline(args: argparse.Namespace, workdir: Path) -> None:
    database = args.database or f"sqlite:///{workdir / 'pipeline.db'}"
    upgrade(database)
    engine = make_engine(database)
    print(f"setting up {args.games} games x {args.players} players on {database.split('://')[0]}")
    started = time.perf_counter()
    votes = set_up_games(session_factory(engine), args.games, args.players, speed=2 * 86400)
    engine.dispose()
    print(f"  {len(votes)} votes prepared in {time.perf_counter() - started:.1f}s")
    batches = [votes[n :: args.clients] for n in range(args.clients)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.clients, mp_context=context) as pool:
        list(pool.map(_warm_up, range(args.clients)))  # start the client processes first
        sink = await bare_sink_rate(pool, batches)
        daemon, acked, kinds = await daemon_rate(pool, database, workdir, batches)
    print(f"bare aiosmtpd sink:           {sink.rate:8.0f} messages/s")
    print(f"daemon, SMTP acknowledged:    {acked:8.0f} votes/s (committed to the inbox)")
    print(f"daemon, end to end:           {daemon.rate:8.0f} votes/s (receipt queued) {kinds}")
    print(f"ratio end to end / sink:      {daemon.rate / sink.rate:8.2f}")
    print_cpu(sink, daemon)


#: The daemon's CPU per vote may be at most this many times the bare sink's per message.
CPU_TARGET = 3.0


def print_cpu(sink: Run, daemon: Run) -> None:
    """The CPU per message of each side, and the daemon's against its target."""
    print(
        f"CPU per message (ms):         sink {sink.cpu_ms:.2f} + its clients "
        f"{sink.client_cpu_ms:.2f}; daemon {daemon.cpu_ms:.2f} + its clients "
        f"{daemon.client_cpu_ms:.2f}"
    )
    ratio = daemon.cpu_ms / sink.cpu_ms
    verdict = "met" if ratio <= CPU_TARGET else "NOT met"
    print(
        f"target: daemon CPU per vote at most {CPU_TARGET:g} x the sink's per message: "
        f"{ratio:.1f} x, {verdict}"
    )


def memory(args: argparse.Namespace, workdir: Path) -> None:
    empty = workdir / "empty"
    empty.mkdir()
    rss_empty = serve_rss(empty, f"sqlite:///{empty / 'n.db'}", lambda log: "serving as" in log)
    busy = workdir / "busy"
    busy.mkdir()
    database = f"sqlite:///{busy / 'n.db'}"
    upgrade(database)
    engine = make_engine(database)
    set_up_games(session_factory(engine), args.open_games, 8, speed=2 * 86400, prefix="M")
    engine.dispose()
    rss_busy = serve_rss(
        busy, database, lambda log: f"{args.open_games} deadline(s) scheduled" in log
    )
    print(f"narrator serve, no games:     {rss_empty / 1024:8.1f} MiB resident")
    print(
        f"narrator serve, {args.open_games} games:    {rss_busy / 1024:8.1f} MiB resident "
        f"({(rss_busy - rss_empty) / args.open_games:.0f} kB per open game)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--clients", type=int, default=10, help="client processes")
    parser.add_argument("--open-games", type=int, default=100)
    parser.add_argument("--database", help="SQLAlchemy URL of an empty database (default SQLite)")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="narrator-bench-") as tmp:
        workdir = Path(tmp)
        asyncio.run(pipeline(args, workdir))
        if not args.skip_memory:
            memory(args, workdir)


if __name__ == "__main__":
    main()
