"""The daemon's outbox sender takes its timings from ``[outbound]``: retry delays, giving up,
the claim's lease and the SMTP timeout, against a real aiosmtpd server and a SQLite file."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.config import Config, load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction, upgrade
from narrator.models import OutboxMessage
from narrator.outbound.compose import Address, OutgoingMail
from narrator.outbound.outbox import queue_mail
from narrator.service.wiring import utc_now
from tests.daemon.driver import NARRATOR
from tests.outbound.helpers import SmtpServer
from tests.support.aio import run_async, wait_until
from tests.support.smtp import SmtpCapture

OPTIONS = DaemonOptions(inbox_interval=30.0, scheduler_poll=30.0, outbox_poll=0.2)
PLAYER = "anna@spelers.example.org"


class LongestDelay(random.Random):
    """Jitter always at its top: a retry waits exactly the (doubled, capped) delay."""

    def random(self) -> float:
        return 1.0


def write_config(tmp_path: Path, port: int, outbound: str = "", smtp: str = "") -> Config:
    path = tmp_path / "narrator.toml"
    path.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "sqlite:///{tmp_path / "narrator.db"}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nenabled = false\n[outbound]\nmode = "smtp"\n{outbound}\n'
        f'[outbound.smtp]\nhost = "127.0.0.1"\nport = {port}\nstarttls = false\nusername = ""\n'
        f"{smtp}\n",
        encoding="utf-8",
    )
    return load_config(path, environ={})


@pytest.fixture
def engines() -> Iterator[list[Engine]]:
    """Engines the test made, disposed of at its end."""
    made: list[Engine] = []
    yield made
    for engine in made:
        engine.dispose()


def queue_one(config: Config, engines: list[Engine]) -> sessionmaker[Session]:
    """Migrate the database and queue one mail to PLAYER; return a session factory on it."""
    upgrade(config.database_url)
    engines.append(make_engine(config.database_url))
    factory = session_factory(engines[-1])
    mail = OutgoingMail(
        sender=Address(NARRATOR, "Verteller"),
        to=Address(PLAYER, "Anna"),
        subject="WW5: ontvangstbewijs",
        text="Je stem is genoteerd.\n",
    )
    with transaction(factory) as session:
        queue_mail(session, mail, now=utc_now(), kind="receipt")
    return factory


def the_row(factory: sessionmaker[Session]) -> OutboxMessage:
    with transaction(factory) as session:
        return session.scalars(select(OutboxMessage)).one()


def test_a_451_is_retried_after_the_configured_first_delay(
    tmp_path: Path, engines: list[Engine]
) -> None:
    with SmtpCapture() as server:
        server.handler.replies.append("451 4.3.0 try again later")
        config = write_config(
            tmp_path, server.port, 'retry_first_delay = "7m"\nretry_max_delay = "1h"'
        )
        factory = queue_one(config, engines)
        started = utc_now()

        async def scenario() -> datetime:
            async with Daemon(config, options=OPTIONS, rng=LongestDelay()):
                await wait_until(
                    lambda: the_row(factory).last_error is not None, message="the failed attempt"
                )
                return utc_now()

        failed_by = run_async(scenario())
    row = the_row(factory)
    assert (row.state, row.attempts) == ("pending", 1)
    assert "451 4.3.0 try again later" in (row.last_error or "")
    # The default would be 30 s; the configured first delay is 7 minutes (jitter at its top).
    assert started + timedelta(minutes=7) <= row.next_attempt_at <= failed_by + timedelta(minutes=7)
    assert server.handler.data_calls == 1


@pytest.mark.parametrize(
    "outbound",
    [
        "max_attempts = 1",
        'give_up_after = "1m"\nretry_first_delay = "2m"\nretry_max_delay = "2m"',
    ],
    ids=["max_attempts", "give_up_after"],
)
def test_a_mail_is_given_up_as_configured(
    tmp_path: Path, engines: list[Engine], outbound: str
) -> None:
    with SmtpCapture() as server:
        server.handler.replies.append("451 4.3.0 try again later")
        config = write_config(tmp_path, server.port, outbound)
        factory = queue_one(config, engines)

        async def scenario() -> None:
            async with Daemon(config, options=OPTIONS):
                await wait_until(
                    lambda: the_row(factory).state != "pending", message="the mail given up"
                )

        run_async(scenario())
    row = the_row(factory)
    assert (row.state, row.attempts) == ("failed", 1)  # by default: pending, retried in 30 s
    assert (row.last_error or "").startswith("gave up after 1 attempts: message refused: 451")


def test_the_claim_lasts_the_configured_lease_and_a_stall_the_configured_timeout(
    tmp_path: Path, engines: list[Engine]
) -> None:
    server = SmtpServer()
    server.controller.start()
    server.hold()  # DATA is never answered: only the client's timeout ends the attempt
    try:
        config = write_config(
            tmp_path,
            server.port,
            'lease = "1h"\nretry_first_delay = "5m"\nretry_max_delay = "5m"',
            "timeout = 3",
        )
        factory = queue_one(config, engines)
        started = utc_now()

        async def scenario() -> tuple[OutboxMessage, float]:
            loop = asyncio.get_running_loop()
            async with Daemon(config, options=OPTIONS, rng=LongestDelay()):
                await wait_until(lambda: server.handler.data_calls == 1, message="the DATA")
                stalled_at = loop.time()
                during = the_row(factory)  # claimed, being sent
                await wait_until(
                    lambda: the_row(factory).last_error is not None,
                    timeout=15.0,  # the default timeout (30 s) would not end it in time
                    message="the attempt to time out",
                )
                return during, loop.time() - stalled_at

        during, stalled_for = run_async(scenario())
    finally:
        server.release()
        server.controller.stop()
    assert (during.attempts, during.last_error) == (1, None)
    assert during.next_attempt_at >= started + timedelta(hours=1)  # default lease: 10 minutes
    assert stalled_for < 10.0
    row = the_row(factory)
    assert "timed out" in (row.last_error or "")
    assert row.state == "pending"
    assert started + timedelta(minutes=5) < row.next_attempt_at < utc_now() + timedelta(minutes=5)
