"""The built-in SMTP/LMTP receiver (aiosmtpd): answers 250 only once the mail is committed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from narrator.inbound.sink import (
    InboxSink,
    receiver_size_limit,
)
from narrator.outages import log_failure

if TYPE_CHECKING:
    from narrator.config import Config as NarratorConfig

log = logging.getLogger("narrator.inbound.smtp")

DEFAULT_MAX_MESSAGE_SIZE = 2 * 10 * 1024 * 1024  # for the default max_message_bytes, 10 MiB

STORED = "250 2.0.0 Ok: stored"
ALREADY_STORED = "250 2.0.0 Ok: already stored"
TEMPORARY_FAILURE = "451 4.3.0 Temporary storage failure, please try again later"
UNKNOWN_RECIPIENT = "550 5.1.1 No such recipient here"
RECIPIENT_OK = "250 2.1.5 Ok"


@dataclass(frozen=True, slots=True)
class SmtpSettings:
    """Where the receiver listens and what it accepts.

    ``addresses`` are the narrator's own addresses; a recipient matches one when equal ignoring
    case, also with a ``+detail`` after the local part (``verteller+ww5@…``). ``port=0`` binds
    a free port (see :attr:`SmtpReceiver.port`). ``lmtp`` speaks LMTP (RFC 2033) instead of SMTP,
    for an MTA that hands mail over by LMTP.
    """

    addresses: tuple[str, ...]
    host: str = "127.0.0.1"
    port: int = 8025
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    lmtp: bool = False
    hostname: str = "localhost"

    @classmethod
    def from_config(cls, config: NarratorConfig, **overrides: Any) -> SmtpSettings:
        """Build settings from the config: ``[inbound.smtp]`` host/port/lmtp, the narrator's
        address, the size limit of :func:`receiver_size_limit`."""
        values: dict[str, Any] = {
            "addresses": (config.narrator.address,),
            "host": config.inbound.smtp.host,
            "port": config.inbound.smtp.port,
            "lmtp": config.inbound.smtp.lmtp,
            "max_message_size": receiver_size_limit(config.security.max_message_bytes),
            "hostname": config.narrator.address.rpartition("@")[2] or "localhost",
        }
        values.update(overrides)
        return cls(**values)


def is_narrator_address(address: str, addresses: Iterable[str]) -> bool:
    """Return whether ``address`` (an envelope recipient) is one of ``addresses``.

    Comparison ignores case and a ``+detail`` suffix of the recipient's local part.
    """
    wanted = {a.strip().lower() for a in addresses}
    candidate = address.strip().strip("<>").lower()
    if candidate in wanted:
        return True
    local, at, domain = candidate.rpartition("@")
    if not at or "+" not in local:
        return False
    base = local.split("+", 1)[0]
    return f"{base}@{domain}" in wanted


def envelope_sender(mail_from: str | None) -> str:
    """Return the envelope sender without angle brackets (``""`` for the null sender)."""
    return (mail_from or "").strip().removeprefix("<").removesuffix(">")


def with_trace_headers(content: bytes, mail_from: str | None, rcpt_tos: Iterable[str]) -> bytes:
    """Return ``content`` with ``Return-Path`` and ``Delivered-To`` prepended, as a final
    delivery agent does (RFC 5321 §4.4); the parser uses them to spot bounces and plus-addresses.
    """
    lines = [f"Return-Path: <{envelope_sender(mail_from)}>"]
    lines += [f"Delivered-To: {rcpt}" for rcpt in rcpt_tos]
    prefix = "".join(f"{line}\r\n" for line in lines)
    return prefix.encode("utf-8", errors="surrogateescape") + content


class InboxHandler:
    """aiosmtpd handler: accepts mail for the narrator's addresses and stores it via the sink."""

    def __init__(self, sink: InboxSink, addresses: Iterable[str], *, lmtp: bool = False) -> None:
        self._sink = sink
        self._addresses = tuple(addresses)
        self._lmtp = lmtp

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        """Accept only the narrator's own addresses (``550 5.1.1`` otherwise)."""
        if not is_narrator_address(address, self._addresses):
            log.info("refused recipient %r from %s", address, session.peer)
            return UNKNOWN_RECIPIENT
        envelope.rcpt_tos.append(address)
        return RECIPIENT_OK

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Store the message; ``250`` only after the commit, ``451 4.3.0`` if it failed."""
        content = envelope.original_content or b""
        raw = with_trace_headers(content, envelope.mail_from, envelope.rcpt_tos)
        try:
            result = await self._sink.store(
                raw, source="smtp", envelope_from=envelope_sender(envelope.mail_from)
            )
        except Exception as error:
            what = f"could not store mail from {envelope.mail_from!r} ({len(raw)} bytes)"
            log_failure(log, error, what, "answered 451")
            status = TEMPORARY_FAILURE
        else:
            if result.duplicate:
                log.info(
                    "duplicate %s from %r: already stored", result.message_id, envelope.mail_from
                )
                status = ALREADY_STORED
            else:
                log.info(
                    "stored %s from %r as inbox %d",
                    result.message_id,
                    envelope.mail_from,
                    result.inbox_id,
                )
                status = STORED
        if self._lmtp:
            # LMTP answers DATA once per accepted recipient (RFC 2033 §4.2).
            return "\r\n".join(status for _ in envelope.rcpt_tos)
        return status


class SmtpReceiver:
    """The receiver as an async component: `await start()`, `await stop()`, or `async with`."""

    def __init__(self, sink: InboxSink, settings: SmtpSettings) -> None:
        self._sink = sink
        self._settings = settings
        self._server: asyncio.Server | None = None
        self._connections: set[SMTP] = set()

    @property
    def port(self) -> int:
        """The port actually bound (useful with ``port=0``); raises if not started."""
        if self._server is None:
            raise RuntimeError("SMTP receiver is not started")
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self) -> None:
        """Bind and start accepting connections."""
        if self._server is not None:
            return
        loop = asyncio.get_running_loop()
        settings = self._settings
        handler = InboxHandler(self._sink, settings.addresses, lmtp=settings.lmtp)
        protocol_class = _TrackedLMTP if settings.lmtp else _TrackedSMTP

        def factory() -> SMTP:
            return protocol_class(
                self._connections,
                handler,
                data_size_limit=settings.max_message_size,
                enable_SMTPUTF8=True,
                hostname=settings.hostname,
                ident="narrator",
                loop=loop,
            )

        self._server = await loop.create_server(factory, settings.host, settings.port)
        log.info(
            "%s receiver listening on %s:%d",
            "LMTP" if settings.lmtp else "SMTP",
            settings.host,
            self.port,
        )

    async def stop(self) -> None:
        """Stop listening and close open sessions (a mail in DATA is not acknowledged, so the
        client keeps it and retries)."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        handlers = [c._handler_coroutine for c in self._connections if c._handler_coroutine]
        for connection in list(self._connections):
            if connection.transport is not None:
                connection.transport.close()
        await server.wait_closed()
        if handlers:
            await asyncio.wait(handlers, timeout=5.0)
        log.info("receiver stopped")

    async def __aenter__(self) -> SmtpReceiver:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


class _TrackedSMTP(SMTP):
    """An SMTP session that registers itself so the receiver can close it on stop."""

    def __init__(self, registry: set[SMTP], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._registry = registry

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._registry.add(self)
        super().connection_made(transport)

    def connection_lost(self, error: Exception | None) -> None:
        super().connection_lost(error)
        self._registry.discard(self)


class _TrackedLMTP(_TrackedSMTP, LMTP):
    """An LMTP session that registers itself so the receiver can close it on stop."""
