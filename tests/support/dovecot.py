"""A real Dovecot IMAP/LMTP server on loopback for tests, with its own config in a temp dir."""

from __future__ import annotations

import contextlib
import imaplib
import os
import pwd
import re
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.net import free_port

DOVECOT_CANDIDATES = ("/usr/sbin/dovecot", "dovecot")
USER_POOL = 500
SKIP_REASON = (
    "Dovecot is not installed (need /usr/sbin/dovecot: apt-get install dovecot-imapd "
    "dovecot-lmtpd); IMAP tests skipped"
)

_CONFIG = """\
protocols = imap lmtp
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
instance_name = narrator-test-{instance}
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
{ssl}
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
first_valid_gid = 1
mail_location = maildir:{root}/mail/%u
default_internal_user = {internal_user}
default_login_user = {login_user}
shutdown_clients = yes
auth_failure_delay = 0
login_trusted_networks = 127.0.0.0/8
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user} gid={mail_group} home={root}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp_port}
  }}
  unix_listener lmtp {{
    mode = 0666
  }}
}}
service anvil {{
  unix_listener anvil {{
    mode = 0666
  }}
}}
"""


def find_dovecot() -> str | None:
    """Return the path of the dovecot binary, or None when it is not installed."""
    for candidate in DOVECOT_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


@dataclass(frozen=True)
class DovecotAccount:
    """One mail user on a :class:`DovecotServer`."""

    server: DovecotServer
    username: str
    password: str

    def deliver(self, raw: bytes, sender: str = "speler@example.org") -> None:
        """Deliver ``raw`` to this user's INBOX by LMTP (as an MTA would)."""
        self.server.deliver(self.username, raw, sender)

    def append(self, raw: bytes, mailbox: str = "INBOX", flags: str = "") -> None:
        """Put ``raw`` into ``mailbox`` with IMAP APPEND."""
        with self.server.imap(self) as client:
            _check(client.append(mailbox, f"({flags})" if flags else None, None, raw))

    def create_mailbox(self, mailbox: str) -> None:
        """Create ``mailbox`` (no error if it exists)."""
        with self.server.imap(self) as client:
            client.create(mailbox)

    def flags(self, mailbox: str = "INBOX") -> dict[int, set[str]]:
        """Return ``{uid: flags}`` of every message in ``mailbox`` (read-only look)."""
        with self.server.imap(self) as client:
            _check(client.select(mailbox, readonly=True))
            typ, data = client.uid("FETCH", "1:*", "(UID FLAGS)")
            _check((typ, data))
        result: dict[int, set[str]] = {}
        for item in data:
            if not isinstance(item, bytes):
                continue
            match = re.search(rb"UID (\d+) FLAGS \(([^)]*)\)", item)
            if match:
                result[int(match.group(1))] = set(match.group(2).decode().split())
        return result

    def uidvalidity(self, mailbox: str = "INBOX") -> int:
        """Return the mailbox's current UIDVALIDITY."""
        return int(self.server.doveadm_status(self.username, mailbox)["uidvalidity"])

    def set_uidvalidity(self, value: int, mailbox: str = "INBOX") -> None:
        """Change the mailbox's UIDVALIDITY (what a server does after rebuilding a mailbox)."""
        self.server.doveadm(
            "mailbox", "update", "-u", self.username, "--uid-validity", str(value), mailbox
        )


class DovecotServer:
    """A Dovecot instance with its own config, passwd-file, maildirs and ports under ``root``.

    Use as a context manager, or call :meth:`start` / :meth:`stop`. :meth:`restart` keeps the
    ports and the mail. Runs as root with the ``dovecot`` user owning the mail (as in
    ``DESIGN.md``), or, when not root, entirely as the current user.
    """

    def __init__(self, binary: str, root: Path | None = None, *, tls: bool = False) -> None:
        self.binary = binary
        self.root = root or Path(tempfile.mkdtemp(prefix="narrator-dovecot-"))
        self.tls = tls
        self.imap_port = free_port()
        self.imaps_port = free_port() if tls else 0
        self.lmtp_port = free_port()
        self.host = "127.0.0.1"
        self._user_count = 0
        self._prepare()

    @property
    def config_path(self) -> Path:
        """The dovecot.conf of this instance."""
        return self.root / "dovecot.conf"

    @property
    def cert_path(self) -> Path:
        """The self-signed certificate of the IMAPS listener (``tls=True``): trust it in tests."""
        return self.root / "cert.pem"

    @property
    def log_path(self) -> Path:
        """Dovecot's log file (printed by failing tests)."""
        return self.root / "dovecot.log"

    def _prepare(self) -> None:
        self.root.chmod(0o755)  # the mail user must be able to reach its maildir
        for name in ("run", "state", "mail"):
            (self.root / name).mkdir(exist_ok=True)
        # Dovecot re-reads a changed passwd-file at most once a second, so the users exist
        # from the start and add_user hands them out.
        (self.root / "passwd").write_text(
            "".join(f"user{n}:{{PLAIN}}secret::::::\n" for n in range(1, USER_POOL + 1))
        )
        if os.geteuid() == 0:
            internal, login, mail_user, mail_group = "dovecot", "dovenull", "dovecot", "dovecot"
            entry = pwd.getpwnam("dovecot")
            os.chown(self.root / "mail", entry.pw_uid, entry.pw_gid)
        else:
            me = pwd.getpwuid(os.geteuid()).pw_name
            internal = login = mail_user = me
            mail_group = str(os.getegid())
        ssl_setting = "ssl = no"
        if self.tls:
            self._make_certificate()
            ssl_setting = (
                f"ssl = yes\nssl_cert = <{self.cert_path}\nssl_key = <{self.root / 'key.pem'}"
            )
        self.config_path.write_text(
            _CONFIG.format(
                ssl=ssl_setting,
                imaps_port=self.imaps_port,
                root=self.root,
                instance=self.root.name,
                imap_port=self.imap_port,
                lmtp_port=self.lmtp_port,
                internal_user=internal,
                login_user=login,
                mail_user=mail_user,
                mail_group=mail_group,
            )
        )

    def _make_certificate(self) -> None:
        subprocess.run(
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", str(self.root / "key.pem"), "-out", str(self.cert_path),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )  # fmt: skip

    def start(self, timeout: float = 10.0) -> None:
        """Start Dovecot and wait until it greets on the IMAP port."""
        subprocess.run([self.binary, "-c", str(self.config_path)], check=True, timeout=timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            address = (self.host, self.imap_port)
            with contextlib.suppress(OSError), socket.create_connection(address, 1) as conn:
                if conn.recv(100).startswith(b"* OK"):
                    return
            time.sleep(0.02)  # polling a port that is coming up; bounded by the deadline
        raise RuntimeError(f"Dovecot did not come up within {timeout}s:\n{self.log()}")

    def stop(self, timeout: float = 10.0, *, drop_clients: bool = True) -> None:
        """Stop Dovecot and wait until its master process is gone.

        With ``drop_clients`` (default) the IMAP sessions are ended at once, as in a crash or
        a reboot; otherwise each says ``BYE`` when it next notices (Dovecot takes ~10 s).
        """
        pid = self._master_pid()
        if pid is None:
            return
        children = _children(pid) if drop_clients else []
        # SIGTERM to the master we started (what `dovecot stop` sends, without its 1 s polls),
        # then to its own children, the IMAP sessions among them.
        for target in (pid, *children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(target, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid) and not _port_open(self.host, self.imap_port):
                return
            time.sleep(0.02)  # polling process exit; bounded by the deadline
        raise RuntimeError(f"Dovecot (pid {pid}) did not stop within {timeout}s")

    def restart(self) -> None:
        """Stop and start again on the same ports, keeping all mail."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop the server and remove its directory."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> DovecotServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _master_pid(self) -> int | None:
        try:
            return int((self.root / "run" / "master.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def log(self) -> str:
        """Return Dovecot's log so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"

    def add_user(self) -> DovecotAccount:
        """Return a user not handed out before (a fresh, empty mailbox; password "secret")."""
        if self._user_count >= USER_POOL:
            raise RuntimeError(f"all {USER_POOL} test users of this Dovecot are in use")
        self._user_count += 1
        return DovecotAccount(self, f"user{self._user_count}", "secret")

    def deliver(self, username: str, raw: bytes, sender: str = "speler@example.org") -> None:
        """Deliver ``raw`` to ``username`` by LMTP."""
        with smtplib.LMTP(self.host, self.lmtp_port, timeout=10) as lmtp:
            refused = lmtp.sendmail(sender, [username], raw)
        if refused:
            raise RuntimeError(f"LMTP refused {refused}")

    @contextlib.contextmanager
    def imap(self, account: DovecotAccount) -> Iterator[imaplib.IMAP4]:
        """A logged-in blocking IMAP client (imaplib), for test set-up and assertions."""
        client = imaplib.IMAP4(self.host, self.imap_port, timeout=10)
        try:
            _check(client.login(account.username, account.password))
            yield client
        finally:
            with contextlib.suppress(Exception):
                client.logout()

    def doveadm(self, *args: str) -> str:
        """Run doveadm against this instance and return its output."""
        result = subprocess.run(
            ["doveadm", "-c", str(self.config_path), *args],
            check=True,
            capture_output=True,
            text=True,
            timeout=30,
        )
        return result.stdout

    def doveadm_status(self, username: str, mailbox: str) -> dict[str, str]:
        """Return ``doveadm mailbox status`` fields of a mailbox."""
        out = self.doveadm(
            "mailbox", "status", "-u", username, "messages uidvalidity uidnext", mailbox
        )
        return dict(re.findall(r"(\w+)=(\S+)", out))


def _check(response: tuple[str, object]) -> None:
    typ, data = response
    if typ != "OK":
        raise RuntimeError(f"IMAP command failed: {typ} {data!r}")


def _children(pid: int) -> list[int]:
    """Return the pids whose parent is ``pid`` (from /proc; empty where there is none)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False
