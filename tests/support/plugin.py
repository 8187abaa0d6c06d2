"""Pytest fixtures for real mail servers on loopback; enable with
``pytest_plugins = ["tests.support.plugin"]`` in the root conftest, or import the fixtures.

- ``dovecot_server`` (session): a running :class:`~tests.support.dovecot.DovecotServer`;
  skips with a clear reason when Dovecot is not installed.
- ``dovecot_account``: a fresh user (empty INBOX) on that server.
- ``dovecot_factory``: starts private servers (for tests that restart or break them).
- ``smtp_capture``: a running :class:`~tests.support.smtp.SmtpCapture` (aiosmtpd) that records
  what it receives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.dovecot import SKIP_REASON, DovecotAccount, DovecotServer, find_dovecot
from tests.support.smtp import SmtpCapture


def _dovecot_binary() -> str:
    binary = find_dovecot()
    if binary is None:
        pytest.skip(SKIP_REASON)
    return binary


@pytest.fixture(scope="session")
def dovecot_server() -> Iterator[DovecotServer]:
    """A Dovecot IMAP+LMTP server on 127.0.0.1, shared by the session."""
    with DovecotServer(_dovecot_binary()) as server:
        yield server


@pytest.fixture
def dovecot_account(dovecot_server: DovecotServer) -> DovecotAccount:
    """A fresh mail user with an empty INBOX on the shared server."""
    return dovecot_server.add_user()


@pytest.fixture
def dovecot_factory() -> Iterator[Callable[..., DovecotServer]]:
    """Start private Dovecot servers (stopped and removed after the test); ``tls=True`` adds
    an IMAPS listener (``.imaps_port``) with a self-signed certificate (``.cert_path``)."""
    binary = _dovecot_binary()
    servers: list[DovecotServer] = []

    def start(*, tls: bool = False) -> DovecotServer:
        server = DovecotServer(binary, tls=tls)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def smtp_capture() -> Iterator[SmtpCapture]:
    """A recording aiosmtpd server on 127.0.0.1 (``.host``, ``.port``, ``.received``)."""
    with SmtpCapture() as capture:
        yield capture
