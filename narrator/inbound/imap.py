"""The IMAP poller (aioimaplib): stores new mail via the sink, then flags or moves it; IDLE or poll.

One connection at a time. Per pass: SELECT the mailbox, compare its UIDVALIDITY with the sync
state, fetch every message above the last handled UID (``BODY.PEEK[]``, so nothing is marked
read before it is committed), store it, then flag it ``\\Seen`` (or move it to ``move_to``) and
advance the last UID. Then wait for mail with IDLE when the server offers it, else sleep
``poll_interval``. Any connection error ends the session; it is retried with capped exponential
backoff and jitter. A storage failure leaves the message untouched on the server, so it is
fetched again on the next pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from ssl import SSLContext, create_default_context
from typing import Any, Protocol, TypeVar

from aioimaplib import IMAP4, STOP_WAIT_SERVER_PUSH, AioImapException, Response

from narrator.inbound.sink import UNLIMITED_RECEIVER_SIZE, InboxSink

log = logging.getLogger("narrator.inbound.imap")

T = TypeVar("T")

_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]")
_FETCH_START = re.compile(rb"^\d+ FETCH \(")
_UID = re.compile(rb"UID (\d+)")
_LITERAL = re.compile(rb"\{(\d+)\}$")


class ImapError(Exception):
    """The IMAP server refused a command (login, select, fetch, …); the session is restarted."""


class ConnectionLost(ImapError):
    """The connection to the IMAP server was lost or timed out."""


class StorageFailed(Exception):
    """The sink could not commit a fetched message; it stays unflagged on the server."""


class ImapSection(Protocol):
    """The config keys the poller reads (`narrator.config.ImapSection` has them)."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def ssl(self) -> bool: ...
    @property
    def username(self) -> str: ...
    @property
    def mailbox(self) -> str: ...

    def require_password(self) -> str: ...


@dataclass(frozen=True, slots=True)
class ImapSettings:
    """How to reach the mailbox, and the poller's timing.

    ``move_to``: move stored mail to this folder instead of flagging it ``\\Seen``.
    ``sync_key``: the name the sync state is kept under (default: the mailbox name).
    ``ssl_context``: for implicit TLS (``ssl=True``); default: the system's trust store.
    ``max_message_size``: only the first this many bytes of a larger message are fetched (as
    the SMTP receiver refuses such mail; the inbox answers it with its too-large reply).
    """

    host: str
    username: str
    password: str
    port: int = 993
    ssl: bool = True
    mailbox: str = "INBOX"
    move_to: str | None = None
    use_idle: bool = True
    idle_timeout: float = 29 * 60.0
    poll_interval: float = 60.0
    command_timeout: float = 60.0
    backoff_initial: float = 1.0
    backoff_max: float = 300.0
    sync_key: str | None = None
    ssl_context: SSLContext | None = None
    max_message_size: int = UNLIMITED_RECEIVER_SIZE

    @classmethod
    def from_config(cls, section: ImapSection, **overrides: Any) -> ImapSettings:
        """Build settings from the ``[inbound.imap]`` config section (password from its env)."""
        values: dict[str, Any] = {
            "host": section.host,
            "port": section.port,
            "ssl": section.ssl,
            "username": section.username,
            "password": section.require_password(),
            "mailbox": section.mailbox,
        }
        values.update(overrides)
        return cls(**values)

    @property
    def key(self) -> str:
        """The mailbox name the sync state and inbox rows are recorded under."""
        return self.sync_key or self.mailbox


def backoff_delay(attempt: int, initial: float, cap: float, rng: random.Random) -> float:
    """Return the wait before retry number ``attempt`` (0-based): exponential, capped, with
    "equal jitter" (between half and all of the capped delay, drawn from ``rng``)."""
    delay = min(cap, initial * 2.0 ** min(attempt, 32))
    return delay / 2 + rng.uniform(0, delay / 2)


def parse_fetch(lines: list[Any]) -> list[tuple[int, bytes]]:
    """Return ``(uid, literal)`` for each message in an aioimaplib FETCH response.

    The UID may be given before or after the literal; messages without a literal are skipped.
    """
    found: list[tuple[int, bytes]] = []
    uid: int | None = None
    literal: bytes | None = None
    in_message = False
    for line in lines:
        if isinstance(line, bytearray):
            literal = bytes(line)
            continue
        if not isinstance(line, bytes):
            continue
        if _FETCH_START.match(line):
            if in_message and uid is not None and literal is not None:
                found.append((uid, literal))
            in_message, uid, literal = True, None, None
        if in_message:
            match = _UID.search(line)
            if match and uid is None:
                uid = int(match.group(1))
    if in_message and uid is not None and literal is not None:
        found.append((uid, literal))
    return found


_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")


def _message_size(lines: list[Any]) -> int | None:
    """The RFC822.SIZE a FETCH response reports, if any."""
    for line in lines:
        if isinstance(line, bytes):
            match = _SIZE.search(line)
            if match:
                return int(match.group(1))
    return None


def parse_uids(lines: list[Any]) -> list[int]:
    """Return the UIDs of a (UID) SEARCH response, ascending."""
    uids: set[int] = set()
    for line in lines:
        if isinstance(line, bytes) and line[:1].isdigit():
            uids.update(int(token) for token in line.split() if token.isdigit())
    return sorted(uids)


def compact_uid_set(uids: list[int]) -> str:
    """Return an IMAP sequence set for ``uids`` with runs folded (``[1, 2, 3, 7]`` → ``1:3,7``)."""
    parts: list[str] = []
    ordered = sorted(set(uids))
    start = previous = ordered[0]
    for uid in [*ordered[1:], None]:
        if uid is not None and uid == previous + 1:
            previous = uid
            continue
        parts.append(str(start) if start == previous else f"{start}:{previous}")
        if uid is not None:
            start = previous = uid
    return ",".join(parts)


def parse_uidvalidity(response: Response) -> int:
    """Return the UIDVALIDITY announced in a SELECT response."""
    for line in response.lines:
        if isinstance(line, bytes):
            match = _UIDVALIDITY.search(line)
            if match:
                return int(match.group(1))
    raise ImapError("SELECT response carried no UIDVALIDITY")


class ImapPoller:
    """The poller as an async component: ``await start()`` … ``await stop()``.

    ``rng`` draws the backoff jitter. ``on_synced`` (tests, monitoring) is called after every
    completed pass over the mailbox.
    """

    def __init__(
        self,
        sink: InboxSink,
        settings: ImapSettings,
        *,
        rng: random.Random,
        on_synced: Callable[[], None] | None = None,
    ) -> None:
        self._sink = sink
        self._settings = settings
        self._rng = rng
        self._on_synced = on_synced
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.sessions = 0  # successful logins so far
        self.passes = 0  # completed passes over the mailbox

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The polling task while it runs."""
        return self._task

    async def start(self) -> None:
        """Start polling in a background task."""
        if self._task is None:
            self._stopping.clear()
            self._task = asyncio.create_task(self.run(), name="narrator.inbound.imap")

    async def stop(self, timeout: float = 10.0) -> None:
        """Finish the message in hand, leave IDLE, log out, and return."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping.set()
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            log.warning("IMAP poller did not stop within %.0fs; cancelling it", timeout)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        elif task.exception() is not None:
            log.error("IMAP poller ended with an error", exc_info=task.exception())

    async def __aenter__(self) -> ImapPoller:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def run(self) -> None:
        """Connect, sync, wait, repeat until stopped; reconnect with backoff on any failure."""
        settings = self._settings
        failures = 0
        while not self._stopping.is_set():
            session = _Session(settings)
            passes_before = self.passes
            try:
                await session.open()
                self.sessions += 1
                await self._serve(session)
            except StorageFailed as error:
                log.warning("%s; the message stays on the server and is fetched again", error)
            except (OSError, AioImapException, ImapError, TimeoutError) as error:
                log.warning("IMAP %s:%d: %s", settings.host, settings.port, _describe(error))
            except Exception:
                # A bug or a server reply we cannot parse must not end the poller for good.
                log.exception("IMAP %s:%d: unexpected error", settings.host, settings.port)
            finally:
                await session.close(logout=self._stopping.is_set())
            if self._stopping.is_set():
                break
            if self.passes > passes_before:
                failures = 0  # the session did useful work: start the backoff afresh
            delay = backoff_delay(
                failures, settings.backoff_initial, settings.backoff_max, self._rng
            )
            failures += 1
            log.info("IMAP: reconnecting in %.1fs (attempt %d)", delay, failures)
            await self._wait_stopping(delay)
        log.info("IMAP poller stopped")

    async def _serve(self, session: _Session) -> None:
        settings = self._settings
        while not self._stopping.is_set():
            session.drain_pushes()
            while await self._sync(session) and not self._stopping.is_set():
                pass  # something was new: look again before waiting (it may have raced us)
            self.passes += 1
            if self._on_synced is not None:
                self._on_synced()
            if self._stopping.is_set():
                return
            if settings.use_idle and session.has_capability("IDLE"):
                await session.idle(self._stopping, settings.idle_timeout)
            else:
                await session.race(self._wait_stopping(settings.poll_interval))

    async def _sync(self, session: _Session) -> bool:
        """Handle every message not yet handled; return whether there was any."""
        key = self._settings.key
        uidvalidity = session.uidvalidity
        last = await self._sink_call(self._sink.imap_last_uid(key, uidvalidity))
        if last is None:
            log.info("mailbox %r: new UIDVALIDITY %d; checking every message", key, uidvalidity)
            return await self._initial_sync(session)
        uids = [uid for uid in await session.search_uids(f"{last + 1}:*") if uid > last]
        for uid in uids:
            if self._stopping.is_set():
                break
            await self._take(session, uid)
        return bool(uids)

    async def _initial_sync(self, session: _Session) -> bool:
        """First pass under a UIDVALIDITY: fetch every message and let the sink tell a mail
        stored before (same Message-ID, sender and body: a duplicate, flagged and skipped) from
        another mail under a known Message-ID (stored as a mail of its own)."""
        key, uidvalidity = self._settings.key, session.uidvalidity
        uids = await session.search_uids("1:*")
        for uid in uids:
            if self._stopping.is_set():
                return True
            await self._take(session, uid)
        if not uids:
            await self._sink_call(self._sink.set_imap_last_uid(key, uidvalidity, 0))
        return bool(uids)

    async def _take(self, session: _Session, uid: int) -> None:
        """Fetch, store (commit), then flag/move, then advance the last UID."""
        key, uidvalidity = self._settings.key, session.uidvalidity
        raw = await session.fetch_message(uid)
        if raw is None:
            log.info("UID %d vanished before it was fetched", uid)
            await self._sink_call(self._sink.set_imap_last_uid(key, uidvalidity, uid))
            return
        try:
            result = await self._sink.store(
                raw, source="imap", mailbox=key, uidvalidity=uidvalidity, uid=uid
            )
        except Exception as error:
            raise StorageFailed(f"could not store UID {uid} of {key!r}: {error}") from error
        if result.duplicate:
            log.info("UID %d (%s): already stored", uid, result.message_id)
        else:
            log.info("UID %d (%s): stored as inbox %d", uid, result.message_id, result.inbox_id)
        await session.mark_handled(uid)
        await self._sink_call(self._sink.set_imap_last_uid(key, uidvalidity, uid))

    @staticmethod
    async def _sink_call(call: Awaitable[T]) -> T:
        try:
            return await call
        except Exception as error:
            raise StorageFailed(f"inbox not available: {error}") from error

    async def _wait_stopping(self, delay: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), delay)


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class _Session:
    """One connection: login, select, and the few commands the poller needs, each of which
    fails fast with ConnectionLost when the connection drops."""

    def __init__(self, settings: ImapSettings) -> None:
        self._settings = settings
        self._lost = asyncio.Event()
        self._client: IMAP4 | None = None
        self.uidvalidity = 0

    async def open(self) -> None:
        settings = self._settings
        context = None
        if settings.ssl:
            context = settings.ssl_context or create_default_context()
        self._client = IMAP4(
            settings.host,
            settings.port,
            timeout=settings.command_timeout,
            conn_lost_cb=self._connection_lost,
            ssl_context=context,
        )
        client = self._client
        await self.race(client.wait_hello_from_server())
        login = await self.race(client.login(settings.username, settings.password))
        if login.result != "OK":
            raise ImapError(f"login as {settings.username!r} refused: {_text(login)}")
        selected = await self.race(client.select(_quote(settings.mailbox)))
        if selected.result != "OK":
            raise ImapError(f"cannot select {settings.mailbox!r}: {_text(selected)}")
        self.uidvalidity = parse_uidvalidity(selected)
        log.info(
            "IMAP %s:%d: logged in as %r, mailbox %r (UIDVALIDITY %d)",
            settings.host,
            settings.port,
            settings.username,
            settings.mailbox,
            self.uidvalidity,
        )

    def _connection_lost(self, error: Exception | None) -> None:
        self._lost.set()

    @property
    def client(self) -> IMAP4:
        assert self._client is not None
        return self._client

    def has_capability(self, name: str) -> bool:
        return bool(self.client.has_capability(name))

    async def race(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable`` unless the connection drops first (then raise ConnectionLost)."""
        if self._lost.is_set():
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            raise ConnectionLost("connection lost")
        task = asyncio.ensure_future(awaitable)
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            await asyncio.wait({task, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if task.cancelled():
            raise ConnectionLost("connection lost")
        return task.result()

    async def command(self, awaitable: Awaitable[Response], what: str) -> Response:
        response = await self.race(awaitable)
        if response.result != "OK":
            raise ImapError(f"{what} failed: {response.result} {_text(response)}")
        return response

    async def search_uids(self, uid_range: str) -> list[int]:
        response = await self.command(
            self.client.uid_search("UID", uid_range, charset=None), f"UID SEARCH UID {uid_range}"
        )
        return parse_uids(response.lines)

    async def fetch_message(self, uid: int) -> bytes | None:
        """The message (at most ``max_message_size`` bytes of it: a partial fetch), or None."""
        limit = self._settings.max_message_size
        response = await self.command(
            self.client.uid("fetch", str(uid), f"(UID RFC822.SIZE BODY.PEEK[]<0.{limit}>)"),
            f"UID FETCH {uid}",
        )
        for found_uid, raw in parse_fetch(response.lines):
            if found_uid == uid:
                size = _message_size(response.lines)
                if size is not None and size > len(raw):
                    log.warning(
                        "UID %d is %d bytes, over the limit of %d: only its first %d are kept",
                        uid,
                        size,
                        limit,
                        len(raw),
                    )
                return raw
        return None

    async def mark_handled(self, uid: int) -> None:
        """Flag ``\\Seen``, or move to ``move_to`` (MOVE, else COPY + \\Deleted + UID EXPUNGE)."""
        client, target = self.client, self._settings.move_to
        if target is None:
            await self.command(client.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen)"), "STORE")
            return
        if client.has_capability("MOVE"):
            await self.command(client.uid("move", str(uid), _quote(target)), "UID MOVE")
            return
        await self.command(client.uid("copy", str(uid), _quote(target)), "UID COPY")
        await self.command(
            client.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen \Deleted)"), "STORE"
        )
        if client.has_capability("UIDPLUS"):
            await self.command(client.uid("expunge", str(uid)), "UID EXPUNGE")

    def drain_pushes(self) -> None:
        """Forget IDLE notifications already received (the next pass looks anyway)."""
        queue = self.client.protocol.idle_queue
        while not queue.empty():
            queue.get_nowait()

    async def idle(self, stopping: asyncio.Event, timeout: float) -> None:
        """IDLE until the server reports a change, ``timeout`` passes, or ``stopping`` is set."""
        client = self.client
        idle = await self.race(client.idle_start(timeout=timeout))
        push = asyncio.ensure_future(client.wait_server_push(timeout=timeout + 5))
        stop = asyncio.ensure_future(stopping.wait())
        try:
            await self.race(asyncio.wait({push, stop}, return_when=asyncio.FIRST_COMPLETED))
        finally:
            stop.cancel()
            if not push.done():
                push.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await push
        if push.done() and not push.cancelled() and push.exception() is None:
            pushed = push.result()
            log.debug("IDLE: %s", "timed out" if pushed == STOP_WAIT_SERVER_PUSH else pushed)
        if client.has_pending_idle():
            client.idle_done()
        await self.race(asyncio.wait_for(idle, self._settings.command_timeout))

    async def close(self, *, logout: bool) -> None:
        """Log out (when asked and still connected), then close the connection."""
        client = self._client
        if client is None:
            return
        if logout and not self._lost.is_set() and client.protocol.transport is not None:
            with contextlib.suppress(Exception):
                if client.has_pending_idle():
                    client.idle_done()
                await self.race(asyncio.wait_for(client.logout(), 5.0))
        transport = client.protocol.transport
        if transport is not None:
            transport.close()
        if not client._client_task.done():
            client._client_task.cancel()
        with contextlib.suppress(BaseException):
            await client._client_task
        if client._idle_waiter is not None:
            client._idle_waiter.cancel()
        leftovers = [t for t in (*client.tasks, *client.protocol.tasks) if not t.done()]
        for task in leftovers:
            task.cancel()
        if leftovers:
            await asyncio.wait(leftovers, timeout=1.0)
        if transport is not None and not self._lost.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), 1.0)


def _text(response: Response) -> str:
    parts = [line.decode(errors="replace") for line in response.lines if isinstance(line, bytes)]
    return " ".join(parts)[:300]


def _quote(mailbox: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_.\-/]+", mailbox):
        return mailbox
    escaped = mailbox.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
