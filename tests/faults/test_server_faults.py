"""Server faults around a running `narrator serve`: the IMAP server gone for a while, the
outgoing SMTP server answering 4xx, 5xx or not at all, the SQLite database locked by another
process, a PostgreSQL restart. The daemon keeps running, retries, logs it, and loses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import mailbox
import os
import random
import re
import shutil
import smtplib
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from narrator.db import transaction, upgrade
from narrator.models import InboxMessage, OutboxMessage, OutboxState
from tests.daemon.driver import NARRATOR, PLAYERS, address, compose
from tests.faults.harness import (
    SMTP_TIMEOUT,
    ServeProcess,
    cli,
    message_ids,
    parse,
    poll,
    read_engine,
    smtp_deliver,
    write_config,
)
from tests.faults.serve_fast import BUSY_ENV
from tests.support.dovecot import DovecotServer
from tests.support.net import free_port
from tests.support.smtp import CaptureHandler, ReceivedMail, SmtpCapture

GAME = "WW1"
ADMIN = "beheer@example.org"


class FaultyHandler(CaptureHandler):
    """The capture sink, plus: recipients refused at RCPT (``refused``: address -> reply), the
    next ``burst`` RCPT commands refused whoever they name (``burst_reply``: a relay in
    trouble), and ``hang`` DATA commands answered only after the client's timeout has passed."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: dict[str, str] = {}
        self.burst = 0
        self.burst_reply = "554 5.3.0 system trouble"
        self.hang = 0

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        """Refuse the next ``burst`` recipients and those in ``refused``, accept the rest."""
        if self.burst > 0:
            self.burst -= 1
            return self.burst_reply
        if address in self.refused:
            return self.refused[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Hang (then accept, too late: the client has given up) or answer as the capture."""
        if self.hang > 0:
            self.hang -= 1
            # A server that stalls: the narrator's client times out long before this answer.
            await asyncio.sleep(SMTP_TIMEOUT + 1.0)
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def sink() -> Iterator[SmtpCapture]:
    """The outgoing SMTP server, with faults on demand (``sink.handler``: a FaultyHandler)."""
    capture = SmtpCapture()
    capture.handler = FaultyHandler()
    capture._controller.handler = capture.handler
    with capture:
        yield capture


class Narrator:
    """A running daemon, a game in signup, and helpers to mail it and look at the result."""

    def __init__(self, daemon: ServeProcess, db_url: str, sink: SmtpCapture, port: int | None):
        self.daemon = daemon
        self.sink = sink
        self.port = port
        self.engine = read_engine(db_url)
        self.factory = sessionmaker(self.engine, expire_on_commit=False)
        self.rng = random.Random(6)

    def signup(self, n: int, *, tag: str = "") -> str:
        """Player n signs up by SMTP (retrying until accepted); returns the Message-ID."""
        assert self.port is not None
        name, gender = PLAYERS[n]
        message_id = f"su{tag}-{name}@spelers.example.org"
        raw = compose(address(name), GAME, f"{name}, {gender}", message_id)
        smtp_deliver(self.port, address(name), raw, rng=self.rng, give_up_after=60)
        return message_id

    def replies_to(self, message_id: str) -> list[ReceivedMail]:
        """The received mails answering `message_id`."""
        return [
            m
            for m in self.sink.received
            if str(parse(m.raw)["In-Reply-To"]).strip("<>") == message_id
        ]

    def wait_reply(self, message_id: str, timeout: float = 30.0) -> None:
        """Wait until the answer to `message_id` has been received."""
        try:
            poll(lambda: bool(self.replies_to(message_id)), timeout, f"the reply to {message_id}")
        except AssertionError as error:
            try:
                states = f"inbox {self.inbox_states()}; outbox " + str(
                    [(row.id, row.state, row.attempts, row.last_error) for row in self.outbox()]
                )
            except Exception as failure:  # the database itself may be the fault
                states = f"(database unreadable: {failure})"
            raise AssertionError(f"{error}\n{states}\n{self.daemon.log()[-30000:]}") from None

    def wait_all_marked_sent(self, timeout: float = 30.0) -> None:
        """Wait until every outbox row is marked sent: the SMTP server has a mail a moment
        before the daemon marks its row (a reply seen is not yet a row marked)."""
        poll(
            lambda: all(row.state == OutboxState.SENT.value for row in self.outbox()),
            timeout,
            "every outbox row marked sent",
            interval=0.02,
        )

    def outbox(self) -> list[OutboxMessage]:
        """Every outbox row."""
        with transaction(self.factory) as session:
            return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))

    def inbox_states(self) -> dict[str, str]:
        """Message-ID -> state of every inbox row."""
        with transaction(self.factory) as session:
            rows = session.execute(select(InboxMessage.message_id, InboxMessage.state)).all()
        return {message_id: state for message_id, state in rows}

    def assert_alive(self) -> None:
        """The daemon process still runs."""
        assert self.daemon.process is not None
        assert self.daemon.process.poll() is None, f"narrator serve died:\n{self.daemon.log()}"

    def stop(self) -> str:
        """Stop with SIGTERM (it must exit 0); return the whole log, which has no traceback
        (a database outage is logged one line per retry; a traceback is a bug)."""
        status = self.daemon.stop()
        log = self.daemon.log()
        assert status == 0, log
        assert "Traceback" not in log, log
        return log


@pytest.fixture
def start_narrator(tmp_path: Path, sink: SmtpCapture) -> Iterator[Callable[..., Narrator]]:
    """Start `narrator serve` on a database (default: a SQLite file) with the game WW1 in
    signup; outgoing mail goes to `sink`."""
    started: list[Narrator] = []

    def start(
        db_url: str | None = None,
        *,
        smtp: bool = True,
        imap: object = None,
        env: dict[str, str] | None = None,
    ) -> Narrator:
        db_url = db_url or f"sqlite:///{tmp_path / 'narrator.db'}"
        upgrade(db_url)
        port = free_port() if smtp else None
        config = write_config(
            tmp_path,
            db_url,
            smtp_port=port,
            outbound_port=sink.port,
            imap=imap,  # type: ignore[arg-type]
            admins=(ADMIN,),
        )
        cli(config, "game", "create", GAME, "--speed", "1h")
        daemon = ServeProcess(config, env)
        narrator = Narrator(daemon, db_url, sink, port)
        started.append(narrator)
        daemon.start()
        daemon.wait_serving()
        return narrator

    yield start
    for narrator in started:
        narrator.daemon.close()
        narrator.engine.dispose()


# --- IMAP -------------------------------------------------------------------------------------


def _drop_into_maildir(server: DovecotServer, username: str, raw: bytes) -> None:
    """Put a mail into the user's Maildir while Dovecot is down, as a local delivery agent
    would; Dovecot finds it when it is back."""
    root = server.root / "mail" / username
    box = mailbox.Maildir(root, create=False)
    key = box.add(raw)
    owner = root.stat()
    for path in (root / "new" / key, root / "new"):
        os.chown(path, owner.st_uid, owner.st_gid)


@pytest.mark.dovecot
def test_imap_server_down_for_a_while_then_back(
    dovecot_factory: Callable[..., DovecotServer], start_narrator: Callable[..., Narrator]
) -> None:
    server = dovecot_factory()
    account = server.add_user()
    narrator = start_narrator(
        smtp=False, imap=account, env={"NARRATOR_IMAP_PASSWORD": account.password}
    )
    before = [f"imap-{n}@spelers.example.org" for n in range(2)]
    for n, message_id in enumerate(before):
        name, gender = PLAYERS[n]
        account.deliver(compose(address(name), GAME, f"{name}, {gender}", message_id))
    for message_id in before:
        narrator.wait_reply(message_id)

    server.stop()  # a crash or reboot of the mail server: sessions dropped, port closed
    poll(
        lambda: narrator.daemon.log().count("IMAP: reconnecting in") >= 3,
        30,
        "the poller to retry the unreachable server",
    )
    during = [f"imap-down-{n}@spelers.example.org" for n in range(2, 4)]
    for n, message_id in zip(range(2, 4), during, strict=True):
        name, gender = PLAYERS[n]
        _drop_into_maildir(
            server, account.username, compose(address(name), GAME, f"{name}, {gender}", message_id)
        )
    narrator.assert_alive()
    server.start()
    for message_id in during:
        narrator.wait_reply(message_id, timeout=60)

    states = narrator.inbox_states()
    assert {m: states.get(m) for m in before + during} == dict.fromkeys(before + during, "done")
    assert all("\\Seen" in flags for flags in account.flags().values())
    log = narrator.stop()
    # What an operator reads: the refused connection, the growing retry delay, the new login.
    assert f"IMAP {server.host}:{server.imap_port}: " in log
    assert log.count(f"logged in as '{account.username}'") >= 2
    counts = message_ids([m.raw for m in narrator.sink.received])
    assert all(n == 1 for n in counts.values()), counts


# --- the outgoing SMTP server ----------------------------------------------------------------


def test_outgoing_4xx_is_retried_and_sent_once(
    sink: SmtpCapture, start_narrator: Callable[..., Narrator]
) -> None:
    sink.handler.replies.extend(["451 4.3.0 try again later"] * 3)
    narrator = start_narrator()
    message_id = narrator.signup(0)
    narrator.wait_reply(message_id)
    narrator.assert_alive()
    narrator.wait_all_marked_sent()
    (row,) = narrator.outbox()
    assert (row.state, row.attempts) == (OutboxState.SENT.value, 4)
    assert len(narrator.replies_to(message_id)) == 1
    assert sink.handler.data_calls == 4
    log = narrator.stop()
    assert "attempt 1 failed (message refused: 451 4.3.0 try again later); next at" in log
    assert f"outbox {row.message_id} sent to {address(PLAYERS[0][0])}" in log


def test_outgoing_5xx_for_a_recipient_is_marked_failed_and_not_retried(
    sink: SmtpCapture, start_narrator: Callable[..., Narrator]
) -> None:
    refused = address(PLAYERS[1][0])
    sink.handler.refused[refused] = "550 5.1.1 no such user"
    narrator = start_narrator()
    ok = narrator.signup(0)
    bad = narrator.signup(1)
    narrator.wait_reply(ok)
    poll(
        lambda: any(r.state == OutboxState.FAILED.value for r in narrator.outbox()),
        30,
        "the refused mail to be marked failed",
    )
    later = narrator.signup(2)  # the outbox goes on with other mail
    narrator.wait_reply(later)
    rows = {row.recipient: row for row in narrator.outbox()}
    failed = rows[refused]
    assert (failed.state, failed.attempts) == (OutboxState.FAILED.value, 1)
    assert "550 5.1.1 no such user" in (failed.last_error or "")
    assert narrator.replies_to(bad) == []
    assert narrator.inbox_states()[bad] == "done"  # the signup itself was applied
    log = narrator.stop()
    assert (
        f"outbox {failed.message_id} to {refused} refused: recipient {refused} refused: 550" in log
    )
    assert (
        f"mail {failed.message_id} (signup_confirmed) to {refused} given up after 1 attempt(s)"
        in log
    )


def test_outgoing_5xx_is_reported_to_the_admins_by_mail(
    sink: SmtpCapture, start_narrator: Callable[..., Narrator]
) -> None:
    refused = address(PLAYERS[1][0])
    sink.handler.refused[refused] = "550 5.1.1 no such user"
    narrator = start_narrator()
    narrator.signup(1)
    poll(
        lambda: any(r.state == OutboxState.FAILED.value for r in narrator.outbox()),
        30,
        "the refused mail to be marked failed",
    )
    poll(
        lambda: any(ADMIN in m.rcpt_tos for m in sink.received),
        30,
        "a notice to the admins",
    )
    (notice,) = [m for m in sink.received if ADMIN in m.rcpt_tos]
    assert refused.encode() in notice.raw  # it names the address that refused the mail
    narrator.stop()


def test_a_relay_refusing_every_recipient_for_a_while_loses_no_mail(
    sink: SmtpCapture, tmp_path: Path
) -> None:
    """Issue 24: five seconds of 5xx from the submission server failed 10 signup confirmations
    for good.  A 5xx for three recipients in a row is the relay's fault: every mail (here eight
    confirmations) is retried and arrives, once, and no admin is told of a mail given up."""
    db_url = f"sqlite:///{tmp_path / 'narrator.db'}"
    upgrade(db_url)
    config = write_config(
        tmp_path, db_url, smtp_port=None, outbound_port=sink.port, admins=(ADMIN,)
    )
    cli(config, "game", "create", GAME, "--speed", "1h")
    signups = []
    for name, gender in PLAYERS:
        path = tmp_path / f"signup-{name}.eml"
        path.write_bytes(compose(address(name), GAME, f"{name}, {gender}", f"su-{name}@x.org"))
        signups.append(str(path))
    cli(config, "inject", *signups)  # ten confirmations wait in the outbox
    sink.handler.burst = 20  # the relay refuses everybody (each mail twice over), then recovers
    narrator = Narrator(ServeProcess(config), db_url, sink, None)
    narrator.daemon.start()
    try:
        narrator.daemon.wait_serving()
        narrator.wait_all_marked_sent(timeout=60)
    finally:
        log = narrator.stop()
    assert sink.handler.burst == 0  # the refusals were met
    received = sorted(m.rcpt_tos[0] for m in sink.received)
    assert received == sorted(address(name) for name, _ in PLAYERS)
    assert "(a relay fault; retried)" in log
    assert "given up" not in log


def test_an_outbox_maildir_that_cannot_be_written_is_logged_and_leaves_no_file_in_tmp(
    sink: SmtpCapture, tmp_path: Path
) -> None:
    """Issue 24: every failed Maildir write left a 0-byte file in ``outbox/tmp/``, and failures
    were logged at INFO.  They are WARNINGs, from the third attempt on ERRORs; nothing stays in
    ``tmp/``; once the Maildir is writable the mail is delivered, once."""
    db_url = f"sqlite:///{tmp_path / 'narrator.db'}"
    upgrade(db_url)
    port = free_port()
    config = write_config(tmp_path, db_url, smtp_port=port, outbound_port=None, admins=(ADMIN,))
    cli(config, "game", "create", GAME, "--speed", "1h")
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    (outbox / "new").write_text("not a folder")  # every write fails
    narrator = Narrator(ServeProcess(config), db_url, sink, port)
    narrator.daemon.start()
    narrator.daemon.wait_serving()
    narrator.signup(0)  # its confirmation cannot be written
    poll(lambda: "attempt 3 failed" in narrator.daemon.log(), 30, "three failed attempts")
    log = narrator.stop()
    lines = [line for line in log.splitlines() if "failed (cannot write to Maildir" in line]
    levels = {line.split()[2] for line in lines if "attempt 1 failed" in line}
    assert levels == {"WARNING"}, lines
    third = next(line for line in lines if "attempt 3 failed" in line)
    assert " ERROR narrator.outbound.sender: " in third, lines
    assert list((outbox / "tmp").iterdir()) == []
    # Made writable: delivered at the next attempt, once.
    (outbox / "new").unlink()
    (outbox / "new").mkdir()
    narrator.daemon.start()
    narrator.daemon.wait_serving()
    narrator.wait_all_marked_sent(timeout=30)
    narrator.stop()
    assert len(list((outbox / "new").iterdir())) == 1
    assert list((outbox / "tmp").iterdir()) == []


def test_outgoing_server_timing_out_is_retried_same_message_id(
    sink: SmtpCapture, start_narrator: Callable[..., Narrator]
) -> None:
    sink.handler.hang = 2
    narrator = start_narrator()
    message_id = narrator.signup(0)
    poll(
        lambda: any(r.state == OutboxState.SENT.value for r in narrator.outbox()),
        60,
        "the reply to be sent after the timeouts",
    )
    (row,) = narrator.outbox()
    assert row.attempts == 3, row.last_error
    # The stalled server accepted each copy after the client had given up (the classic SMTP
    # duplicate, RFC 1047): every copy carries the same Message-ID, and no more than attempts.
    copies = narrator.replies_to(message_id)
    assert 1 <= len(copies) <= row.attempts
    assert {str(parse(m.raw)["Message-ID"]) for m in copies} == {row.message_id}
    log = narrator.stop()
    timeouts = re.findall(r"attempt (\d) failed \(SMTP connection failed: .*timed out\)", log)
    assert timeouts == ["1", "2"], log


# --- the database -----------------------------------------------------------------------------


@contextlib.contextmanager
def locked(path: Path, seconds: float) -> Iterator[threading.Event]:
    """Another process's write transaction (``BEGIN IMMEDIATE``) on the SQLite file, held in a
    thread for `seconds`, or until the test sets the yielded event (after what the lock was
    for has been seen); yields once the lock is taken."""
    taken = threading.Event()
    release = threading.Event()

    def hold() -> None:
        connection = sqlite3.connect(path, isolation_level=None, timeout=30)
        try:
            connection.execute("BEGIN IMMEDIATE")
            taken.set()
            release.wait(seconds)  # the lock held by "another process": the fault itself
            connection.execute("ROLLBACK")
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(30), "could not take the write lock"
    try:
        yield release
    finally:
        release.set()
        holder.join()


def _send_once(port: int, raw: bytes) -> tuple[int, float]:
    """One SMTP transaction; returns (DATA reply code, seconds it took)."""
    began = time.monotonic()
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        client.ehlo()
        client.mail("x@spelers.example.org")
        client.rcpt(NARRATOR)
        code, _ = client.data(raw)
    return code, time.monotonic() - began


def test_sqlite_locked_by_another_process(
    tmp_path: Path, start_narrator: Callable[..., Narrator]
) -> None:
    # The daemon's busy timeout shortened from 10 s to 3 s: the locks below are held for a
    # third of it and for twice it.
    narrator = start_narrator(env={BUSY_ENV: "3000"})
    assert narrator.port is not None
    first = narrator.signup(0)
    narrator.wait_reply(first)
    database = tmp_path / "narrator.db"

    def signup_mail(n: int) -> tuple[str, bytes]:
        name, gender = PLAYERS[n]
        message_id = f"locked-{name}@spelers.example.org"
        return message_id, compose(address(name), GAME, f"{name}, {gender}", message_id)

    # Locked for 1 s: shorter than the busy timeout (3 s), so the mail waits, then is stored.
    short_id, short_raw = signup_mail(1)
    with locked(database, 1.0):
        code, took = _send_once(narrator.port, short_raw)
    assert code == 250 and took >= 0.5, (code, took)

    # Locked for longer than the busy timeout (up to 6 s, released once the 451 is in): the
    # receiver gives up after the busy timeout and answers 451; the client keeps the mail and
    # tries again once the lock is gone, and then it is stored.
    long_id, long_raw = signup_mail(2)
    with locked(database, 6.0):
        code, _ = _send_once(narrator.port, long_raw)
        assert code == 451
        narrator.assert_alive()
    code, _ = _send_once(narrator.port, long_raw)
    assert code == 250

    for message_id in (short_id, long_id):
        narrator.wait_reply(message_id)
    assert narrator.inbox_states() == dict.fromkeys([first, short_id, long_id], "done")
    narrator.wait_all_marked_sent()
    log = narrator.stop()
    assert (
        "narrator.inbound.smtp: could not store mail from 'x@spelers.example.org' (293 bytes): "
        "database unavailable: inbox commit failed: (sqlite3.OperationalError) database is "
        "locked; answered 451\n"
    ) in log
    counts = message_ids([m.raw for m in narrator.sink.received])
    assert sorted(counts.values()) == [1, 1, 1], f"{counts}\n{log}"


# --- PostgreSQL --------------------------------------------------------------------------------


def _postgres_bin() -> Path | None:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return versions[-1].parent if versions else None


@pytest.fixture
def private_postgres() -> Iterator[tuple[str, Callable[[], None], Callable[[], None]]]:
    """A private PostgreSQL server (initdb in a temp dir, run as the postgres user), so that
    stopping it disturbs no other test: yields (url, stop, start)."""
    if not os.environ.get("NARRATOR_TEST_POSTGRES_URL"):
        pytest.skip("no PostgreSQL: set NARRATOR_TEST_POSTGRES_URL (scripts/start-postgres.sh)")
    if os.geteuid() != 0:
        pytest.skip("restarting a PostgreSQL server needs root (to run it as postgres)")
    binaries = _postgres_bin()
    if binaries is None or shutil.which("su") is None:
        pytest.skip("the PostgreSQL server binaries are not installed (/usr/lib/postgresql)")
    root = Path(tempfile.mkdtemp(prefix="narrator-pg-"))
    shutil.chown(root, "postgres", "postgres")
    data = root / "data"
    port = free_port()

    def as_postgres(*command: str) -> None:
        line = " ".join(f"'{part}'" for part in command)
        subprocess.run(["su", "postgres", "-c", line], check=True, capture_output=True, timeout=60)

    def start() -> None:
        as_postgres(
            str(binaries / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w", "-o",
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1", "start",
        )  # fmt: skip

    def stop() -> None:
        as_postgres(str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")

    as_postgres(str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    start()
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", stop, start
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.postgres
def test_postgresql_restart(
    private_postgres: tuple[str, Callable[[], None], Callable[[], None]],
    start_narrator: Callable[..., Narrator],
) -> None:
    url, stop_server, start_server = private_postgres
    narrator = start_narrator(url)
    first = narrator.signup(0)
    narrator.wait_reply(first)

    stop_server()
    assert narrator.port is not None
    name, gender = PLAYERS[1]
    raw = compose(address(name), GAME, f"{name}, {gender}", "pg-down@spelers.example.org")
    code, _ = _send_once(narrator.port, raw)
    assert code == 451  # not stored, not acknowledged: the client keeps it
    # Down for a while: the worker, the sender and the scheduler's polls fail too, and say so,
    # one line per retry with the count and the database's error.
    outage = [
        re.compile(rf"narrator\.{part} failed \((\d+) in a row\): database unavailable: "
                   r"\(psycopg\.OperationalError\) [^\n]+; (retrying in|the next poll)")
        for part in (
            r"daemon: inbox pass",
            r"outbound\.sender: outbox pass",
            r"scheduler: re-reading the deadlines",
        )
    ]  # fmt: skip
    poll(
        lambda: all(len(line.findall(narrator.daemon.log())) >= 2 for line in outage),
        30,
        "the worker, the sender and the scheduler to notice the database is gone",
    )
    narrator.assert_alive()
    start_server()
    # The pool's connections died with the server; pre-ping replaces them.
    smtp_deliver(narrator.port, address(name), raw, rng=random.Random(6))
    later = narrator.signup(2)
    for message_id in ("pg-down@spelers.example.org", later):
        narrator.wait_reply(message_id, timeout=60)
    assert set(narrator.inbox_states().values()) == {"done"}
    narrator.wait_all_marked_sent()
    log = narrator.stop()
    assert (
        "(284 bytes): database unavailable: inbox commit failed: (psycopg.OperationalError) "
        "connection failed"
    ) in log
    assert "; answered 451\n" in log
    for line in outage:
        assert [count for count, _ in line.findall(log)][:2] == ["1", "2"], line.pattern
