"""While the database is unavailable (here: another connection holds SQLite's write lock), each
part of the daemon logs one line per failed retry — what failed, how often in a row, the
database's error — and no traceback; tracebacks are kept for bugs."""

from __future__ import annotations

import asyncio
import logging
import re
import smtplib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError

import narrator.db
from narrator.config import load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction
from narrator.inbound.sink import StorageUnavailable
from narrator.models import InboxMessage
from narrator.outages import first_line, is_database_unavailable, log_failure
from narrator.scheduler import DeadlineScheduler
from narrator.service.mailer import Mailer
from stories import FileStore
from tests.daemon.driver import NARRATOR, compose
from tests.daemon.test_daemon_scheduler import game_row, new_game
from tests.support.aio import run_async, wait_until
from tests.support.net import free_port

OPTIONS = DaemonOptions(inbox_interval=0.2, scheduler_poll=0.2, outbox_poll=0.2)
LOCKED = "database unavailable: (sqlite3.OperationalError) database is locked"

#: logger -> the line each part logs for a failed retry during the outage.
OUTAGE_LINES = {
    "narrator.daemon": re.compile(
        rf"^inbox pass failed \((\d+) in a row\): {re.escape(LOCKED)}; retrying in 0\.2s$"
    ),
    "narrator.outbound.sender": re.compile(
        rf"^outbox pass failed \((\d+) in a row\): {re.escape(LOCKED)}; retrying in 0\.2s$"
    ),
    "narrator.scheduler": re.compile(
        rf"^re-reading the deadlines failed \((\d+) in a row\): {re.escape(LOCKED)}; "
        r"the next poll retries$"
    ),
}


def outage_records(caplog: pytest.LogCaptureFixture, logger: str) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.name == logger and OUTAGE_LINES[logger].match(r.getMessage())
    ]


def test_a_locked_database_is_one_line_per_retry_without_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO, logger="narrator")
    patient = narrator.db.SQLITE_BUSY_TIMEOUT_MS
    monkeypatch.setattr("narrator.db.SQLITE_BUSY_TIMEOUT_MS", 200)  # give up on the lock soon
    database = tmp_path / "narrator.db"
    path = tmp_path / "narrator.toml"
    path.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "sqlite:///{database}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nport = {free_port()}\n[outbound]\nmaildir = "outbox"\n',
        encoding="utf-8",
    )
    config = load_config(path, environ={})
    raw = compose("anna@example.org", "WW9", "Anna, vrouw", "after-outage@example.org")

    async def scenario() -> None:
        async with Daemon(config, options=OPTIONS) as daemon:
            holder = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
            try:
                await asyncio.to_thread(holder.execute, "BEGIN IMMEDIATE")
                await wait_until(
                    lambda: all(len(outage_records(caplog, name)) >= 3 for name in OUTAGE_LINES),
                    timeout=20,
                    message="three failed retries of the worker, the sender and the scheduler",
                )
                await asyncio.to_thread(holder.execute, "ROLLBACK")
            finally:
                holder.close()

            # Back: the parts go on as before.
            def send() -> None:
                with smtplib.SMTP("127.0.0.1", daemon.smtp_port, timeout=30) as client:
                    client.sendmail("anna@example.org", [NARRATOR], raw)

            await asyncio.to_thread(send)
            # The test's own reader waits for the lock as any reader would (the daemon is
            # writing the mail it reads): only the daemon's engine was told to give up soon.
            monkeypatch.setattr("narrator.db.SQLITE_BUSY_TIMEOUT_MS", patient)
            engine = make_engine(config.database_url)
            try:

                def processed() -> bool:
                    with transaction(session_factory(engine)) as session:
                        state = session.scalar(select(InboxMessage.state))
                    return state == "done"

                await wait_until(processed, timeout=20, message="the mail processed")
            finally:
                engine.dispose()

    run_async(scenario())
    for name in OUTAGE_LINES:
        records = outage_records(caplog, name)
        counts = [int(OUTAGE_LINES[name].match(r.getMessage()).group(1)) for r in records]  # type: ignore[union-attr]
        assert counts[:3] == [1, 2, 3], (name, counts)  # the retry count, in a row
        assert all(r.levelno == logging.ERROR and r.exc_info is None for r in records)
    assert "Traceback" not in caplog.text


def test_a_deadline_job_meeting_a_locked_database_says_so_in_one_line_and_retries(
    sqlite_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO, logger="narrator")
    monkeypatch.setattr("narrator.db.SQLITE_BUSY_TIMEOUT_MS", 200)
    engine = make_engine(sqlite_url)
    sessions = session_factory(engine)
    mailer = Mailer(FileStore(), NARRATOR)
    # The first step (an hour long) ends in a second and a half.
    started = datetime.now(UTC) - timedelta(hours=1) + timedelta(seconds=1.5)
    game_id = new_game(sessions, mailer, speed=3600, started=started)
    job_line = re.compile(
        rf"^deadline job for game {game_id} failed \((\d+) in a row\): {re.escape(LOCKED)}; "
        r"retrying in 0\.5s$"
    )

    def job_failures() -> list[logging.LogRecord]:
        return [r for r in caplog.records if job_line.match(r.getMessage())]

    async def scenario() -> None:
        scheduler = DeadlineScheduler(
            sessions, mailer, lambda: datetime.now(UTC), poll_interval=0.5,
            reminder_lead=lambda _speed: timedelta(0),
        )  # fmt: skip
        await scheduler.start()
        holder = sqlite3.connect(make_url(sqlite_url).database or "", check_same_thread=False)
        holder.isolation_level = None
        try:
            await asyncio.to_thread(holder.execute, "BEGIN IMMEDIATE")
            await wait_until(lambda: len(job_failures()) >= 2, timeout=20, message="2 failures")
            await asyncio.to_thread(holder.execute, "ROLLBACK")

            def stepped() -> bool:
                try:
                    return game_row(sessions, game_id).step_number == 2
                except OperationalError:  # the job holds the lock past our 200 ms: read again
                    return False

            await wait_until(
                stepped,
                timeout=20,
                message="the deadline to fire once the database is back",
            )
        finally:
            holder.close()
            await scheduler.stop()

    try:
        run_async(scenario())
    finally:
        engine.dispose()
    records = job_failures()
    assert [job_line.match(r.getMessage()).group(1) for r in records][:2] == ["1", "2"]  # type: ignore[union-attr]
    assert all(r.exc_info is None for r in records)
    assert "Traceback" not in caplog.text


def locked_error() -> OperationalError:
    return OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked"))


@pytest.mark.parametrize(
    ("error", "unavailable"),
    [
        (locked_error(), True),
        (StorageUnavailable("inbox commit failed"), True),
        (IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed")), False),
        (RuntimeError("a bug"), False),
        (ConnectionError("not the database"), False),
    ],
    ids=["operational", "storage-unavailable", "integrity", "bug", "connection-error"],
)
def test_what_counts_as_the_database_being_unavailable(error: Exception, unavailable: bool) -> None:
    assert is_database_unavailable(error) is unavailable


def test_storage_unavailable_is_judged_by_what_it_wraps() -> None:
    def wrapped(cause: Exception) -> StorageUnavailable:
        try:
            raise StorageUnavailable(f"inbox commit failed: {cause}") from cause
        except StorageUnavailable as error:
            return error

    assert is_database_unavailable(wrapped(locked_error()))
    integrity = IntegrityError("INSERT", {}, sqlite3.IntegrityError("NOT NULL constraint failed"))
    assert not is_database_unavailable(wrapped(integrity))


def test_log_failure_keeps_the_traceback_of_a_bug(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("narrator.test")
    for error in (locked_error(), RuntimeError("a bug")):
        try:
            raise error
        except Exception as caught:
            log_failure(log, caught, "pass failed (1 in a row)", "retrying in 2s")
    outage, bug = caplog.records
    assert outage.getMessage() == (
        "pass failed (1 in a row): database unavailable: "
        "(sqlite3.OperationalError) database is locked; retrying in 2s"
    )
    assert outage.exc_info is None
    assert bug.getMessage() == "pass failed (1 in a row); retrying in 2s"
    assert bug.exc_info is not None and bug.exc_info[1] is not None
    assert "Traceback" in caplog.text and "RuntimeError: a bug" in caplog.text
    assert first_line(locked_error()) == "(sqlite3.OperationalError) database is locked"
