"""`narrator serve` as a process: migrates a fresh database, says where it listens, answers mail,
stops cleanly on SIGTERM and SIGINT."""

from __future__ import annotations

import errno
import mailbox
import os
import shutil
import signal
import smtplib
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from narrator.daemon import read_only_database
from narrator.db import current_revision, head_revision, upgrade
from tests.daemon.driver import NARRATOR, compose
from tests.support.net import free_port


def poll(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)  # polling a condition in another process


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _outbox(workdir: Path) -> list[mailbox.MaildirMessage]:
    """The mails in the daemon's Maildir outbox (none before it exists)."""
    if not (workdir / "outbox" / "new").is_dir():
        return []
    return list(mailbox.Maildir(workdir / "outbox", create=False))


def start_serve(workdir: Path, port: int, web_port: int = 0) -> subprocess.Popen[str]:
    (workdir / "narrator.toml").write_text(
        f'[narrator]\naddress = "{NARRATOR}"\n[inbound.smtp]\nport = {port}\n'
        f"[web]\nport = {web_port}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, "-m", "narrator", "serve"],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def serve_until_it_stops(
    workdir: Path, prefix: Sequence[str] = ()
) -> subprocess.CompletedProcess[str]:
    """`narrator serve` on ``workdir/narrator.toml``, expected to refuse to start (run through
    the command `prefix`, if any)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run(
        [*prefix, sys.executable, "-m", "narrator", "serve", "--log-level", "WARNING"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_serve_on_the_defaults_answers_mail_and_stops_on_a_signal(
    tmp_path: Path, stop_signal: signal.Signals
) -> None:
    workdir = tmp_path
    if stop_signal is signal.SIGINT:  # issue 24: an outbox Maildir that exists, empty
        (workdir / "outbox").mkdir()
    port, web_port = free_port(), free_port()
    process = start_serve(workdir, port, web_port)
    try:
        poll(lambda: listening(port) or process.poll() is not None, 30, "the SMTP receiver")
        assert process.poll() is None, process.communicate()[1]
        assert current_revision(f"sqlite:///{workdir / 'narrator.db'}") == head_revision()
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
            client.sendmail(
                "anna@example.org",
                [NARRATOR],
                compose("anna@example.org", "help", "Hoe werkt dit?", "help-1@example.org"),
            )
            # Mail for somebody else is refused: the receiver is not an open relay.
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                client.sendmail("anna@example.org", ["iemand@example.org"], b"Subject: x\r\n\r\n")
        poll(lambda: len(_outbox(workdir)) == 1, 30, "the answer to the Help mail")
        # The game pages, in the same process: the list of games, in the configured language.
        with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/", timeout=10) as page:
            assert page.status == 200 and "Spellen" in page.read().decode()
        process.send_signal(stop_signal)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert f"SMTP receiver for {NARRATOR} listening on 127.0.0.1:{port}" in err
    assert "Maildir" in err and "narrator stopped" in err
    # The log line says the pages' address (base_url) and where they are served.
    page_line = f"game pages at http://127.0.0.1:8080/ (listening on http://127.0.0.1:{web_port})"
    assert page_line in err
    assert "inbox 1: a Help mail from anna@example.org but no admin is configured" in err
    assert "inbox 1 (help-1@example.org): help not forwarded: no admin (player told)" in err
    assert "Traceback" not in err
    # No admin: Anna is told so.
    (reply,) = _outbox(workdir)
    assert reply["To"] == "anna@example.org" and reply["In-Reply-To"] == "<help-1@example.org>"


def test_serve_reports_a_taken_port_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = start_serve(tmp_path, port)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert err.strip().splitlines()[-1].startswith("narrator: error: cannot start:")
    assert "Traceback" not in err


def test_serve_refuses_a_language_the_default_ruleset_has_no_stories_in(tmp_path: Path) -> None:
    """Mail that names no game is answered in [narrator] language with [narrator] ruleset's
    stories: Italian with Wakkerdam (Dutch and English only) could answer nothing."""
    (tmp_path / "narrator.toml").write_text(
        f'[narrator]\nlanguage = "it"\n[inbound.smtp]\nport = {free_port()}\n[web]\nport = 0\n',
        encoding="utf-8",
    )
    done = serve_until_it_stops(tmp_path)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("narrator: error: ") and "'narrator.language' is \"it\"" in last
    assert '"wakkerdam"' in last and "en, nl only" in last
    assert "Traceback" not in done.stderr


def test_serve_on_a_read_only_database_says_which_file_in_one_line(tmp_path: Path) -> None:
    """Issue 24: a read-only SQLite database was an 80-line traceback and exit 1."""
    database = tmp_path / "narrator.db"
    upgrade(f"sqlite:///{database}")
    read_only = f"sqlite:///file:{database}?mode=ro&uri=true"
    (tmp_path / "narrator.toml").write_text(
        f'[narrator]\ndatabase = "{read_only}"\n[inbound.smtp]\nport = {free_port()}\n',
        encoding="utf-8",
    )
    done = serve_until_it_stops(tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"narrator: error: cannot start: the SQLite database {database} is read-only: "
        "the database URL opens it read-only (mode=ro)"
    ]


def _without_root_override() -> list[str]:
    """The command prefix that runs a process of this user without the power to write any file
    whatever its mode: none for a user, and for root `setpriv` dropping the capabilities that let
    root ignore a file's permissions (so a chmod 0444 file is read-only to him, as to anyone)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")  # util-linux: on every Debian
    assert setpriv is not None, "setpriv (util-linux) is needed to test a read-only file as root"
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]


def test_serve_on_a_database_file_it_may_not_write_names_the_files(tmp_path: Path) -> None:
    """Issue 24: a database file made read-only with chmod (not the URL's mode=ro).  Root writes
    any file, so as root the daemon runs without that power (`setpriv`)."""
    database = tmp_path / "narrator.db"
    upgrade(f"sqlite:///{database}")
    database.chmod(0o444)
    (tmp_path / "narrator.toml").write_text(
        f'[narrator]\ndatabase = "sqlite:///{database}"\n'
        f"[inbound.smtp]\nport = {free_port()}\n[web]\nport = 0\n",
        encoding="utf-8",
    )

    def serve() -> list[str]:
        done = serve_until_it_stops(tmp_path, _without_root_override())
        assert done.returncode == 2, done.stderr
        return done.stderr.strip().splitlines()

    said = f"narrator: error: cannot start: the SQLite database {database} is read-only: "
    [line] = serve()
    assert line.startswith(said + "make writable by this user: "), line
    assert str(database) in line.removeprefix(said)
    # Made writable, the database still fails on the -shm SQLite created read-only beside it
    # (with the database's mode): the line names that file.
    database.chmod(0o644)
    assert serve() == [said + f"make writable by this user: {database}-shm"]


def test_a_read_only_database_file_names_the_files_to_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "narrator.db"
    for path in (database, Path(f"{database}-shm")):
        path.write_bytes(b"")
    # As root every file is writable: the check asks os.access, which the test answers.
    monkeypatch.setattr(os, "access", lambda path, mode: not str(path).endswith("-shm"))
    error = OperationalError(
        "UPDATE", {}, sqlite3.OperationalError("attempt to write a readonly database")
    )
    found = read_only_database(error, f"sqlite:///{database}")
    assert found is not None and found.errno == errno.EROFS
    assert found.strerror == (
        f"the SQLite database {database} is read-only: make writable by this user: {database}-shm"
    )
    assert read_only_database(RuntimeError("boom"), f"sqlite:///{database}") is None


def test_serve_reports_a_taken_web_port_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        process = start_serve(tmp_path, free_port(), taken.getsockname()[1])
        _, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert err.strip().splitlines()[-1].startswith("narrator: error: cannot start:")
    assert "Traceback" not in err
