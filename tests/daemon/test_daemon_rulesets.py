"""End to end, every ruleset with a story pack: one daemon (real SQLite file, its SMTP receiver,
mail out to a real SMTP server) plays whole games by mail to the winners' mail, one ruleset at a
time and all of them at once, and every player's mailbox is checked (issues 14, 15, 16).

A ruleset joins these tests with one line in ``PLANS`` (how: docs/dev/adding-a-ruleset.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import smtplib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import func, select

from narrator.cli import main
from narrator.config import load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction
from narrator.models import Game, InboxMessage, OutboxMessage, Player
from rules.core.model import ActionChoice
from tests.daemon.driver import (
    NARRATOR,
    ClockHand,
    Plan,
    Send,
    SmtpOutbox,
    check_mailboxes,
    check_outbox,
    delivered,
    play,
    sign_up,
)
from tests.support.aio import run_async, wait_until
from tests.support.clock import MovableClock
from tests.support.net import free_port
from tests.support.smtp import SmtpCapture

OPTIONS = DaemonOptions(inbox_interval=5.0, scheduler_poll=0.5, outbox_poll=5.0)


def power_word(action: ActionChoice) -> tuple[str, ...]:
    """Lupus: a Negromante's vote names one of the powers left (docs/rules/lupus.md)."""
    powers = action.extra.get("powers")
    return (str(powers[0]),) if isinstance(powers, list) and powers else ()


ITALIANS = (
    ("Lea", "vrouw"),
    ("Vera", "vrouw"),
    ("Carlo", "man"),
    ("Dina", "vrouw"),
    ("Ezio", "man"),
    ("Ugo", "man"),
)

RUSSIANS = (
    ("Анна", "vrouw"),
    ("Борис", "man"),
    ("Вера", "vrouw"),
    ("Глеб", "man"),
    ("Дарья", "vrouw"),
    ("Егор", "man"),
    ("Жанна", "vrouw"),
)

#: One game per ruleset and pack: ruleset, language, name (its mail subject), players, seed; the
#: English Wakkerdam game is told in another theme (its narrator is a harbour master).
PLANS = [
    Plan("lupus", "it", "Borgo", ITALIANS, seed=3, domain="borgo.example.org", extra=power_word),
    Plan("vampiri", "it", "Notte", ITALIANS, seed=1, domain="notte.example.org"),
    Plan(
        "example",
        "it",
        "Esempio",
        ITALIANS[:5],
        seed=1,
        domain="esempio.example.org",
    ),
    Plan("mafia", "ru", "Primorsk", RUSSIANS, seed=1, domain="primorsk.example.org"),
    Plan("wakkerdam", "nl", "WW1", seed=9),
    Plan("wakkerdam", "en", "Harbour", seed=9, theme="haven", domain="harbour.example.org"),
]


@pytest.fixture
def sink() -> Iterator[SmtpCapture]:
    """The SMTP server the daemon submits its mail to: the players' mailboxes."""
    with SmtpCapture() as capture:
        yield capture


def write_config(tmp_path: Path, db_url: str, sink: SmtpCapture) -> Path:
    path = tmp_path / "narrator.toml"
    path.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "{db_url}"\naddress = "{NARRATOR}"\n'
        f"[inbound.smtp]\nport = {free_port()}\n"
        f'[outbound]\nmode = "smtp"\n'
        f'[outbound.smtp]\nhost = "{sink.host}"\nport = {sink.port}\nstarttls = false\n'
        f'username = ""\n',
        encoding="utf-8",
    )
    return path


def cli(config_file: Path, *args: str) -> None:
    status = main([*args, "--config", str(config_file)])
    assert status == 0, f"narrator {' '.join(args)} failed"


def smtp_sender(daemon: Daemon, players: ThreadPoolExecutor) -> Send:
    """Players mail the daemon's SMTP receiver, from threads of their own: the receiver in the
    same loop stores each mail in the default executor, which the players' blocking clients
    must not fill (six games signing up at once would wait on themselves)."""

    async def send(sender: str, raw: bytes) -> None:
        def deliver() -> None:
            with smtplib.SMTP("127.0.0.1", daemon.smtp_port, timeout=10) as client:
                client.sendmail(sender, [NARRATOR], raw)

        await asyncio.get_running_loop().run_in_executor(players, deliver)

    return send


async def play_games(
    config_file: Path, sink: SmtpCapture, plans: list[Plan], *, speed: str, skip_first: bool
) -> None:
    """Create every game, sign its players up and start it, all by mail into one daemon; play
    the games at once to their ends; check the whole outbox and every game's mailboxes.

    With ``skip_first`` one bot of each game misses the first step, which ends at its deadline
    after his reminder, when the clock hand moves the daemon's clock there (once every game
    waits on its deadline alone); every other step closes early, when all have voted."""
    config = load_config(config_file)
    engine = make_engine(config.database_url)
    factory = session_factory(engine)
    outbox = SmtpOutbox(sink)
    players = ThreadPoolExecutor(max_workers=len(plans) + 1, thread_name_prefix="players")
    try:
        fired: list[tuple[str, int, bool]] = []  # the scheduler's jobs: kind, game, did
        options = dataclasses.replace(OPTIONS, on_fired=lambda *job: fired.append(job))
        clock = MovableClock()  # the daemon's clock: the test moves it to the first deadlines
        async with Daemon(config, options=options, clock=clock) as daemon:
            send = smtp_sender(daemon, players)
            for plan in plans:
                await asyncio.to_thread(cli, config_file, *plan.create(speed))
            # The signups of the games arrive interleaved, as a real inbox gets them.
            await asyncio.gather(*(sign_up(send, plan) for plan in plans))

            def signed_up() -> dict[str, int]:
                with transaction(factory) as session:
                    rows = session.execute(
                        select(Game.name, func.count(Player.id))
                        .join(Player, Player.game_id == Game.id)
                        .group_by(Game.name)
                    ).all()
                    return {name: count for name, count in rows}

            everybody = {plan.name: len(plan.players) for plan in plans}
            await wait_until(lambda: signed_up() == everybody, timeout=20, message="the signups")
            for plan in plans:
                await asyncio.to_thread(
                    cli, config_file, "game", "start", plan.name, "--seed", str(plan.seed)
                )
            schedulers = [daemon.scheduler] if daemon.scheduler else []
            hand = ClockHand(clock, factory, lambda: schedulers, games=len(plans))
            transcripts = await asyncio.gather(
                *(
                    play(factory, plan, send, outbox, timeout=90, skip_first=skip_first, hand=hand)
                    for plan in plans
                )
            )
            await delivered(factory, outbox)
            ended = [game for kind, game, did in fired if kind == "deadline" and did]
            # Only the skipped steps end at their deadline, once in each game: no bot missed one.
            assert len(ended) == len(set(ended)) == (len(plans) if skip_first else 0), fired
        check_outbox(factory, outbox)
        for transcript in transcripts:
            check_mailboxes(factory, outbox, transcript)
        with transaction(factory) as session:
            inbox = session.scalars(select(InboxMessage).order_by(InboxMessage.id)).all()
            assert [(r.id, r.state, r.attempts) for r in inbox if r.state != "done"] == []
            # The games' mails came in interleaved (each game's players write from its domain).
            domains = [(r.envelope_from or "").rpartition("@")[2] for r in inbox]
            turns = sum(a != b for a, b in itertools.pairwise(domains))
            assert turns >= 2 * (len(plans) - 1), domains
            # Every mail went out as a mail of one of the games (each checked in its thread).
            games = session.scalars(select(OutboxMessage.game_id).distinct()).all()
            assert sorted(games) == sorted(session.scalars(select(Game.id)).all())
    finally:
        players.shutdown(wait=True)
        engine.dispose()


@pytest.mark.parametrize(
    "plan",
    [p for p in PLANS if p.name != "WW1"],  # test_daemon_e2e.py plays WW1 alone
    ids=lambda p: f"{p.ruleset}-{p.lang}",
)
def test_a_whole_game_of_each_ruleset_by_smtp(
    plan: Plan,
    sqlite_url: str,
    tmp_path: Path,
    sink: SmtpCapture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every step closes early, when every bot has voted (a step of a minute never ends by the
    clock; the reminder and the deadline are the next test's)."""
    config_file = write_config(tmp_path, sqlite_url, sink)
    run_async(play_games(config_file, sink, [plan], speed="1m", skip_first=False), timeout=120)


def test_games_of_every_ruleset_at_once_in_one_daemon(
    sqlite_url: str, tmp_path: Path, sink: SmtpCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game of each ruleset in one daemon, their mails interleaved: each bot who skips his
    game's first step gets his reminder in his game's language, and that step ends by the clock
    (the daemon's, moved by the test past steps of an hour)."""
    config_file = write_config(tmp_path, sqlite_url, sink)
    run_async(play_games(config_file, sink, PLANS, speed="1h", skip_first=True), timeout=150)
