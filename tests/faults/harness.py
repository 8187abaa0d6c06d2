"""Fault-test harness: `narrator serve` as a killable process, clients that retry like an MTA,
a storm of signups and votes with SIGKILLs at random moments, and the audit of what survived.

Used by ``tests/faults`` (a bounded run in CI) and ``benchmarks/soak.py`` (the long run by hand).
The audit reads only the database and what was delivered (the outgoing SMTP sink, or the
Maildir outbox's files with ``maildir=True``), and reports:

- **lost**: a mail the receiver accepted (SMTP 250, or delivered into the IMAP mailbox) that is
  not in the inbox, not processed, or not answered; an outbox row never sent or never received;
- **doubled**: a mail applied twice (two votes or log entries for one inbound mail, two replies
  to one mail, a step resolved twice), or an outgoing Message-ID received more often than it
  was attempted (a resend is allowed only after an interrupted attempt, with the same id);
- **loops**: mail from the narrator to one of its own addresses.
"""

from __future__ import annotations

import contextlib
import email
import io
import os
import queue
import random
import signal
import smtplib
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, func, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.cli import main as narrator_cli
from narrator.db import transaction, upgrade
from narrator.models import (
    Game,
    GameLogEntry,
    GameStatus,
    InboxMessage,
    InboxState,
    OutboxMessage,
    OutboxState,
    Player,
    Step,
    Vote,
)
from narrator.service import games as service
from tests.daemon.driver import NARRATOR, PLAYERS, _read, address, compose
from tests.support.dovecot import DovecotAccount
from tests.support.net import free_port
from tests.support.smtp import SmtpCapture

REPO = Path(__file__).resolve().parents[2]
HEADERS = BytesHeaderParser(policy=compat32)

#: Seconds a claimed outbox row stays claimed (``[outbound] lease``; 10 minutes by default).
LEASE = float(os.environ.get("NARRATOR_TEST_OUTBOX_LEASE", "3"))
#: The SMTP submission timeout in seconds (``[outbound.smtp] timeout``; 30 s by default).
SMTP_TIMEOUT = float(os.environ.get("NARRATOR_TEST_SMTP_TIMEOUT", "2"))


def poll(predicate: Callable[[], bool], timeout: float, what: str, interval: float = 0.05) -> None:
    """Poll ``predicate`` until true; raise AssertionError naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)  # polling another process's progress; bounded by the deadline


# --- the daemon as a process -----------------------------------------------------------------


def write_config(
    workdir: Path,
    db_url: str,
    *,
    smtp_port: int | None,
    outbound_port: int | None,
    imap: DovecotAccount | None = None,
    admins: tuple[str, ...] = (),
) -> Path:
    """A narrator.toml for a fault run: no reply limits, SMTP receiver and/or IMAP poller,
    outgoing mail by SMTP to ``outbound_port`` (else the Maildir ``outbox``), the outbox's
    retries, lease and SMTP timeout shortened."""
    lines = ["[narrator]", f'database = "{db_url}"', f'address = "{NARRATOR}"']
    lines += ["[web]", "port = 0"]  # the game pages on any free port
    if smtp_port is None:
        lines += ["[inbound.smtp]", "enabled = false"]
    else:
        lines += ["[inbound.smtp]", f"port = {smtp_port}"]
    if imap is not None:
        server = imap.server
        lines += [
            "[inbound.imap]",
            "enabled = true",
            f'host = "{server.host}"',
            f"port = {server.imap_port}",
            "ssl = false",
            f'username = "{imap.username}"',
        ]
    # The outbox's timings, shortened: retries within a second, a crash mid-send costs LEASE.
    lines += [
        "[outbound]",
        "retry_first_delay = 0.2",
        "retry_max_delay = 1",
        "max_attempts = 1000",
        f"lease = {LEASE}",
    ]
    if outbound_port is None:
        lines += ['maildir = "outbox"']
    else:
        lines += [
            'mode = "smtp"',
            "[outbound.smtp]",
            'host = "127.0.0.1"',
            f"port = {outbound_port}",
            "starttls = false",
            'username = ""',
            f"timeout = {SMTP_TIMEOUT}",
        ]
    if admins:
        lines += ["[admins]", "emails = [" + ", ".join(f'"{a}"' for a in admins) + "]"]
    lines += [
        "[security]",
        "replies_per_hour = 0",
        "replies_per_day = 0",
        "max_games_per_address = 0",
    ]
    path = workdir / "narrator.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class ServeProcess:
    """`narrator serve` (with the test timings of ``tests.faults.serve_fast``) as a process.

    ``module`` is what ``python -m`` runs (``narrator`` for the real command and its timings);
    ``args`` are added after ``serve --config FILE``.  Each start writes its stderr to its own
    log file; :meth:`log` joins them all.
    """

    def __init__(
        self,
        config: Path,
        env: dict[str, str] | None = None,
        *,
        module: str = "tests.faults.serve_fast",
        args: tuple[str, ...] = (),
    ) -> None:
        self.config = config
        self.module = module
        self.args = args
        self.workdir = config.parent
        self.env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0
        self._logs: list[Path] = []

    @property
    def restarts(self) -> int:
        """How often the daemon was started again after the first start."""
        return max(self.starts - 1, 0)

    def start(self) -> None:
        """Start the daemon (returns at once; see :meth:`wait_serving`)."""
        assert self.process is None or self.process.poll() is not None, "already running"
        self.starts += 1
        log = self.workdir / f"serve-{self.module}-{self.starts}.log"
        self._logs.append(log)
        with log.open("wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", self.module, "serve", "--config", str(self.config),
                 *self.args],
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )  # fmt: skip

    def current_log(self) -> str:
        """The log of the running (or last) start."""
        return self._logs[-1].read_text(errors="replace") if self._logs else ""

    def log(self) -> str:
        """Every start's log, in order."""
        return "".join(
            f"--- start {n} ---\n{path.read_text(errors='replace')}"
            for n, path in enumerate(self._logs, 1)
        )

    def is_serving(self) -> bool:
        """Whether the current start has said it serves (receivers, worker, scheduler up)."""
        return "narrator serving as" in self.current_log()

    def wait_serving(self, timeout: float = 30.0) -> None:
        """Wait until the daemon serves; fail with its log if it exits first."""

        def ready() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                raise AssertionError(f"narrator serve exited:\n{self.current_log()}")
            return self.is_serving()

        poll(ready, timeout, "narrator serve to start")

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as in a power cut or the OOM killer."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.kills += 1

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait; return the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"narrator serve did not stop on SIGTERM:\n{self.log()}") from None

    def close(self) -> None:
        """Kill the process if it still runs (test clean-up)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# --- clients that retry, like an MTA ----------------------------------------------------------


class Refused(Exception):
    """The receiver refused a mail for good (5xx): a test failure, never retried."""


def smtp_deliver(
    port: int, sender: str, raw: bytes, *, give_up_after: float = 120.0, rng: random.Random
) -> int:
    """Send ``raw`` to the narrator until a 250; return the attempts it took.

    Anything but a 250 to DATA (refused or dropped connection, timeout, 4xx) means the mail was
    not accepted and is tried again, as an MTA keeps it in its queue; 5xx raises :class:`Refused`.
    """
    give_up = time.monotonic() + give_up_after
    attempts = 0
    while True:
        attempts += 1
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=15) as client:
                client.sendmail(sender, [NARRATOR], raw)
            return attempts
        except (smtplib.SMTPResponseException, smtplib.SMTPRecipientsRefused) as error:
            code = getattr(error, "smtp_code", None)
            if code is None:  # SMTPRecipientsRefused: a code per recipient
                code = next(iter(error.recipients.values()))[0]  # type: ignore[attr-defined]
            if code >= 500:
                raise Refused(f"{code}: {error}") from error
        except (OSError, smtplib.SMTPException):
            pass
        if time.monotonic() > give_up:
            raise AssertionError(f"mail from {sender} not accepted after {attempts} attempts")
        time.sleep(rng.uniform(0.05, 0.25))  # an MTA's retry interval (much shortened)


# --- the storm --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mail:
    """One inbound mail of the storm."""

    message_id: str
    kind: str  # "signup" or "vote"
    game: str
    sender: str
    raw: bytes
    via: str  # "smtp" or "imap"


@dataclass
class Figures:
    """What a run did and what the audit found."""

    mails: int = 0
    smtp: int = 0
    imap: int = 0
    client_retries: int = 0
    kills: int = 0
    restarts: int = 0
    games: int = 0
    steps: int = 0
    deadline_steps: int = 0
    replies: int = 0
    outgoing: int = 0
    resent: int = 0
    lost: int = 0
    doubled: int = 0
    loops: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        """The figures on one line."""
        return (
            f"mails sent {self.mails} (SMTP {self.smtp}, IMAP {self.imap}; client retries "
            f"{self.client_retries}), kills {self.kills}, restarts {self.restarts}, games "
            f"{self.games}, steps {self.steps} ({self.deadline_steps} closed at their deadline), "
            f"replies {self.replies}, outgoing mails {self.outgoing} (resent after an interrupted "
            f"send {self.resent}: duplicate rate {self.duplicate_rate:.2%}), lost {self.lost}, "
            f"doubled {self.doubled}, loops {self.loops}, {self.seconds:.0f}s"
        )

    @property
    def duplicate_rate(self) -> float:
        """Outgoing mails the SMTP server received twice, per outgoing mail."""
        return self.resent / self.outgoing if self.outgoing else 0.0


def read_engine(db_url: str) -> Engine:
    """An engine for watching the database from outside (plain deferred transactions, so the
    test's reads do not take SQLite's write lock the way the narrator's transactions do)."""
    engine = create_engine(db_url)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _busy(dbapi_connection, _record):  # type: ignore[no-untyped-def]
            dbapi_connection.execute("PRAGMA busy_timeout = 10000")

    return engine


def cli(config: Path, *args: str) -> None:
    """Run a `narrator` command in this process (another process for the daemon's database)."""
    with contextlib.redirect_stdout(io.StringIO()):
        status = narrator_cli([*args, "--config", str(config)])
    assert status == 0, f"narrator {' '.join(args)} failed"


class Storm:
    """Games played by bots over SMTP (and IMAP), with the daemon SIGKILLed at random moments.

    ``games_at_once`` games run side by side; new ones are created until ``kills`` kills were
    made. Each kill comes a random time (``gap`` seconds, uniform) after the daemon said it
    serves; every ``start_kill_every``-th kill comes during its start instead (migration,
    scheduler set-up, first passes), so that a short run has some too. The times and the play
    are drawn from ``seed``.
    """

    def __init__(
        self,
        workdir: Path,
        *,
        seed: int,
        kills: int,
        games_at_once: int = 3,
        gap: tuple[float, float] = (0.2, 1.5),
        start_kill_every: int = 4,
        speed: str = "3s",
        imap: DovecotAccount | None = None,
        imap_share: float = 0.3,
        maildir: bool = False,
        senders: int = 4,
        timeout: float = 600.0,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.workdir = workdir
        self.seed = seed
        self.rng = random.Random(seed)
        self.target_kills = kills
        self.games_at_once = games_at_once
        self.gap = gap
        self.start_kill_every = start_kill_every
        self.speed = speed
        self.imap = imap
        self.imap_share = imap_share if imap is not None else 0.0
        self.maildir = maildir
        self.senders = senders
        self.timeout = timeout
        self.progress = progress or (lambda _line: None)
        self.db_url = f"sqlite:///{workdir / 'narrator.db'}"
        self.accepted: dict[str, Mail] = {}
        self.retries = 0
        self._lock = threading.Lock()
        self._queue: queue.Queue[Mail | None] = queue.Queue()
        self._failures: list[BaseException] = []
        self._killing_done = threading.Event()
        self._stop = threading.Event()

    # -- running --------------------------------------------------------------------------

    def run(self) -> Figures:
        """Play, kill, restart; then let the games end, stop cleanly and audit."""
        started = time.monotonic()
        upgrade(self.db_url)
        with SmtpCapture() as sink:
            port = free_port()
            outbound_port = None if self.maildir else sink.port
            config = write_config(
                self.workdir,
                self.db_url,
                smtp_port=port,
                outbound_port=outbound_port,
                imap=self.imap,
            )
            env = {"NARRATOR_IMAP_PASSWORD": self.imap.password} if self.imap else {}
            daemon = ServeProcess(config, env)
            engine = read_engine(self.db_url)
            factory = sessionmaker(engine, expire_on_commit=False)
            workers = [
                threading.Thread(target=self._send_loop, args=(port, n), daemon=True)
                for n in range(self.senders)
            ]
            killer = threading.Thread(target=self._kill_loop, args=(daemon,), daemon=True)
            try:
                daemon.start()
                daemon.wait_serving()
                for worker in workers:
                    worker.start()
                killer.start()
                self._play(factory, config, started)
                for _ in workers:
                    self._queue.put(None)
                for worker in workers:
                    worker.join(timeout=self.timeout)
                killer.join(timeout=60)
                self._raise_failures(daemon)
                if daemon.process is None or daemon.process.poll() is not None:
                    daemon.start()
                daemon.wait_serving()
                self._wait_settled(factory, started)
                status = daemon.stop()
                assert status == 0, f"narrator serve exited {status} on SIGTERM:\n{daemon.log()}"
                figures = audit(factory, self.accepted, self._delivered(sink))
            except BaseException:
                self._stop.set()
                self._killing_done.set()
                print(f"--- daemon log (tail) ---\n{daemon.log()[-20000:]}", file=sys.stderr)
                raise
            finally:
                self._stop.set()
                daemon.close()
                engine.dispose()
        figures.kills = daemon.kills
        figures.restarts = daemon.restarts
        figures.client_retries = self.retries
        figures.seconds = time.monotonic() - started
        log = daemon.log()
        if "Traceback" in log:
            figures.problems.append("a traceback in the daemon's log (see the log)")
        return figures

    def _raise_failures(self, daemon: ServeProcess) -> None:
        if self._failures:
            raise AssertionError(f"{self._failures[0]!r}\n{daemon.log()[-20000:]}")

    def _kill_loop(self, daemon: ServeProcess) -> None:
        try:
            while daemon.kills < self.target_kills and not self._stop.is_set():
                if daemon.kills % self.start_kill_every == self.start_kill_every - 1:
                    # During the start: migration, scheduler set-up, first passes.
                    self._stop.wait(self.rng.uniform(0.05, 1.0))
                else:
                    daemon.wait_serving()
                    self._stop.wait(self.rng.uniform(*self.gap))
                if self._stop.is_set():
                    break
                daemon.kill()
                daemon.start()
                if daemon.kills % 5 == 0:
                    self.progress(f"{daemon.kills} kills, {len(self.accepted)} mails accepted")
        except BaseException as error:
            self._failures.append(error)
        finally:
            self._killing_done.set()

    def _send_loop(self, port: int, number: int) -> None:
        rng = random.Random(f"{self.seed}/{number}")
        try:
            while (mail := self._queue.get()) is not None:
                if mail.via == "imap":
                    assert self.imap is not None
                    self.imap.deliver(mail.raw, mail.sender)
                    attempts = 1
                else:
                    attempts = smtp_deliver(port, mail.sender, mail.raw, rng=rng)
                with self._lock:
                    self.accepted[mail.message_id] = mail
                    self.retries += attempts - 1
        except BaseException as error:
            self._failures.append(error)
            self._stop.set()

    def _submit(self, kind: str, game: str, sender: str, subject: str, body: str, key: str) -> None:
        message_id = f"{key}.{self.seed}@spelers.example.org"
        via = "imap" if kind == "vote" and self.rng.random() < self.imap_share else "smtp"
        raw = compose(sender, subject, body, message_id)
        self._queue.put(Mail(message_id, kind, game, sender, raw, via))

    def _play(self, factory: sessionmaker[Session], config: Path, started: float) -> None:
        """The bots: create games, sign up, start, vote; until the kills are done and every
        game has ended."""
        games: dict[str, dict[str, int | bool]] = {}
        created = 0
        while True:
            if self._failures:
                return
            if time.monotonic() - started > self.timeout:
                raise AssertionError(f"the storm did not end within {self.timeout}s: {games}")
            open_games = [g for g, s in games.items() if not s["ended"]]
            if not self._killing_done.is_set() and len(open_games) < self.games_at_once:
                created += 1
                name = f"K{created}"
                cli(config, "game", "create", name, "--speed", self.speed, "--close-early")
                games[name] = {"signed": False, "started": False, "handled": 0, "ended": False}
                continue
            if not open_games and self._killing_done.is_set():
                return
            for name in open_games:
                self._bot(factory, config, name, games[name])
            time.sleep(0.05)  # polling the database for the games' progress

    def _bot(
        self, factory: sessionmaker[Session], config: Path, name: str, state: dict[str, int | bool]
    ) -> None:
        if not state["signed"]:
            for player, gender in PLAYERS:
                sender = address(player)
                self._submit(
                    "signup", name, sender, name, f"{player}, {gender}", f"su-{name}-{player}"
                )
            state["signed"] = True
            return
        if not state["started"]:
            with transaction(factory) as session:
                game_id = session.scalar(select(Game.id).where(Game.name == name))
                count = session.scalar(
                    select(func.count(Player.id)).where(Player.game_id == game_id)
                )
            if count == len(PLAYERS):
                cli(config, "game", "start", name, "--seed", str(self.rng.randrange(1 << 30)))
                state["started"] = True
            return
        view = _read(factory, name)
        if view["status"] == GameStatus.ENDED.value:
            state["ended"] = True
            return
        number = int(view["number"])  # type: ignore[call-overload]
        if view["status"] != GameStatus.RUNNING.value or number <= int(state["handled"]):
            return
        state["handled"] = number
        ballots = list(view["ballots"])  # type: ignore[call-overload]
        # Now and then one player sleeps in: the step then ends at its deadline. Once the kills
        # are done nobody does: the games only have to end (their deadlines met the kills).
        if ballots and not self._killing_done.is_set() and self.rng.random() < 0.4:
            ballots.pop(self.rng.randrange(len(ballots)))
        for player, sender, body in ballots:
            self._submit(
                "vote", name, sender, f"Re: {name}", body, f"vote-{name}-{number}-{player}"
            )

    def _delivered(self, sink: SmtpCapture) -> list[bytes]:
        """Every outgoing mail delivered: what the SMTP sink received, or the Maildir's files
        (``new/`` and ``cur/``; ``tmp/`` holds no finished delivery)."""
        if not self.maildir:
            return [m.raw for m in sink.received]
        outbox = self.workdir / "outbox"
        return [f.read_bytes() for d in ("new", "cur") for f in sorted((outbox / d).glob("*"))]

    def _wait_settled(self, factory: sessionmaker[Session], started: float) -> None:
        """Wait until every accepted mail is processed and every queued mail sent."""
        accepted = set(self.accepted)

        def settled() -> bool:
            with transaction(factory) as session:
                inbox = session.execute(select(InboxMessage.message_id, InboxMessage.state)).all()
                pending = session.scalar(
                    select(func.count(OutboxMessage.id)).where(
                        OutboxMessage.state == OutboxState.PENDING.value
                    )
                )
            stored = {m for m, _ in inbox}
            new = [m for m, s in inbox if s == InboxState.NEW.value]
            return accepted <= stored and not new and pending == 0

        remaining = max(self.timeout - (time.monotonic() - started), 60.0)
        poll(settled, remaining, "every accepted mail processed and every reply sent")


# --- the audit --------------------------------------------------------------------------------


def _header(raw: bytes, name: str) -> str:
    value = HEADERS.parsebytes(raw, headersonly=True).get(name)
    return "" if value is None else " ".join(str(value).split()).strip("<>")


def audit(
    factory: sessionmaker[Session], accepted: dict[str, Mail], received: list[bytes]
) -> Figures:
    """Check the database and the delivered mail against what the receivers accepted."""
    figures = Figures(mails=len(accepted))
    figures.smtp = sum(1 for m in accepted.values() if m.via == "smtp")
    figures.imap = figures.mails - figures.smtp
    problems = figures.problems
    lost = doubled = 0
    with transaction(factory) as session:
        inbox = {row.message_id: row for row in session.scalars(select(InboxMessage))}
        outbox = list(session.scalars(select(OutboxMessage)))
        votes_by_inbox = Counter(
            session.scalars(select(Vote.inbox_id).where(Vote.inbox_id.is_not(None)))
        )
        games = list(session.scalars(select(Game).order_by(Game.id)))
        # -- every accepted mail is in the inbox once, processed -------------------------
        for message_id in accepted:
            row = inbox.get(message_id)
            if row is None:
                lost += 1
                problems.append(f"accepted but not in the inbox: {message_id}")
            elif row.state != InboxState.DONE.value:
                lost += 1
                problems.append(f"inbox {row.id} ({message_id}) is {row.state}: {row.error}")
        for inbox_id, count in votes_by_inbox.items():
            if count > 1:
                doubled += count - 1
                problems.append(f"inbox {inbox_id} applied as {count} votes")
        # -- one reply per accepted mail, sent; resent only after an interrupted send ----
        replies: dict[str, list[OutboxMessage]] = defaultdict(list)
        for row in outbox:
            in_reply_to = _header(row.raw, "In-Reply-To")
            if in_reply_to:
                replies[in_reply_to].append(row)
            if row.recipient.lower() == NARRATOR:
                figures.loops += 1
                problems.append(f"outbox {row.id} is addressed to the narrator itself")
            if row.state != OutboxState.SENT.value:
                lost += 1
                problems.append(f"outbox {row.id} ({row.kind}) is {row.state}: {row.last_error}")
        for message_id, mail in accepted.items():
            answers = replies.get(message_id, [])
            if not answers:
                lost += 1
                problems.append(f"no reply to {message_id} ({mail.kind})")
            elif len(answers) > 1:
                doubled += len(answers) - 1
                problems.append(f"{len(answers)} replies to {message_id}")
        figures.replies = sum(len(replies.get(m, [])) for m in accepted)
        copies = Counter(_header(raw, "Message-ID") for raw in received)
        figures.outgoing = len(outbox)
        for row in outbox:
            message_id = row.message_id.strip("<>")
            got = copies.pop(message_id, 0)
            if row.state == OutboxState.SENT.value and got == 0:
                lost += 1
                problems.append(f"outbox {row.id} marked sent but never received")
            if got > max(row.attempts, 1):
                doubled += got - row.attempts
                problems.append(
                    f"outbox {row.id} received {got} times in {row.attempts} attempt(s)"
                )
            figures.resent += max(got - 1, 0)
        for message_id in copies:
            problems.append(f"received a mail that is not in the outbox: {message_id}")
        # -- the games: signups and votes logged once, steps resolved once, replayable ---
        signups = Counter(m.game for m in accepted.values() if m.kind == "signup")
        figures.games = len(games)
        for game in games:
            entries = list(
                session.scalars(
                    select(GameLogEntry)
                    .where(GameLogEntry.game_id == game.id)
                    .order_by(GameLogEntry.seq)
                )
            )
            kinds = Counter(entry.kind for entry in entries)
            if kinds["signup"] != signups[game.name]:
                doubled += max(kinds["signup"] - signups[game.name], 0)
                lost += max(signups[game.name] - kinds["signup"], 0)
                problems.append(
                    f"{game.name}: {kinds['signup']} signups logged for {signups[game.name]} mails"
                )
            votes = list(
                session.scalars(select(Vote).where(Vote.game_id == game.id).order_by(Vote.id))
            )
            logged_votes = [
                (e.payload["player"], e.payload["targets"]) for e in entries if e.kind == "vote"
            ]
            if logged_votes != [(_player_name(session, v.player_id), v.targets) for v in votes]:
                doubled += abs(len(logged_votes) - len(votes))
                problems.append(f"{game.name}: the log's votes differ from the votes table")
            steps = list(
                session.scalars(select(Step).where(Step.game_id == game.id).order_by(Step.number))
            )
            if [s.number for s in steps] != list(range(1, game.step_number + 1)):
                problems.append(f"{game.name}: steps {[s.number for s in steps]}")
            resolved = [s for s in steps if s.resolved_at is not None]
            resolves = [e.payload["step"] for e in entries if e.kind == "resolve"]
            if resolves != [s.step for s in resolved]:
                doubled += max(len(resolves) - len(resolved), 0)
                problems.append(
                    f"{game.name}: resolutions {resolves} vs steps {[s.step for s in resolved]}"
                )
            if game.status == GameStatus.ENDED.value and len(resolved) != len(steps):
                problems.append(f"{game.name}: ended with unresolved steps")
            figures.steps += len(resolved)
            figures.deadline_steps += sum(
                1 for s in resolved if s.deadline is not None and s.resolved_at >= s.deadline
            )
            if game.state is not None:
                replayed = service.ruleset_of(game).dump_state(service.replay(game, entries))
                if replayed != game.state:
                    problems.append(f"{game.name}: the state differs from a replay of its log")
    figures.lost = lost
    figures.doubled = doubled
    return figures


def _player_name(session: Session, player_id: int) -> str:
    player = session.get(Player, player_id)
    assert player is not None
    return player.name


@contextlib.contextmanager
def private_dovecot() -> Iterator[DovecotAccount | None]:
    """A private Dovecot with one account, or None when Dovecot is not installed."""
    from tests.support.dovecot import DovecotServer, find_dovecot

    binary = find_dovecot()
    if binary is None:
        yield None
        return
    with DovecotServer(binary) as server:
        yield server.add_user()


def message_ids(raws: list[bytes]) -> Counter[str]:
    """How often each Message-ID occurs among raw mails."""
    return Counter(_header(raw, "Message-ID") for raw in raws)


def parse(raw: bytes) -> email.message.Message:
    """A received mail, parsed (compat32)."""
    return email.message_from_bytes(raw, policy=compat32)
