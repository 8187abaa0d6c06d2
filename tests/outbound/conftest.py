"""Fixtures for the outbound tests: scriptable aiosmtpd servers, a TLS certificate, a fake clock."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.outbound.helpers import Certificate, FakeClock, SmtpServer


@pytest.fixture
def smtp_server_factory() -> Iterator[Callable[..., SmtpServer]]:
    """Start scripted SMTP servers (kwargs go to aiosmtpd's SMTP); all stopped at the end."""
    servers: list[SmtpServer] = []

    def start(**kwargs: Any) -> SmtpServer:
        server = SmtpServer(**kwargs)
        server.controller.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.release()
        server.controller.stop()


@pytest.fixture
def smtp_server(smtp_server_factory: Callable[..., SmtpServer]) -> SmtpServer:
    """A plain scripted SMTP server (no TLS, no AUTH)."""
    return smtp_server_factory()


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """Generated with the openssl command (the `cryptography` package is not installed here)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is not installed: TLS tests need a self-signed cert")
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return Certificate(cert, key)


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at 2026-11-18 09:00 UTC."""
    return FakeClock()
