"""Helpers for the outbound tests: a scriptable aiosmtpd server, a certificate, a fake clock."""

from __future__ import annotations

import asyncio
import email
import ssl
import threading
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from tests.support.net import free_port

USERNAME = "verteller"
PASSWORD = "geheim-wachtwoord"


@dataclass(frozen=True)
class Received:
    """One accepted mail as the server saw it."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    raw: bytes


@dataclass
class ScriptedHandler:
    """Records mail; ``rcpt_replies`` / ``data_replies`` force the next answers (FIFO)."""

    received: list[Received] = field(default_factory=list)
    rcpt_replies: deque[str] = field(default_factory=deque)
    data_replies: deque[str] = field(default_factory=deque)
    data_calls: int = 0
    ehlo_calls: int = 0
    auth_attempts: list[tuple[str, str]] = field(default_factory=list)
    hold_data: asyncio.Event | None = None  # DATA waits for it (a server that stalls)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_EHLO(
        self, server: SMTP, session: Session, envelope: Envelope, hostname: str, responses: Any
    ) -> Any:
        with self.lock:
            self.ehlo_calls += 1
        session.host_name = hostname  # aiosmtpd leaves this to an EHLO hook
        return responses

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        with self.lock:
            forced = self.rcpt_replies.popleft() if self.rcpt_replies else None
        if forced is not None and not forced.startswith("2"):
            return forced
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 Ok"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        with self.lock:
            self.data_calls += 1
            forced = self.data_replies.popleft() if self.data_replies else None
        if self.hold_data is not None:
            await self.hold_data.wait()
        if forced is not None and not forced.startswith("2"):
            return forced
        with self.lock:
            self.received.append(
                Received(
                    envelope.mail_from or "",
                    tuple(envelope.rcpt_tos),
                    bytes(envelope.original_content or b""),
                )
            )
        return "250 2.0.0 Ok: queued"

    def authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        assert isinstance(data, LoginPassword)
        login, password = data.login.decode(), data.password.decode()
        with self.lock:
            self.auth_attempts.append((login, password))
        ok = (login, password) == (USERNAME, PASSWORD)
        return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd answers 535

    def message_ids(self) -> Counter[str]:
        """How many times each Message-ID was accepted."""
        with self.lock:
            raws = [mail.raw for mail in self.received]
        return Counter(str(email.message_from_bytes(raw)["Message-ID"]) for raw in raws)


class SmtpServer:
    """An aiosmtpd Controller on 127.0.0.1 with a :class:`ScriptedHandler`."""

    def __init__(self, **kwargs: Any) -> None:
        self.handler = ScriptedHandler()
        self.host = "127.0.0.1"
        self.port = free_port()
        if kwargs.pop("auth", False):
            kwargs.setdefault("auth_require_tls", False)
            kwargs["authenticator"] = self.handler.authenticate
            kwargs["auth_required"] = True
        self._kwargs = kwargs
        self.controller = self._controller()

    def _controller(self) -> Controller:
        return Controller(
            self.handler, hostname=self.host, port=self.port, server_hostname="test", **self._kwargs
        )

    def restart(self) -> None:
        """Stop the server (dropping its connections) and start a new one on the same port."""
        self.controller.stop()
        self.controller = self._controller()
        self.controller.start()

    def release(self) -> None:
        """Let a held DATA answer (from the test's thread)."""
        hold = self.handler.hold_data
        if hold is not None and not self.controller.loop.is_closed():
            self.controller.loop.call_soon_threadsafe(hold.set)

    def hold(self) -> None:
        """Make every DATA wait until :meth:`release` (runs on the server's loop)."""

        async def make() -> None:
            self.handler.hold_data = asyncio.Event()

        asyncio.run_coroutine_threadsafe(make(), self.controller.loop).result(5)


@dataclass(frozen=True)
class Certificate:
    """A self-signed certificate for 127.0.0.1/localhost and contexts that use it."""

    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context

    def client_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.cert))


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 18, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta

    def set(self, moment: datetime) -> None:
        self.now = moment
