"""End to end: the daemon in-process plays a whole 8-player game by mail, from the signups to
the winners' mail — through its SMTP receiver, and through a real Dovecot IMAP mailbox."""

from __future__ import annotations

import asyncio
import smtplib
from pathlib import Path

import pytest
from sqlalchemy import func, select

from narrator.cli import main
from narrator.config import Config, load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction
from narrator.models import Player
from tests.daemon.driver import NARRATOR, check_mailboxes, delivered, play, sign_up
from tests.support.aio import run_async, wait_until
from tests.support.dovecot import DovecotAccount
from tests.support.net import free_port

OPTIONS = DaemonOptions(
    inbox_interval=5.0,
    scheduler_poll=0.5,  # `narrator game start` runs in "another process": the poll sees it
    outbox_poll=5.0,
    imap={"poll_interval": 1.0, "backoff_initial": 0.05, "backoff_max": 0.5},
)


def write_config(tmp_path: Path, db_url: str, extra: str = "") -> Path:
    path = tmp_path / "narrator.toml"
    path.write_text(
        f'[narrator]\ndatabase = "{db_url}"\naddress = "{NARRATOR}"\n'
        f'[outbound]\nmaildir = "outbox"\n{extra}',
        encoding="utf-8",
    )
    return path


def cli(config_file: Path, *args: str) -> None:
    status = main([*args, "--config", str(config_file)])
    assert status == 0, f"narrator {' '.join(args)} failed"


async def run_game(config: Config, config_file: Path, send_factory: object) -> None:
    """Create, sign up, start and play the game against a running daemon; check the mail."""
    engine = make_engine(config.database_url)
    factory = session_factory(engine)
    try:
        async with Daemon(config, options=OPTIONS) as daemon:
            send = send_factory(daemon)  # type: ignore[operator]
            await asyncio.to_thread(
                cli, config_file, "game", "create", "WW1", "--speed", "2s", "--strictness", "5",
                "--close-early",
            )  # fmt: skip
            await sign_up(send, "WW1")

            def players() -> int:
                with transaction(factory) as session:
                    return int(session.scalar(select(func.count(Player.id))) or 0)

            await wait_until(lambda: players() == 8, timeout=20, message="8 signups")
            await asyncio.to_thread(cli, config_file, "game", "start", "WW1", "--seed", "5")
            transcript = await play(factory, "WW1", send, timeout=90)
            await delivered(factory, config.outbound.maildir)
            assert daemon.scheduler is not None
            fired = [did for kind, _, did in daemon.scheduler.fired if kind == "deadline"]
            assert any(fired), "the skipped first step ended at its deadline"
        check_mailboxes(factory, config.outbound.maildir, transcript)
    finally:
        engine.dispose()


def test_a_whole_game_by_smtp(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file = write_config(tmp_path, db_url, f"[inbound.smtp]\nport = {free_port()}\n")
    config = load_config(config_file)

    def send_factory(daemon: Daemon) -> object:
        async def send(sender: str, raw: bytes) -> None:
            def deliver() -> None:
                with smtplib.SMTP("127.0.0.1", daemon.smtp_port, timeout=10) as client:
                    client.sendmail(sender, [NARRATOR], raw)

            await asyncio.to_thread(deliver)

        return send

    run_async(run_game(config, config_file, send_factory), timeout=150)


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

    def send_factory(daemon: Daemon) -> object:
        assert daemon.smtp is None and daemon.imap is not None

        async def send(sender: str, raw: bytes) -> None:
            await asyncio.to_thread(dovecot_account.deliver, raw, sender)

        return send

    run_async(run_game(config, config_file, send_factory), timeout=150)
    # Every mail the players sent was taken from the mailbox and flagged after its commit.
    flags = dovecot_account.flags()
    assert flags and all("\\Seen" in f for f in flags.values())
