"""A real aiosmtpd server on loopback that records what it receives, for tests of mail senders."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.support.net import free_port


@dataclass(frozen=True)
class ReceivedMail:
    """One accepted message: envelope and the raw bytes as received."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    raw: bytes


@dataclass
class CaptureHandler:
    """aiosmtpd handler that records mail; ``replies`` forces the answer to the next DATAs
    (e.g. ``"451 4.3.0 try later"``, ``"550 5.1.1 no such user"``); empty means ``250``."""

    received: list[ReceivedMail] = field(default_factory=list)
    replies: deque[str] = field(default_factory=deque)
    data_calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Record the mail (unless a forced reply says otherwise) and answer."""
        with self._lock:
            self.data_calls += 1
            forced = self.replies.popleft() if self.replies else None
            if forced is not None and not forced.startswith("2"):
                return forced
            self.received.append(
                ReceivedMail(
                    envelope.mail_from or "",
                    tuple(envelope.rcpt_tos),
                    bytes(envelope.original_content or b""),
                )
            )
        return forced or "250 2.0.0 Ok: queued"


class SmtpCapture:
    """An aiosmtpd server in a background thread on 127.0.0.1 (a free port); sync API.

    ``with SmtpCapture() as smtp: ... smtp.wait_for(3)``; ``smtp.handler.replies.append("451 …")``
    makes the next DATA fail temporarily.
    """

    def __init__(self, hostname: str = "127.0.0.1", **smtp_kwargs: object) -> None:
        self.handler = CaptureHandler()
        self.host = hostname
        self.port = free_port()
        self._controller = Controller(
            self.handler,
            hostname=hostname,
            port=self.port,
            server_hostname="capture",
            **smtp_kwargs,
        )

    @property
    def received(self) -> list[ReceivedMail]:
        """Mail accepted so far."""
        return list(self.handler.received)

    def start(self) -> None:
        """Start the server thread."""
        self._controller.start()

    def stop(self) -> None:
        """Stop the server thread (the controller closes its loop)."""
        self._controller.stop()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[ReceivedMail]:
        """Wait until at least ``count`` mails were accepted; return them."""
        deadline = time.monotonic() + timeout
        while len(self.handler.received) < count:
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"expected {count} mails, got {len(self.handler.received)} in {timeout}s"
                )
            time.sleep(0.01)  # polling another thread's progress; bounded by the deadline
        return self.received

    def __enter__(self) -> SmtpCapture:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
