"""End to end: the daemon in-process plays a whole 8-player game by mail, from the signups to
the winners' mail — through its SMTP receiver, and through a real Dovecot IMAP mailbox."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import smtplib
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, text

from narrator.cli import main
from narrator.config import Config, load_config
from narrator.daemon import Daemon, DaemonFailed, DaemonOptions, _dispose_when_returned, serve
from narrator.db import make_engine, session_factory, transaction
from narrator.models import InboxMessage, Player
from tests.daemon.driver import (
    NARRATOR,
    ClockHand,
    MaildirOutbox,
    Plan,
    Send,
    check_mailboxes,
    check_outbox,
    delivered,
    play,
    sign_up,
)
from tests.support.aio import run_async, wait_until
from tests.support.clock import MovableClock
from tests.support.dovecot import DovecotAccount
from tests.support.net import free_port

OPTIONS = DaemonOptions(
    inbox_interval=5.0,
    scheduler_poll=0.5,  # `narrator game start` runs in "another process": the poll sees it
    outbox_poll=5.0,
    imap={"poll_interval": 1.0, "backoff_initial": 0.05, "backoff_max": 0.5},
)


def watched(fired: list[tuple[str, int, bool]]) -> DaemonOptions:
    """:data:`OPTIONS`, with the scheduler's jobs recorded in `fired` (kind, game, did)."""
    return dataclasses.replace(OPTIONS, on_fired=lambda *job: fired.append(job))


WW1 = Plan("wakkerdam", "nl", "WW1", seed=9)  # a short game: six steps


def write_config(tmp_path: Path, db_url: str, extra: str = "", *, maildir: bool = True) -> Path:
    path = tmp_path / "narrator.toml"
    outbound = '[outbound]\nmaildir = "outbox"\n' if maildir else ""
    path.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "{db_url}"\naddress = "{NARRATOR}"\n{outbound}{extra}',
        encoding="utf-8",
    )
    return path


def cli(config_file: Path, *args: str) -> None:
    status = main([*args, "--config", str(config_file)])
    assert status == 0, f"narrator {' '.join(args)} failed"


async def run_game(
    configs: list[Config],
    config_file: Path,
    send_factory: Callable[[list[Daemon]], Send],
) -> None:
    """Create, sign up, start and play the game against running daemons; check the mail."""
    engine = make_engine(configs[0].database_url)
    factory = session_factory(engine)
    outbox = MaildirOutbox(configs[0].outbound.maildir)
    try:
        jobs: list[tuple[str, int, bool]] = []  # every daemon's scheduler jobs
        clock = MovableClock()  # the daemons' clock: the test moves it to the first deadline
        async with contextlib.AsyncExitStack() as stack:
            daemons = [
                await stack.enter_async_context(Daemon(config, options=watched(jobs), clock=clock))
                for config in configs
            ]
            send = send_factory(daemons)
            # Steps of an hour: the skipped first step's reminder and deadline come when the
            # clock hand moves the clock, after every bot's vote was applied.
            await asyncio.to_thread(cli, config_file, *WW1.create("1h"))
            await sign_up(send, WW1)

            def players() -> int:
                with transaction(factory) as session:
                    return int(session.scalar(select(func.count(Player.id))) or 0)

            await wait_until(lambda: players() == 8, timeout=20, message="8 signups")
            await asyncio.to_thread(
                cli, config_file, "game", "start", "WW1", "--seed", str(WW1.seed)
            )
            schedulers = [d.scheduler for d in daemons if d.scheduler]
            hand = ClockHand(clock, factory, lambda: schedulers, games=1)
            transcript = await play(factory, WW1, send, outbox, timeout=90, hand=hand)
            await delivered(factory, outbox)
            fired = [did for kind, _, did in jobs if kind == "deadline"]
            assert any(fired), "the skipped first step ended at its deadline"
            processed = [d.worker.processed if d.worker else 0 for d in daemons]
            assert all(processed), f"every daemon processed mail: {processed}"
        check_outbox(factory, outbox)
        check_mailboxes(factory, outbox, transcript)
        with transaction(factory) as session:
            inbox = session.scalars(select(InboxMessage)).all()
            # Every mail applied at the first try: daemons sharing a game never trip over it.
            assert [
                (r.id, r.state, r.attempts) for r in inbox if r.attempts or r.state != "done"
            ] == []
    finally:
        engine.dispose()


def smtp_sender(daemons: list[Daemon]) -> Send:
    """Players mail the daemons' SMTP receivers, taking turns between them."""
    turn = itertools.count()

    async def send(sender: str, raw: bytes) -> None:
        port = daemons[next(turn) % len(daemons)].smtp_port

        def deliver() -> None:
            with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
                client.sendmail(sender, [NARRATOR], raw)

        await asyncio.to_thread(deliver)

    return send


def test_a_whole_game_by_smtp(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file = write_config(tmp_path, db_url, f"[inbound.smtp]\nport = {free_port()}\n")
    config = load_config(config_file)
    run_async(run_game([config], config_file, smtp_sender), timeout=150)


def test_two_daemons_on_one_postgresql_share_a_game(
    postgres_db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configs = []
    for n in (1, 2):
        home = tmp_path / f"daemon{n}"
        home.mkdir()
        extra = (
            f'[inbound.smtp]\nport = {free_port()}\n[outbound]\nmaildir = "{tmp_path / "outbox"}"\n'
        )
        configs.append(load_config(write_config(home, postgres_db_url, extra, maildir=False)))
    run_async(run_game(configs, tmp_path / "daemon1" / "narrator.toml", smtp_sender), timeout=150)


@pytest.mark.dovecot
def test_a_whole_game_by_imap(
    sqlite_url: str,
    tmp_path: Path,
    dovecot_account: DovecotAccount,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = dovecot_account.server
    config_file = write_config(
        tmp_path,
        sqlite_url,
        "[inbound.smtp]\nenabled = false\n"
        f'[inbound.imap]\nenabled = true\nhost = "{server.host}"\nport = {server.imap_port}\n'
        f'ssl = false\nusername = "{dovecot_account.username}"\n',
    )
    config = load_config(config_file, environ={"NARRATOR_IMAP_PASSWORD": dovecot_account.password})

    def lmtp_sender(daemons: list[Daemon]) -> Send:
        assert daemons[0].smtp is None and daemons[0].imap is not None

        async def send(sender: str, raw: bytes) -> None:
            await asyncio.to_thread(dovecot_account.deliver, raw, sender)

        return send

    run_async(run_game([config], config_file, lmtp_sender), timeout=150)
    # Every mail the players sent was taken from the mailbox and flagged after its commit.
    flags = dovecot_account.flags()
    assert flags and all("\\Seen" in f for f in flags.values())


def test_a_part_that_dies_stops_the_daemon_with_an_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Every long-running part survives faults on its own; should one end anyway (a bug), the
    daemon must not run on half-dead (taking mail it never answers): it stops with an error, so
    that systemd restarts it and the operator sees why."""
    caplog.set_level(logging.INFO, logger="narrator")
    smtp = f"[inbound.smtp]\nport = {free_port()}\n"
    config = load_config(write_config(tmp_path, f"sqlite:///{tmp_path / 'narrator.db'}", smtp))

    def kill_the_worker(daemon: Daemon) -> None:
        assert daemon.worker is not None and daemon.worker.task is not None
        daemon.worker.task.cancel()

    async def scenario() -> None:
        with pytest.raises(DaemonFailed, match=r"narrator\.inbox ended unexpectedly"):
            await asyncio.wait_for(serve(config, options=OPTIONS, on_started=kill_the_worker), 20)

    run_async(scenario())
    assert "the narrator stops (let its supervisor restart it)" in caplog.text
    assert "narrator stopped" in caplog.text  # the rest was stopped cleanly


def test_a_stop_closes_the_connection_of_a_thread_its_cancelled_part_left_running(
    db_url: str, tmp_path: Path
) -> None:
    """A part's task cancelled by the stop leaves its database thread running; the stop waits
    for that thread's connection to come back before disposing of the engine, which closes it
    (handed back to a disposed pool it stayed open until the garbage collector found it: a
    ResourceWarning in whichever later test ran the collector)."""
    config = load_config(write_config(tmp_path, db_url, "[inbound.smtp]\nenabled = false\n"))
    taken, release = threading.Event(), threading.Event()
    connections: list[Any] = []

    def hold(daemon: Daemon) -> None:
        assert daemon.factory is not None
        with daemon.factory() as session:
            session.execute(text("SELECT 1"))
            connections.append(session.connection().connection.dbapi_connection)
            taken.set()
            release.wait(10)

    async def scenario() -> None:
        async with Daemon(config, options=OPTIONS) as daemon:
            holder = asyncio.ensure_future(asyncio.to_thread(hold, daemon))
            assert await asyncio.to_thread(taken.wait, 10)
            holder.cancel()  # as a stop cancels a part's task: its thread goes on
            stopping = asyncio.create_task(daemon.stop())
            await asyncio.sleep(0.3)
            assert not stopping.done(), "the stop waits for the connection in use"
            release.set()
            await stopping

    run_async(scenario())
    [connection] = connections
    if hasattr(connection, "closed"):  # psycopg
        assert connection.closed
    else:  # sqlite3: a closed connection refuses to work
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            connection.execute("SELECT 1")


def test_a_stop_waits_for_a_connection_in_use_only_so_long(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A connection that does not come back (a hung database call) delays the stop by the
    timeout only, with a warning saying so."""
    engine = make_engine(sqlite_url)
    held = engine.connect()
    try:
        run_async(_dispose_when_returned(engine, timeout=0.2))
    finally:
        held.close()
    assert "1 database connection(s) still in use 0.2s after the stop" in caplog.text
