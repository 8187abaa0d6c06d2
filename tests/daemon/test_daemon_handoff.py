"""The inbox pass hands its replies to the sender already claimed: a reply costs no claim pass,
and a daemon that dies between the pass's commit and the delivery loses nothing (the claim is
taken back as any dead sender's, and the reply is sent once)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from narrator.config import load_config
from narrator.daemon import Daemon, DaemonOptions, Gathering
from narrator.db import make_engine, session_factory, transaction
from narrator.inbound.dbsink import DbSink, Incoming
from narrator.models import OutboxMessage
from narrator.outbound.outbox import Claimant, SqlOutbox
from narrator.outbound.sender import OutboxItem
from narrator.service.inbox import process_pending
from narrator.service.wiring import flush_maildir, inbox_settings, make_mailer, utc_now
from tests.support.aio import run_async, wait_until
from tests.support.bymail import compose
from tests.support.home import create_game, maildir_ids, write_home

# The worker looks for stored mail often (the mail is stored straight into the inbox, as by
# another process); the sender polls rarely: only a claim pass of its own would find the reply.
# The worker's gathering is set (not the default), as tests and operators may.
OPTIONS = DaemonOptions(
    inbox_interval=0.1,
    outbox_poll=60.0,
    scheduler_poll=60.0,
    gathering=Gathering(quiet=0.02, max_delay=0.1, enough=5),
)
SIGNUP = compose("ivo@spelers.example.org", "WW21", "Ivo, man", "su-ivo.WW21@spelers.example.org")


def store(db_url: str, raw: bytes) -> None:
    """Store `raw` in the inbox, as a receiver of another process would."""
    engine = make_engine(db_url)
    try:
        DbSink(session_factory(engine)).store_many_sync([Incoming(raw, "smtp")])
    finally:
        engine.dispose()


def outbox_rows(db_url: str) -> list[tuple[str, str, int, int | None]]:
    """Every outbox row: its Message-ID (without <>), state, attempts and claimant."""
    engine = make_engine(db_url)
    try:
        with transaction(session_factory(engine)) as session:
            query = select(
                OutboxMessage.message_id,
                OutboxMessage.state,
                OutboxMessage.attempts,
                OutboxMessage.claimed_by,
            ).order_by(OutboxMessage.id)
            return [(m.strip("<>"), s, a, c) for m, s, a, c in session.execute(query)]
    finally:
        engine.dispose()


def test_a_reply_of_the_inbox_pass_is_delivered_without_a_claim_pass(
    tmp_path: Path, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    maildir = tmp_path / "outbox"
    config_file = write_home(tmp_path / "home", sqlite_url, maildir)
    create_game(config_file, sqlite_url, "WW21")
    claims: list[datetime] = []
    claim_due = SqlOutbox.claim_due

    def counted(self: SqlOutbox, now: datetime, lease: timedelta, limit: int) -> list[OutboxItem]:
        claims.append(now)
        return claim_due(self, now, lease, limit)

    monkeypatch.setattr(SqlOutbox, "claim_due", counted)

    async def scenario() -> None:
        async with Daemon(load_config(config_file), options=OPTIONS) as daemon:
            await wait_until(lambda: bool(claims), message="the sender's first pass")
            before = len(claims)
            await asyncio.to_thread(store, sqlite_url, SIGNUP)
            await wait_until(lambda: sum(maildir_ids(maildir).values()) == 1, message="a reply")
            assert daemon.worker is not None and daemon.worker.processed == 1
            assert daemon.worker.gathering == OPTIONS.gathering
            assert len(claims) == before  # the sender claimed nothing for it

    run_async(scenario())
    ((message_id, state, attempts, claimed_by),) = outbox_rows(sqlite_url)
    assert (state, attempts, claimed_by) == ("sent", 1, None)
    assert maildir_ids(maildir) == {message_id: 1}


def test_the_worker_gathers_mail_as_the_configuration_says(tmp_path: Path, sqlite_url: str) -> None:
    """Without a gathering of the daemon's options, the worker takes the configuration's
    (``[inbound]`` ``gather_quiet`` and ``gather_max``), as ``narrator serve`` runs it."""
    config_file = write_home(tmp_path / "home", sqlite_url, tmp_path / "outbox")
    with config_file.open("a", encoding="utf-8") as config:
        config.write('[inbound]\ngather_quiet = 0.05\ngather_max = "2s"\n')
    options = dataclasses.replace(OPTIONS, gathering=None)

    async def scenario() -> Gathering | None:
        async with Daemon(load_config(config_file), options=options) as daemon:
            assert daemon.worker is not None
            return daemon.worker.gathering

    assert run_async(scenario()) == Gathering(quiet=0.05, max_delay=2.0)


def test_a_reply_whose_daemon_died_before_delivering_it_is_sent_once_by_the_next(
    tmp_path: Path, sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The pass committed the reply claimed by its daemon's sender, and the daemon died before
    the sender had it: the CLI's sender leaves it to its lease; the next daemon (SQLite: one
    per file, so every claim is a dead one's) takes it back at its start and sends it once."""
    maildir = tmp_path / "outbox"
    config_file = write_home(tmp_path / "home", sqlite_url, maildir)
    config = load_config(config_file)
    create_game(config_file, sqlite_url, "WW21")
    store(sqlite_url, SIGNUP)
    engine = make_engine(sqlite_url)
    try:
        factory = session_factory(engine)
        settings = inbox_settings(config)
        dead = dataclasses.replace(settings, claimant=Claimant(4242, config.outbound.lease))
        (outcome,) = process_pending(factory, make_mailer(config, factory), dead, utc_now)
        (item,) = outcome.queued  # never handed over: the daemon died here
        assert outbox_rows(sqlite_url) == [(item.message_id.strip("<>"), "pending", 1, 4242)]
        report = flush_maildir(config, factory)  # `narrator inject`'s: no reclaim, the lease
        assert report is not None and report.claimed == 0
    finally:
        engine.dispose()
    assert maildir_ids(maildir) == {}

    async def restart() -> None:
        async with Daemon(config, options=OPTIONS):
            await wait_until(lambda: sum(maildir_ids(maildir).values()) == 1, message="a reply")

    with caplog.at_level(logging.WARNING, logger="narrator.daemon"):
        run_async(restart())
    assert "took back 1 outbox claim(s) of a stopped daemon" in caplog.text
    assert outbox_rows(sqlite_url) == [(item.message_id.strip("<>"), "sent", 2, None)]
    assert maildir_ids(maildir) == {item.message_id.strip("<>"): 1}
