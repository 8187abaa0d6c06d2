"""`[inbound.smtp] lmtp = true`: the daemon's receiver speaks LMTP (as Postfix's `lmtp:`
transport delivers), with the SMTP receiver's guarantees: 250 per recipient only once the mail
is committed, 451 when the database cannot take it, 550 for other addresses. Real smtplib.LMTP
client, real SQLite file (locked by another connection for the 451)."""

from __future__ import annotations

import asyncio
import logging
import re
import smtplib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from narrator.config import Config, load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction
from narrator.models import InboxMessage
from tests.daemon.driver import NARRATOR, compose
from tests.support.aio import run_async
from tests.support.net import free_port

OPTIONS = DaemonOptions(inbox_interval=30.0, scheduler_poll=30.0, outbox_poll=30.0)
ANNA = "anna@spelers.example.org"


@pytest.fixture
def config(tmp_path: Path) -> Config:
    path = tmp_path / "narrator.toml"
    path.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "sqlite:///{tmp_path / "narrator.db"}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nport = {free_port()}\nlmtp = true\n[outbound]\nmaildir = "outbox"\n',
        encoding="utf-8",
    )
    return load_config(path, environ={})


@pytest.fixture
def reader(config: Config) -> Iterator[Engine]:
    """An engine to look at the daemon's database from outside."""
    engine = make_engine(config.database_url)
    yield engine
    engine.dispose()


def stored(engine: Engine) -> list[str]:
    """The Message-IDs in the inbox table (committed rows only: another connection reads)."""
    with transaction(session_factory(engine)) as session:
        return list(session.scalars(select(InboxMessage.message_id).order_by(InboxMessage.id)))


def lmtp_send(port: int, raw: bytes, recipients: list[str]) -> dict[str, tuple[int, bytes]]:
    """Deliver by LMTP as an MTA does; returns the recipients refused (smtplib's sendmail)."""
    with smtplib.LMTP("127.0.0.1", port, timeout=30) as client:
        return client.sendmail(ANNA, recipients, raw)


def lmtp_replies(port: int, raw: bytes, recipients: list[str]) -> list[tuple[int, bytes]]:
    """One LMTP transaction by hand: the replies to LHLO, to each RCPT, then every DATA reply
    (LMTP gives one per accepted recipient; smtplib's sendmail reads only the first)."""
    with smtplib.LMTP("127.0.0.1", port, timeout=30) as client:
        replies = [client.ehlo()]  # smtplib.LMTP says LHLO (an SMTP server answers 500)
        assert client.mail(ANNA)[0] == 250
        rcpts = [client.rcpt(recipient) for recipient in recipients]
        replies += rcpts
        replies.append(client.data(raw))
        replies += [client.getreply() for code, _ in rcpts[1:] if code == 250]
        return replies


def test_lmtp_delivery_is_answered_after_the_commit_and_other_addresses_are_refused(
    config: Config, reader: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="narrator")
    raw = compose(ANNA, "help", "Hoe werkt dit?", "lmtp-1@spelers.example.org")

    async def scenario() -> tuple[dict[str, tuple[int, bytes]], list[str], list[tuple[int, bytes]]]:
        async with Daemon(config, options=OPTIONS) as daemon:
            refused = await asyncio.to_thread(
                lmtp_send, daemon.smtp_port, raw, ["iemand@example.org", NARRATOR]
            )
            rows_when_answered = stored(reader)
            with pytest.raises(smtplib.SMTPRecipientsRefused) as error:
                await asyncio.to_thread(lmtp_send, daemon.smtp_port, raw, ["iemand@example.org"])
            assert error.value.recipients["iemand@example.org"][0] == 550
            # Two of the narrator's addresses and a stranger: one DATA reply per accepted one.
            second = compose(ANNA, "help", "Nog een vraag", "lmtp-2@spelers.example.org")
            replies = await asyncio.to_thread(
                lmtp_replies,
                daemon.smtp_port,
                second,
                [NARRATOR, "iemand@example.org", "verteller+ww1@example.org"],
            )
            return refused, rows_when_answered, replies

    refused, rows_when_answered, replies = run_async(scenario())
    assert refused == {"iemand@example.org": (550, b"5.1.1 No such recipient here")}
    assert rows_when_answered == ["lmtp-1@spelers.example.org"]  # committed before the 250
    assert [code for code, _ in replies] == [250, 250, 550, 250, 250, 250]
    assert replies[-2:] == [(250, b"2.0.0 Ok: stored")] * 2
    assert stored(reader) == ["lmtp-1@spelers.example.org", "lmtp-2@spelers.example.org"]
    assert f"LMTP receiver for {NARRATOR} listening on 127.0.0.1:" in caplog.text


def test_lmtp_answers_451_while_the_database_is_locked_and_stores_the_retry_once(
    config: Config,
    reader: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="narrator")
    # Another process holds SQLite's write lock longer than the (shortened) busy timeout.
    monkeypatch.setattr("narrator.db.SQLITE_BUSY_TIMEOUT_MS", 300)
    raw = compose(ANNA, "WW1", "Anna, vrouw", "lmtp-locked@spelers.example.org")

    async def scenario() -> None:
        async with Daemon(config, options=OPTIONS) as daemon:
            port = daemon.smtp_port
            holder = sqlite3.connect(tmp_path / "narrator.db", isolation_level=None, timeout=30)
            try:
                holder.execute("BEGIN IMMEDIATE")
                with pytest.raises(smtplib.SMTPDataError) as error:
                    await asyncio.to_thread(lmtp_send, port, raw, [NARRATOR])
                assert error.value.smtp_code == 451
                assert error.value.smtp_error.startswith(b"4.3.0 ")
                # Every accepted recipient gets its 451.
                replies = await asyncio.to_thread(
                    lmtp_replies, port, raw, [NARRATOR, "verteller+ww1@example.org"]
                )
                assert [code for code, _ in replies] == [250, 250, 250, 451, 451]
                holder.execute("ROLLBACK")
            finally:
                holder.close()
            assert stored(reader) == []  # not stored, not acknowledged: the MTA keeps it
            assert await asyncio.to_thread(lmtp_send, port, raw, [NARRATOR]) == {}
            assert stored(reader) == ["lmtp-locked@spelers.example.org"]
            # The MTA delivering it once more (a lost reply) stores nothing new.
            assert await asyncio.to_thread(lmtp_send, port, raw, [NARRATOR]) == {}
            assert stored(reader) == ["lmtp-locked@spelers.example.org"]

    run_async(scenario())
    # One line per refused mail, with the database's error and no traceback.
    (refusal, *_) = [r for r in caplog.records if r.getMessage().startswith("could not store")]
    assert re.fullmatch(
        rf"could not store mail from '{re.escape(ANNA)}' \(\d+ bytes\): database unavailable: "
        r"inbox commit failed: \(sqlite3\.OperationalError\) database is locked; answered 451",
        refusal.getMessage(),
    )
    assert refusal.exc_info is None
    assert "Traceback" not in caplog.text
