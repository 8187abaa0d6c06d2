"""Mail transports: SMTP submission (STARTTLS / implicit TLS, AUTH) and a Maildir for dev mode.

A transport hands one message to one recipient and either returns (the server took
responsibility for it) or raises :class:`TemporaryFailure` (try again later: 4xx replies,
timeouts, refused or reset connections; its subclass :class:`ServerUnavailable` when the
server cannot take any mail at the moment: unreachable, 421, a refused login) or
:class:`PermanentFailure` (this message to this recipient will never be accepted: a 5xx reply to
``RCPT TO`` or ``DATA``, or a 552 "too big" to ``MAIL FROM``).

Problems that say nothing about the message itself, such as a 5xx greeting, a refused login or
a server without STARTTLS when STARTTLS is required, are *temporary*: they need an operator, and
the mail must wait in the outbox for the fix instead of being marked failed.

A :class:`GroupTransport` (the Maildir) also takes a whole group of mails at once
(:meth:`GroupTransport.send_group`): one hand-off to a worker thread and one ``fsync`` of the
Maildir's ``new/`` for the group instead of one per mail.  A :class:`BlockingGroupTransport`
(the Maildir too) also does it in the caller's own thread (``deliver_group``), so that the
sender's worker thread can mark the group sent right after it, with no second hand-off.
SMTP stays one mail at a time: the sender writes each accepted mail to its send journal and
marks it sent before the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import smtplib
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from ssl import SSLContext, create_default_context
from typing import Protocol, runtime_checkable

from narrator.config import OutboundSection, SmtpSubmissionSection
from narrator.outbound.compose import check_address

DEFAULT_TIMEOUT = 30.0


class DeliveryError(Exception):
    """A message was not handed over; ``code`` is the SMTP reply code when there was one."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class TemporaryFailure(DeliveryError):
    """Not delivered now; the same message may succeed later (4xx, timeout, connection trouble)."""


class ServerUnavailable(TemporaryFailure):
    """The server can't take any mail now (unreachable, 421, refused login or sender, no TLS).

    Says nothing about the message: the outbox sender stops its pass rather than try the rest.
    """


class PermanentFailure(DeliveryError):
    """Refused for good for this recipient (5xx to RCPT/DATA): do not retry."""


class Transport(Protocol):
    """Where outgoing mail goes: ``send`` returns once accepted, or raises a DeliveryError."""

    async def send(self, sender: str, recipient: str, message: bytes) -> None:
        """Hand ``message`` (CRLF bytes) over for ``recipient``, envelope sender ``sender``."""
        ...

    async def close(self) -> None:
        """Release connections and threads; the transport is not used afterwards."""
        ...


@dataclass(frozen=True, slots=True)
class Delivery:
    """One mail of a group handed to a :class:`GroupTransport`.

    ``first_claim``: the outbox row is being sent for the first time (its first claim), so no
    earlier attempt can have delivered it and the transport need not look for it first.
    """

    recipient: str
    message: bytes
    first_claim: bool = False


#: What became of one mail of a group: None (accepted, and durable), or the error.
Outcome = Exception | None


@runtime_checkable
class GroupTransport(Transport, Protocol):
    """A transport that also takes many mails at once (the Maildir)."""

    async def send_group(self, sender: str, mails: Sequence[Delivery]) -> list[Outcome]:
        """Hand `mails` over in order, envelope sender `sender`; one outcome per mail tried.

        A mail whose outcome is None is accepted and durable when this returns.  When the last
        outcome is a :class:`ServerUnavailable` the mails after it were not tried (the list is
        shorter than `mails`).
        """
        ...


@runtime_checkable
class BlockingGroupTransport(GroupTransport, Protocol):
    """A group transport that also delivers a group in the calling (worker) thread."""

    def deliver_group(self, sender: str, mails: Sequence[Delivery]) -> list[Outcome]:
        """:meth:`GroupTransport.send_group`, blocking: for a caller in a worker thread (never
        the event loop's), which may mark the accepted mails sent as soon as it returns."""
        ...


@dataclass(frozen=True, slots=True)
class SmtpSettings:
    """How to reach the submission server (config ``[outbound.smtp]``)."""

    host: str
    port: int = 587
    starttls: bool = True
    ssl: bool | None = None  # None: implicit TLS exactly when port == 465
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    local_hostname: str | None = None
    tls_context: SSLContext | None = field(default=None, repr=False, compare=False)

    @property
    def implicit_tls(self) -> bool:
        """True when the connection is TLS from the first byte (SMTPS, usually port 465)."""
        return self.port == 465 if self.ssl is None else self.ssl

    @classmethod
    def from_section(cls, section: SmtpSubmissionSection) -> SmtpSettings:
        """Settings from the loaded ``[outbound.smtp]`` table (password already read from env).

        Port 465 always means implicit TLS (STARTTLS cannot work there); an empty username
        means no AUTH; ``timeout`` bounds each wait for the server.  Raises ``ConfigError``
        when a username is set but its password environment variable is not.
        """
        implicit = section.ssl or section.port == 465
        username = section.username or None
        return cls(
            host=section.host,
            port=section.port,
            starttls=section.starttls and not implicit,
            ssl=implicit,
            username=username,
            password=section.require_password() if username is not None else None,
            timeout=section.timeout.total_seconds(),
        )


def transport_from_config(outbound: OutboundSection) -> SmtpTransport | MaildirTransport:
    """The transport ``[outbound]`` asks for: SMTP submission, or the Maildir (the default)."""
    if outbound.mode == "smtp":
        return SmtpTransport(SmtpSettings.from_section(outbound.smtp))
    return MaildirTransport(outbound.maildir)


class SmtpTransport:
    """SMTP submission over one reused connection, run by one worker thread (blocking smtplib).

    All smtplib calls go through a single-thread executor, so the connection is never used by
    two threads at once, even when an awaiting task is cancelled mid-send.  A reused connection
    is checked with ``NOOP`` first and reopened when the server has dropped it.
    """

    def __init__(self, settings: SmtpSettings) -> None:
        self._settings = settings
        self._client: smtplib.SMTP | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="narrator-smtp")

    async def send(self, sender: str, recipient: str, message: bytes) -> None:
        """Submit ``message``; raises :class:`TemporaryFailure` or :class:`PermanentFailure`."""
        check_address(sender)
        check_address(recipient)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._send, sender, recipient, message)

    async def close(self) -> None:
        """Say QUIT (best effort), close the socket and stop the worker thread."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._disconnect, True)
        self._executor.shutdown(wait=True)

    # -- worker thread only ------------------------------------------------------------------

    def _send(self, sender: str, recipient: str, message: bytes) -> None:
        client = self._connect()
        try:
            refused = client.sendmail(sender, [recipient], message)
        except smtplib.SMTPRecipientsRefused as error:
            code, text = error.recipients.get(recipient, (None, b""))
            raise _classify(code, text, f"recipient {recipient} refused") from error
        except smtplib.SMTPSenderRefused as error:
            if error.smtp_code == 552:
                raise PermanentFailure(
                    _reply("message refused at MAIL FROM", error.smtp_code, error.smtp_error),
                    error.smtp_code,
                ) from error
            self._disconnect(False)
            raise ServerUnavailable(
                _reply(f"sender {sender} refused", error.smtp_code, error.smtp_error),
                error.smtp_code,
            ) from error
        except smtplib.SMTPDataError as error:
            raise _classify(error.smtp_code, error.smtp_error, "message refused") from error
        except (
            smtplib.SMTPResponseException
        ) as error:  # e.g. HELO refused: the session, not the mail
            self._disconnect(False)
            raise ServerUnavailable(
                _reply("SMTP error", error.smtp_code, error.smtp_error), error.smtp_code
            ) from error
        except (smtplib.SMTPException, OSError) as error:
            self._disconnect(False)
            raise TemporaryFailure(f"SMTP connection failed: {_describe(error)}") from error
        if refused:  # cannot happen with one recipient, but never report a refusal as success
            code, text = refused[recipient]
            raise _classify(code, text, f"recipient {recipient} refused")

    def _connect(self) -> smtplib.SMTP:
        if self._client is not None:
            try:
                code, _ = self._client.noop()
            except (smtplib.SMTPException, OSError):
                code = 0
            if code == 250:
                return self._client
            self._disconnect(False)
        settings = self._settings
        client: smtplib.SMTP | None = None
        try:
            if settings.implicit_tls:
                client = smtplib.SMTP_SSL(
                    local_hostname=settings.local_hostname,
                    timeout=settings.timeout,
                    context=self._tls_context(),
                )
            else:
                client = smtplib.SMTP(
                    local_hostname=settings.local_hostname, timeout=settings.timeout
                )
            # smtplib only records the host (for SNI and the certificate check) when connecting
            # from its constructor, whose failures leak the socket; so connect() and set it here.
            client._host = settings.host  # type: ignore[attr-defined]
            code, greeting = client.connect(settings.host, settings.port)
            if code != 220:
                raise smtplib.SMTPConnectError(code, greeting)
            client.ehlo()
            if settings.starttls and not settings.implicit_tls:
                if not client.has_extn("starttls"):
                    raise ServerUnavailable(
                        f"{settings.host}:{settings.port} does not offer STARTTLS "
                        "(required by [outbound.smtp] starttls)"
                    )
                client.starttls(context=self._tls_context())
                client.ehlo()
            if settings.username is not None:
                client.login(settings.username, settings.password or "")
        except TemporaryFailure:
            _close_quietly(client)
            raise
        except smtplib.SMTPResponseException as error:
            _close_quietly(client)
            raise ServerUnavailable(
                _reply(
                    f"cannot start a session with {settings.host}:{settings.port}",
                    error.smtp_code,
                    error.smtp_error,
                ),
                error.smtp_code,
            ) from error
        except (smtplib.SMTPException, OSError) as error:
            _close_quietly(client)
            raise ServerUnavailable(
                f"cannot connect to {settings.host}:{settings.port}: {_describe(error)}"
            ) from error
        self._client = client
        return client

    def _tls_context(self) -> SSLContext:
        return self._settings.tls_context or create_default_context()

    def _disconnect(self, polite: bool) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        if polite:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                client.quit()
        _close_quietly(client)


def _close_quietly(client: smtplib.SMTP | None) -> None:
    if client is not None:
        with contextlib.suppress(OSError):
            client.close()


def _classify(code: int | None, text: bytes | str, what: str) -> DeliveryError:
    if code is not None and 500 <= code < 600:
        return PermanentFailure(_reply(what, code, text), code)
    if code == 421:  # "service not available, closing channel": the server, not this mail
        return ServerUnavailable(_reply(what, code, text), code)
    return TemporaryFailure(_reply(what, code, text), code)


def _reply(what: str, code: int | None, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = " ".join(text.split())
    return f"{what}: {code} {text}".rstrip() if code is not None else f"{what}: {text}"


def _describe(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "timed out"
    return str(error) or type(error).__name__


class MaildirTransport:
    """Dev mode: each mail becomes a file in a Maildir (``new/``, written to ``tmp/`` first).

    Like a delivery agent it prepends ``Return-Path`` and ``Delivered-To``, so that tests and
    developers can tell whose mailbox a file belongs to, and stores LF line ends.  Each file is
    fsynced, and the ``new/`` directory once per group (:meth:`send_group`; :meth:`send` is a
    group of one), before the mails are reported delivered.

    The file's name is derived from the mail (its recipient and Message-ID, one outbox row's),
    and a mail whose file is already in ``new/`` or ``cur/`` is not written again: a mail sent
    again after a crash (between the write and the outbox's "sent") is never doubled.  Only a
    mail on its first claim (:attr:`Delivery.first_claim`), which no earlier attempt can have
    written, is written without looking.  A write that fails leaves nothing in ``tmp/``.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = Path(path)
        # An existing but empty (or half-made) Maildir gets its folders too.
        for folder in ("tmp", "new", "cur"):
            with contextlib.suppress(OSError):  # reported by the first write, with the mail
                (self._path / folder).mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # one group written at a time (by whichever thread)

    @property
    def path(self) -> Path:
        """The Maildir's root (holding ``cur``, ``new`` and ``tmp``)."""
        return self._path

    async def send(self, sender: str, recipient: str, message: bytes) -> None:
        """Write the mail into ``new/`` unless it is there already (or in ``cur/``); raises
        :class:`ServerUnavailable` on an OS error, ValueError for an unsafe address."""
        (outcome,) = await self.send_group(sender, [Delivery(recipient, message)])
        if outcome is not None:
            raise outcome

    async def send_group(self, sender: str, mails: Sequence[Delivery]) -> list[Outcome]:
        """Write the mails into ``new/``, one worker-thread hand-off and one directory fsync
        for all (see :meth:`GroupTransport.send_group`).  A mail with an unsafe address gets
        its ValueError; an OS error stops the group with a :class:`ServerUnavailable`."""
        return await asyncio.to_thread(self.deliver_group, sender, mails)

    def deliver_group(self, sender: str, mails: Sequence[Delivery]) -> list[Outcome]:
        """:meth:`send_group` in the calling (worker) thread."""
        files: list[_MaildirFile | ValueError] = []
        for mail in mails:
            try:
                envelope = (
                    f"Return-Path: <{check_address(sender)}>\n"
                    f"Delivered-To: {check_address(mail.recipient)}\n"
                ).encode("ascii")
            except ValueError as error:
                files.append(error)
                continue
            data = envelope + mail.message.replace(b"\r\n", b"\n")
            name = maildir_name(mail.recipient, mail.message)
            files.append(_MaildirFile(name, data, mail.first_claim))
        with self._lock:
            return self._deliver(files)

    async def close(self) -> None:
        """Nothing to release (present for the Transport interface)."""

    def is_delivered(self, name: str) -> bool:
        """Whether the mail of file name `name` is in ``new/`` or (read) in ``cur/``."""
        return name in self._delivered([name])

    def _delivered(self, names: Sequence[str]) -> set[str]:
        """Which of `names` are in ``new/`` or in ``cur/`` (where a reader moves a file,
        appending ``:2,`` and flags): ``new/`` by name, ``cur/`` in one listing for all."""
        found = {name for name in names if os.path.lexists(self._path / "new" / name)}
        wanted = set(names) - found
        if wanted:
            lengths = {len(name) for name in wanted}
            with os.scandir(self._path / "cur") as entries:
                for entry in entries:
                    found.update(entry.name[:n] for n in lengths if entry.name[:n] in wanted)
        return found

    def _deliver(self, files: Sequence[_MaildirFile | ValueError]) -> list[Outcome]:
        new = os.path.join(self._path, "new")
        outcomes: list[Outcome] = []
        durable_needed = False  # a file was linked into new/ (or found there): fsync new/
        try:
            again = [f.name for f in files if isinstance(f, _MaildirFile) and not f.first_claim]
            there = self._delivered(again) if again else set()
            for file in files:
                if isinstance(file, ValueError):
                    outcomes.append(file)
                    continue
                if file.name not in there:
                    self._write(file, new)
                durable_needed = True
                outcomes.append(None)
        except OSError as error:
            outcomes.append(self._unavailable(error))
        if durable_needed:
            try:
                directory = os.open(new, os.O_RDONLY)
                try:
                    os.fsync(directory)
                finally:
                    os.close(directory)
            except OSError as error:
                # Nothing of the group is known durable: the first mail is retried, the rest
                # handed back (found in new/ then, not written twice).
                return [self._unavailable(error)]
        return outcomes

    def _write(self, file: _MaildirFile, new: str) -> None:
        """Write `file` to ``tmp/``, fsync it, link it into `new` (``new/``); by plain file
        descriptors and path strings (a mail's writing costs no buffered file object)."""
        temporary = os.path.join(self._path, "tmp", file.name)
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            try:
                data = memoryview(file.data)
                while data:  # a write may take less than it was given
                    data = data[os.write(descriptor, data) :]
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            with contextlib.suppress(FileExistsError):  # another sender of the row was first
                os.link(temporary, os.path.join(new, file.name))
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _unavailable(self, error: OSError) -> ServerUnavailable:
        unavailable = ServerUnavailable(f"cannot write to Maildir {self._path}: {error}")
        unavailable.__cause__ = error
        return unavailable


@dataclass(frozen=True, slots=True)
class _MaildirFile:
    """One mail of a group as its Maildir file: name, bytes, whether on its first claim."""

    name: str
    data: bytes
    first_claim: bool


_MESSAGE_ID_LINE = re.compile(rb"^message-id:[ \t]*(<[^>\r\n]*>)", re.IGNORECASE | re.MULTILINE)


def maildir_name(recipient: str, message: bytes) -> str:
    """The Maildir file name of one outbox mail: a digest of its recipient and Message-ID
    (every outbox row has its own), else of its bytes."""
    head = message.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    found = _MESSAGE_ID_LINE.search(head)
    key = found.group(1) if found else hashlib.sha256(message).hexdigest().encode()
    digest = hashlib.sha256(recipient.strip().lower().encode() + b"\0" + key).hexdigest()
    return f"narrator.{digest[:40]}"
