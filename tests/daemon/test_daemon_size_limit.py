"""The daemon's SMTP receiver takes mail up to twice `[security] max_message_bytes` (at least
1 MiB; 100 MiB when that is 0), so mail somewhat too large gets the inbox's polite `too-large`
reply and only far larger mail is refused by the receiver (552). Real aiosmtpd receiver, real
smtplib client, real SQLite file."""

from __future__ import annotations

import asyncio
import email
import smtplib
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from narrator.config import Config, SecuritySection, load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction
from narrator.inbound.sink import (
    RECEIVER_SIZE_FLOOR,
    UNLIMITED_RECEIVER_SIZE,
    receiver_size_limit,
)
from narrator.inbound.smtp import DEFAULT_MAX_MESSAGE_SIZE, SmtpSettings
from narrator.models import InboxMessage, OutboxMessage
from tests.daemon.driver import NARRATOR, compose
from tests.support.aio import run_async, wait_until
from tests.support.bymail import text_of
from tests.support.net import free_port

OPTIONS = DaemonOptions(inbox_interval=30.0, scheduler_poll=30.0, outbox_poll=30.0)
ANNA = "anna@spelers.example.org"
MiB = 1024 * 1024


def make_config(tmp_path: Path, max_message_bytes: int) -> Config:
    path = tmp_path / "narrator.toml"
    path.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "sqlite:///{tmp_path / "narrator.db"}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nport = {free_port()}\n[outbound]\nmaildir = "outbox"\n'
        f"[security]\nmax_message_bytes = {max_message_bytes}\n",
        encoding="utf-8",
    )
    return load_config(path, environ={})


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[Engine]:
    """An engine to look at the daemon's database from outside (created by the daemon)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'narrator.db'}")
    yield engine
    engine.dispose()


def big_mail(size: int, message_id: str) -> bytes:
    """A mail of about `size` bytes: a question and a long attachment-like body."""
    lines = "\r\n".join("x" * 76 for _ in range(size // 78 + 1))
    return compose(ANNA, "Vraag", "Hoe werkt dit?\r\n" + lines, message_id)


def advertised_size(port: int) -> int:
    """The SIZE the receiver advertises in its EHLO answer (RFC 1870)."""
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo()
        return int(client.esmtp_features["size"])


def data_reply(port: int, raw: bytes) -> tuple[int, bytes]:
    """One transaction without the SIZE shortcut (as a client that ignores it); the DATA reply."""
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo()
        assert client.mail(ANNA)[0] == 250
        assert client.rcpt(NARRATOR)[0] == 250
        return client.data(raw)


def send(port: int, raw: bytes) -> None:
    """Send as smtplib does by itself: with SIZE= in MAIL FROM when the server offers it."""
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.sendmail(ANNA, [NARRATOR], raw)


def answers(engine: Engine) -> list[tuple[str, str, bytes]]:
    """(kind, recipient, raw) of every queued mail."""
    with transaction(session_factory(engine)) as session:
        rows = session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))
        return [(row.kind, row.recipient, row.raw) for row in rows]


def stored(engine: Engine) -> list[str]:
    with transaction(session_factory(engine)) as session:
        return list(session.scalars(select(InboxMessage.message_id).order_by(InboxMessage.id)))


@pytest.mark.parametrize(
    ("max_message_bytes", "expected"),
    [
        (10 * MiB, 20 * MiB),
        (600_000, 1_200_000),
        (50_000, RECEIVER_SIZE_FLOOR),
        (40 * MiB, 80 * MiB),
        (0, UNLIMITED_RECEIVER_SIZE),
    ],
)
def test_the_receiver_limit_follows_max_message_bytes(
    tmp_path: Path, max_message_bytes: int, expected: int
) -> None:
    assert receiver_size_limit(max_message_bytes) == expected
    config = make_config(tmp_path, max_message_bytes)
    assert SmtpSettings.from_config(config).max_message_size == expected


def test_the_default_receiver_limit_is_the_default_configs() -> None:
    assert receiver_size_limit(SecuritySection().max_message_bytes) == DEFAULT_MAX_MESSAGE_SIZE


def test_a_mail_somewhat_too_large_is_answered_and_a_far_larger_one_refused(
    tmp_path: Path, reader: Engine
) -> None:
    config = make_config(tmp_path, 600_000)

    async def scenario() -> None:
        async with Daemon(config, options=OPTIONS) as daemon:
            port = daemon.smtp_port
            assert await asyncio.to_thread(advertised_size, port) == 1_200_000
            # Over max_message_bytes, under the receiver's limit: stored, politely refused.
            code, _ = await asyncio.to_thread(data_reply, port, big_mail(900_000, "groot@x.org"))
            assert code == 250
            await wait_until(lambda: len(answers(reader)) == 1, 30, message="the reply")
            # Over twice the limit: refused by the receiver itself, never stored.
            code, _ = await asyncio.to_thread(data_reply, port, big_mail(1_300_000, "reus@x.org"))
            assert code == 552
            # A client that reads SIZE is refused at MAIL FROM already.
            with pytest.raises(smtplib.SMTPSenderRefused) as refused:
                await asyncio.to_thread(send, port, big_mail(1_300_000, "reus@x.org"))
            assert refused.value.smtp_code == 552

    run_async(scenario())
    assert stored(reader) == ["groot@x.org"]
    ((kind, recipient, raw),) = answers(reader)
    assert (kind, recipient) == ("error", ANNA)
    text = text_of(email.message_from_bytes(raw))
    assert "te groot" in text and "585 kB" in text  # 600_000 // 1024: the inbox's own limit


def test_max_message_bytes_above_10_mib_lets_larger_mail_in(tmp_path: Path, reader: Engine) -> None:
    config = make_config(tmp_path, 12 * MiB)

    async def scenario() -> None:
        async with Daemon(config, options=OPTIONS) as daemon:
            port = daemon.smtp_port
            assert await asyncio.to_thread(advertised_size, port) == 24 * MiB
            code, text = await asyncio.to_thread(data_reply, port, big_mail(11 * MiB, "elf@x.org"))
            assert (code, text) == (250, b"2.0.0 Ok: stored")
            await wait_until(lambda: len(answers(reader)) == 1, 30, message="the reply")

    run_async(scenario())
    assert stored(reader) == ["elf@x.org"]
    ((kind, recipient, raw),) = answers(reader)
    # Read (under max_message_bytes): the answer is about its subject, not its size.
    assert (kind, recipient) == ("error", ANNA)
    assert "te groot" not in text_of(email.message_from_bytes(raw))
