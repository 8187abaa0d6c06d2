"""`narrator serve` as a process: migrates a fresh database, says where it listens, answers mail,
stops cleanly on SIGTERM and SIGINT."""

from __future__ import annotations

import errno
import mailbox
import os
import pwd
import shutil
import signal
import site
import smtplib
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def serve_until_it_stops(workdir: Path) -> subprocess.CompletedProcess[str]:
    """`narrator serve` on ``workdir/narrator.toml``, expected to refuse to start."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run(
        [sys.executable, "-m", "narrator", "serve", "--log-level", "WARNING"],
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


def _interpreter_for(user: pwd.struct_passwd, env: dict[str, str]) -> str | None:
    """A Python that `user` may run and that imports the narrator (with `env`): this one, or
    the system's of the same version on this one's packages (a root-only pyenv, say)."""
    candidates = [sys.executable, *filter(None, [shutil.which("python3", path="/usr/bin:/bin")])]
    version = tuple(sys.version_info[:2])
    probe = f"import sys, narrator.daemon; assert sys.version_info[:2] == {version}"
    for python in candidates:
        try:
            done = subprocess.run(
                [python, "-c", probe],
                env=env,
                cwd="/",
                user=user.pw_uid,
                group=user.pw_gid,
                extra_groups=[],
                capture_output=True,
                timeout=120,
            )
        except PermissionError:  # in a folder he may not enter
            continue
        if done.returncode == 0:
            return python
    return None


def test_serve_as_a_user_who_may_not_write_the_database_file_names_the_files(
    tmp_path: Path,
) -> None:
    """Issue 24: a database file made read-only with chmod (not the URL's mode=ro).  Root
    writes any file, so as root the daemon runs as `nobody`; otherwise as this user."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/nonexistent",
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).resolve().parents[2]), *site.getsitepackages()]
        ),
    }
    if os.geteuid() == 0:
        user = pwd.getpwnam("nobody")
        python = _interpreter_for(user, env)
        if python is None:
            pytest.skip("no Python that the user nobody may run imports the narrator")
        # pytest's tmp_path is root's alone: a folder nobody may read, in one he may not write.
        top = Path(tempfile.mkdtemp())
        top.chmod(0o755)
        run_as: dict[str, Any] = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    else:
        python, top, run_as = sys.executable, tmp_path / "top", {}
        top.mkdir()
    try:
        folder = top / "data"
        folder.mkdir()
        database = folder / "narrator.db"
        upgrade(f"sqlite:///{database}")
        if run_as:
            for path in (folder, database):
                os.chown(path, run_as["user"], run_as["group"])
        database.chmod(0o444)
        (top / "narrator.toml").write_text(
            f'[narrator]\ndatabase = "sqlite:///{database}"\n'
            f"[inbound.smtp]\nport = {free_port()}\n[web]\nport = 0\n",
            encoding="utf-8",
        )

        def serve() -> list[str]:
            done = subprocess.run(
                [python, "-m", "narrator", "serve", "--log-level", "WARNING"],
                cwd=top,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                **run_as,
            )
            assert done.returncode == 2, done.stderr
            return done.stderr.strip().splitlines()

        said = f"narrator: error: cannot start: the SQLite database {database} is read-only: "
        [line] = serve()
        assert line.startswith(said + "make writable by this user: "), line
        assert str(database) in line.removeprefix(said)
        # Made writable, the database still fails on the -shm SQLite created read-only beside
        # it: the line names that file.
        database.chmod(0o644)
        assert serve() == [said + f"make writable by this user: {database}-shm"]
    finally:
        if run_as:
            shutil.rmtree(top)


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
