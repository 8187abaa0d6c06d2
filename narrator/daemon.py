"""The narrator daemon: receivers, inbox worker, deadline scheduler and outbox sender in one loop.

Assembled from the configuration by :class:`Daemon`:

- inbound: the SMTP (or LMTP) receiver (on by default, 127.0.0.1:8025) and/or the IMAP poller, both
  committing raw mail through one :class:`~narrator.inbound.dbsink.DbSink`, whose ``on_stored``
  wakes the inbox worker;
- the inbox worker: runs :func:`~narrator.service.inbox.process_pending` in a thread shortly
  after it is woken, once the mail arriving close together is gathered for one pass
  (:class:`Gathering`: until the mail is quiet for 0.1 s, 0.3 s at most, or a batch is full),
  and every ``inbox_interval`` seconds (mail stored by ``narrator inject`` or another process),
  queueing its replies already claimed by the sender (this daemon's owner id and lease), then
  hands the sender those mails to deliver (no claim pass of its own) and, when a game's deadline
  or status changed (a vote closed a step early), re-reads the deadlines;
- the :class:`~narrator.scheduler.DeadlineScheduler` (APScheduler): deadlines and reminders,
  and the closing digests of players' Help floods once their hour is over;
- the :class:`~narrator.outbound.sender.OutboxSender`: the Maildir (default) or SMTP submission;
  its claims carry this daemon's owner id: at start it takes back every claim of a dead
  predecessor (SQLite), or holds an advisory lock and takes back the claims of owners whose
  lock is gone every second (PostgreSQL, :mod:`narrator.outbound.leases`);
- the game pages (``[web]``, :mod:`narrator.web`): Starlette under uvicorn, in the same loop,
  reading the database in worker threads, with the stories the mailer renders;
- the :class:`~narrator.changes.ChangeWatcher`: when an admin command commits (``game start``,
  ``close-step``, ``pause``, ``stories add``...), it wakes the sender and the inbox worker and
  re-reads the deadlines and the stories at once, within a second.

Stories are rendered from the stories table (looked at every ``stories_max_age`` seconds and
re-read when it changed, see :meth:`~narrator.service.mailer.Mailer.reload`), over the shipped
packs for keys it lacks.
The database is migrated on start.
:func:`serve` runs a daemon until SIGTERM or SIGINT and then stops it cleanly: receivers first
(a mail in transit is not acknowledged, so its sender retries), then the worker, the scheduler
(running jobs finish their transaction) and the sender.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import random
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import QueuePool

from narrator.changes import ChangeWatcher
from narrator.config import Config
from narrator.db import is_sqlite, make_engine, session_factory, transaction, upgrade
from narrator.inbound.dbsink import DbSink
from narrator.inbound.imap import ImapPoller, ImapSettings
from narrator.inbound.sink import InboxNotifier, receiver_size_limit
from narrator.inbound.smtp import SmtpReceiver, SmtpSettings
from narrator.models import InboxState
from narrator.outages import log_failure
from narrator.outbound.leases import LeaseKeeper, OwnerLock, new_owner_id
from narrator.outbound.outbox import Claimant, SqlOutbox, outbox_sender
from narrator.outbound.sender import FailedMail, OutboxSender
from narrator.outbound.transport import MaildirTransport, Transport, transport_from_config
from narrator.scheduler import DeadlineScheduler, ReminderLead, default_reminder_lead
from narrator.service.inbox import (
    BATCH_SIZE,
    PASS_LIMIT,
    InboxSettings,
    Outcome,
    process_pending,
)
from narrator.service.mailer import Mailer
from narrator.service.notices import notify_admins_of_failure
from narrator.service.pages import build_missing_pages
from narrator.service.wiring import check_story_defaults, inbox_settings, make_mailer, utc_now
from narrator.storystore import DatabaseStore, LayeredStore
from narrator.web.admin import Panel
from narrator.web.app import Site, make_app
from narrator.web.server import WebServer
from narrator.web.vote import Envelope

log = logging.getLogger("narrator.daemon")


@dataclass(frozen=True)
class Gathering:
    """How the inbox worker gathers mail, once woken by a stored mail, before its pass: a group
    commit with a bounded delay.

    A pass has a fixed cost whatever its size (its transaction, the claim, the open games, each
    game's lock, players and rules state read and written back): the mails arriving close
    together are taken by one pass rather than a pass each, and cost less per mail.  So the
    worker keeps gathering while mail keeps arriving, and starts its pass as soon as one of
    these holds:

    - ``quiet``: no mail came for these seconds since the latest one (a lone vote's pass
      starts this long after it was stored);
    - ``max_delay``: these seconds have passed since the first mail announced since the last
      pass (no mail waits longer for its pass to start, however steadily mail arrives);
    - ``enough``: this many mails were announced (a batch of
      :data:`~narrator.service.inbox.BATCH_SIZE` is full: a larger pass costs no less per mail).

    The defaults were chosen with benchmarks/latency.py (real ``narrator serve``, 10 games x 50
    players, votes over SMTP; docs/dev/a-vote-from-smtp-to-receipt.md, "The night of 28
    November"): with a quiet spell of 50 ms, votes at 20 a second (one every 50 ms on
    average) were gathered little more than by the fixed 50 ms wait before (a pass ends at the
    first gap of 50 ms: after about three votes) and cost as much CPU; with 0.1 s (about six
    votes, the maximum delay reached) a vote cost 15-20% less, and the receipts' p99 at 50
    votes/s stayed 0.4-0.8 s on the shared machine (target: under 1 s).  A lone vote's pass
    starts 50 ms later than with the fixed wait: nobody reading mail notices.  ``narrator
    serve`` takes ``quiet`` and ``max_delay`` from the configuration (``[inbound]``
    ``gather_quiet``, ``gather_max``: :func:`gathering_of`), whose defaults are these.
    """

    quiet: float = 0.1
    max_delay: float = 0.3
    enough: int = BATCH_SIZE

    def left(self, notifier: InboxNotifier, now: float) -> float:
        """Seconds the worker still gathers at `now` (``time.monotonic()``), given what
        `notifier` announced since the last pass: 0 or less when the pass is to start."""
        if notifier.count >= self.enough or notifier.first is None or notifier.latest is None:
            return 0.0
        return min(notifier.latest + self.quiet, notifier.first + self.max_delay) - now


def gathering_of(config: Config) -> Gathering:
    """The gathering the configuration sets (``[inbound]`` ``gather_quiet``, ``gather_max``)."""
    inbound = config.inbound
    return Gathering(
        quiet=inbound.gather_quiet.total_seconds(), max_delay=inbound.gather_max.total_seconds()
    )


Clock = Callable[[], datetime]


@dataclass(frozen=True)
class DaemonOptions:
    """Timing and seams of the daemon that the configuration file does not set.

    ``imap`` holds overrides of :class:`~narrator.inbound.imap.ImapSettings` (``poll_interval``,
    ``use_idle``, backoff); ``transport`` replaces the configured outbound transport (tests).
    ``gathering``: how the inbox worker gathers the mail arriving close together into one
    pass (:class:`Gathering`; None: the configuration's ``[inbound]`` ``gather_quiet`` and
    ``gather_max``, see :func:`gathering_of`).  ``change_interval``: how often the counter of
    admin changes is read on SQLite (PostgreSQL is notified); ``reclaim_interval``: how often
    dead senders' claims are looked for (PostgreSQL).  ``on_fired`` is told of every deadline
    and reminder job the scheduler ran (kind, game id, whether it did something: tests).
    """

    inbox_interval: float = 30.0
    gathering: Gathering | None = None
    scheduler_poll: float = 30.0
    outbox_poll: float = 60.0
    stories_max_age: float = 30.0
    change_interval: float = 1.0
    reclaim_interval: float = 1.0
    reminder_lead: ReminderLead = default_reminder_lead
    migrate: bool = True
    imap: dict[str, Any] = field(default_factory=dict)
    transport: Transport | None = None
    on_fired: Callable[[str, int, bool], None] | None = None


# --- the inbox worker ----------------------------------------------------------------------


class InboxWorker:
    """Processes stored mail: after a wake-up of ``notifier``, once it has gathered the mail
    arriving close together (see :class:`Gathering`), and every ``interval`` seconds.

    ``after_pass`` is awaited after a pass that processed something (the daemon hands the
    sender the mail the pass queued claimed by the settings' claimant, and re-reads the
    deadlines when the pass moved one).  After a pass that took every mail there was
    (:func:`took_all`) it waits for the next wake-up instead of looking again.
    """

    def __init__(
        self,
        factory: sessionmaker[Session],
        mailer: Mailer,
        settings: InboxSettings,
        clock: Clock,
        notifier: InboxNotifier,
        *,
        interval: float,
        after_pass: Callable[[list[Outcome]], Awaitable[None]],
        gathering: Gathering = Gathering(),
    ) -> None:
        self._factory = factory
        self._mailer = mailer
        self._settings = settings
        self._clock = clock
        self._notifier = notifier
        self._interval = interval
        self._after_pass = after_pass
        self._gathering = gathering
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self.processed = 0

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The worker's task while it runs."""
        return self._task

    @property
    def gathering(self) -> Gathering:
        """How the worker gathers mail before a pass."""
        return self._gathering

    def start(self) -> None:
        """Start the worker task (it makes a first pass at once: mail stored while down)."""
        if self._task is None:
            self._stopping = False
            self._task = asyncio.create_task(self._run(), name="narrator.inbox")

    async def stop(self) -> None:
        """Finish the pass in hand (each mail is one transaction) and return."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping = True
        self._notifier.notify()
        await asyncio.wait({task})  # it may have ended already (see Daemon.wait_failed)

    async def _run(self) -> None:
        errors = 0
        while not self._stopping:
            try:
                outcomes = await asyncio.to_thread(
                    process_pending, self._factory, self._mailer, self._settings, self._clock
                )
            except Exception as error:
                errors += 1
                delay = min(self._interval, 2.0 ** min(errors, 6))
                what = f"inbox pass failed ({errors} in a row)"
                log_failure(log, error, what, f"retrying in {delay:g}s")
                await self._notifier.wait(delay)
                continue
            errors = 0
            if outcomes:
                self.processed += len(outcomes)
                try:
                    await self._after_pass(outcomes)
                except Exception:
                    log.exception("after processing %d mail(s)", len(outcomes))
                if not took_all(outcomes):
                    continue  # look again at once: the pass left mail behind
            if self._stopping:
                break
            if await self._notifier.wait(self._interval):
                await self._gather()  # the mails arriving meanwhile join the pass,
                self._notifier.clear()  # and their wake-ups would call for a pass finding none

    async def _gather(self) -> None:
        """Wait while mail keeps arriving, until :class:`Gathering` says the pass is to start
        (or the worker is stopping: :meth:`stop` wakes it)."""
        while not self._stopping:
            left = self._gathering.left(self._notifier, time.monotonic())
            if left <= 0:
                return
            await self._notifier.wait(left)


def took_all(outcomes: list[Outcome]) -> bool:
    """Whether a pass that made `outcomes` took every mail there was when it last looked: it
    stopped short of its limit, and no mail in it failed (a failed mail is retried by the next
    pass).  Mail stored since has woken the worker (:class:`InboxNotifier` keeps the wake-up
    until the worker waits), so it need not look again at once: a lone vote costs one
    transaction, not a second one that finds nothing."""
    return len(outcomes) < PASS_LIMIT and all(o.state != InboxState.NEW.value for o in outcomes)


# --- the daemon ----------------------------------------------------------------------------


class Daemon:
    """The whole narrator as one asyncio component: ``await start()`` … ``await stop()``."""

    def __init__(
        self,
        config: Config,
        *,
        options: DaemonOptions | None = None,
        clock: Clock = utc_now,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        self.options = options or DaemonOptions()
        self._clock = clock
        self._rng = rng or random.Random()
        self.engine: Engine | None = None
        self.factory: sessionmaker[Session] | None = None
        self.mailer: Mailer | None = None
        self._stories_task: asyncio.Task[None] | None = None
        self.smtp: SmtpReceiver | None = None
        self.imap: ImapPoller | None = None
        self.web: WebServer | None = None
        self.worker: InboxWorker | None = None
        self.scheduler: DeadlineScheduler | None = None
        self.sender: OutboxSender | None = None
        self._transport: Transport | None = None
        self._sender_task: asyncio.Task[None] | None = None
        self._owner_lock: OwnerLock | None = None
        self._keeper_task: asyncio.Task[None] | None = None
        self.watcher: ChangeWatcher | None = None
        self._changed = asyncio.Event()
        self._changes_task: asyncio.Task[None] | None = None
        self._inbox_notifier: InboxNotifier | None = None
        self.owner: int | None = None
        self._started = False
        self._died = asyncio.Event()
        self.failure: str | None = None

    async def wait_failed(self) -> str:
        """Wait until one of the daemon's long-running tasks has ended on its own (a bug: each
        survives database and server faults); returns what happened."""
        await self._died.wait()
        assert self.failure is not None
        return self.failure

    def _watch(self, task: asyncio.Task[None] | None) -> None:
        """Treat `task` ending while the daemon runs as fatal (see :meth:`wait_failed`)."""
        if task is None:
            return

        def ended(task: asyncio.Task[None]) -> None:
            if not self._started or self._died.is_set():
                return  # stopping: tasks end on purpose
            error = None if task.cancelled() else task.exception()
            self.failure = f"{task.get_name()} ended unexpectedly" + (
                f": {type(error).__name__}: {error}" if error is not None else ""
            )
            log.critical(
                "%s; the narrator stops (let its supervisor restart it)",
                self.failure,
                exc_info=error,
            )
            self._died.set()

        task.add_done_callback(ended)

    @property
    def smtp_port(self) -> int:
        """The port the SMTP receiver listens on (raises when it is not running)."""
        if self.smtp is None:
            raise RuntimeError("the SMTP receiver is not running")
        return self.smtp.port

    @property
    def web_port(self) -> int:
        """The port the game pages are served on (raises when they are not)."""
        if self.web is None:
            raise RuntimeError("the game pages are not served")
        return self.web.port

    async def _start_web(self, factory: sessionmaker[Session], mailer: Mailer) -> None:
        """Serve the game pages (``[web]``), when enabled."""
        config = self.config
        web = config.web
        if not web.enabled:
            log.info("game pages: off ([web] enabled = false)")
            return
        site = Site(
            factory=factory,
            renderer=mailer.renderer,
            address=config.narrator.address,
            ruleset=config.narrator.ruleset,
            language=config.narrator.language,
            base_url=web.base_url,
            secret=web.secret,
            envelope=self._envelope(mailer),
            on_stored=self._inbox_notifier.notify if self._inbox_notifier else None,
            # The admin panel's actions commit in a page's thread; the daemon acts on them at
            # once (as on a CLI command's, which it sees through the change counter).
            panel=Panel(config, mailer, on_change=self._changed.set, clock=self._clock),
        )
        self.web = WebServer(make_app(site), web.host, web.port)
        await self.web.start()
        host = f"[{web.host}]" if ":" in web.host else web.host
        log.info("game pages at %s/ (listening on http://%s:%d)", web.base_url, host, self.web.port)

    def _envelope(self, mailer: Mailer) -> Envelope:
        """How a vote on a player's page is mailed: as his mail passes the narrator's checks
        (his personal reply address; the configured authserv-id's pass)."""
        security = self.config.security
        addresses = mailer.reply_addresses
        return Envelope(
            narrator=self.config.narrator.address,
            reply_address=addresses.for_player if addresses is not None else None,
            authserv_id=security.authserv_ids[0] if security.sender_auth != "off" else None,
        )

    async def _report_failed(self, failed: FailedMail) -> None:
        """Log a mail given up on and queue a notice to the admins (then send it)."""
        log.error(
            "mail %s (%s) to %s given up after %d attempt(s): %s",
            failed.message_id,
            failed.kind,
            failed.recipient,
            failed.attempts,
            failed.error,
        )
        factory = self.factory
        if factory is None:
            return

        def notify() -> list[str]:
            with transaction(factory) as session:
                return notify_admins_of_failure(
                    session,
                    failed,
                    address=self.config.narrator.address,
                    configured_admins=self.config.admins.emails,
                    now=self._clock(),
                )

        try:
            told = await asyncio.to_thread(notify)
        except Exception as error:
            what = f"could not queue the admins' notice about mail {failed.message_id}"
            log_failure(log, error, what)
            return
        if told and self.sender is not None:
            self.sender.wake()

    async def start(self) -> None:
        """Migrate the database, then start the sender, worker, scheduler and receivers.

        Raises ConfigError (e.g. a password variable is unset) or OSError (a port is taken);
        whatever was started is stopped again first.
        """
        if self._started:
            return
        self._started = True
        try:
            await self._start()
        except BaseException as error:
            await self.stop()
            read_only = read_only_database(error, self.config.database_url)
            if read_only is not None:
                raise read_only from None
            raise

    async def _start(self) -> None:
        config, options = self.config, self.options
        check_story_defaults(config)
        url = config.database_url
        if options.migrate:
            await asyncio.to_thread(upgrade, url)
        self.engine = make_engine(url)
        self.factory = factory = session_factory(self.engine)
        self.mailer = mailer = await asyncio.to_thread(make_mailer, config, factory)
        await asyncio.to_thread(mailer.prepare)  # the mail layout, compiled before any mail
        self._stories_task = asyncio.create_task(self._reload_stories(), name="narrator.stories")
        log.info("database %s (migrated)", _shown_url(url))

        self.owner = owner = await self._take_over_claims(url, factory)
        # The stories a game told before its pages stored them (an older database): built
        # once from its log now, before a page is served or a step closes (docs/web.md).
        await asyncio.to_thread(build_missing_pages, factory, mailer.renderer, self._clock)

        self._transport = options.transport or transport_from_config(config.outbound)
        self.sender = sender = outbox_sender(
            config,
            factory,
            clock=self._clock,
            rng=self._rng,
            on_failed=self._report_failed,
            transport=self._transport,
            poll_interval=options.outbox_poll,
            owner=owner,
        )
        self._sender_task = asyncio.create_task(sender.run(), name="narrator.outbox")
        if self._owner_lock is not None:
            keeper = LeaseKeeper(
                self._owner_lock,
                SqlOutbox(factory, owner=owner),
                self._clock,
                sender.wake,
                interval=options.reclaim_interval,
            )
            self._keeper_task = asyncio.create_task(keeper.run(), name="narrator.leases")
        log.info("outgoing mail: %s", _describe_transport(self._transport, config))

        self.scheduler = scheduler = DeadlineScheduler(
            factory,
            mailer,
            self._clock,
            on_mail_queued=sender.wake,
            on_fired=options.on_fired,
            reminder_lead=options.reminder_lead,
            poll_interval=options.scheduler_poll,
            admins=config.admins.emails,
        )

        async def after_pass(outcomes: list[Outcome]) -> None:
            # The pass queued its mail claimed for the sender: delivered with no claim pass.
            queued = [item for outcome in outcomes for item in outcome.queued]
            if queued:
                sender.hand_over(queued)
            if not any(outcome.replan for outcome in outcomes):
                return  # no deadline moved: the scheduler's jobs stand
            try:
                await scheduler.sync()  # a vote closed a step early, or ended the game
            except Exception as error:
                what = "re-reading the deadlines after processing mail failed"
                log_failure(log, error, what, "the next poll retries")

        self._inbox_notifier = notifier = InboxNotifier()
        self.worker = InboxWorker(
            factory,
            mailer,
            # The replies are queued claimed by this daemon's sender (delivered by after_pass).
            replace(inbox_settings(config), claimant=Claimant(owner, config.outbound.lease)),
            self._clock,
            notifier,
            interval=options.inbox_interval,
            after_pass=after_pass,
            gathering=options.gathering or gathering_of(config),
        )
        self.worker.start()
        await scheduler.start()
        self._changes_task = asyncio.create_task(self._act_on_changes(), name="narrator.changes")
        self.watcher = ChangeWatcher(url, self._changed.set, interval=options.change_interval)
        self.watcher.start()
        if not await self.watcher.wait_ready():
            log.warning("not watching for admin changes yet: they take effect at the next poll")

        sink = DbSink(factory, on_stored=notifier.notify)
        if config.inbound.imap.enabled:
            limit = receiver_size_limit(config.security.max_message_bytes)
            overrides = {"max_message_size": limit, **options.imap}
            imap = ImapSettings.from_config(config.inbound.imap, **overrides)
            self.imap = ImapPoller(sink, imap, rng=self._rng)
            await self.imap.start()
            log.info(
                "polling IMAP %s@%s:%d mailbox %s (%s)",
                imap.username,
                imap.host,
                imap.port,
                imap.mailbox,
                "TLS" if imap.ssl else "plain",
            )
        if config.inbound.smtp.enabled:
            smtp = config.inbound.smtp
            self.smtp = SmtpReceiver(sink, SmtpSettings.from_config(config))
            await self.smtp.start()
            log.info(
                "%s receiver for %s listening on %s:%d",
                "LMTP" if smtp.lmtp else "SMTP",
                config.narrator.address,
                smtp.host,
                self.smtp.port,
            )
        await self._start_web(factory, mailer)
        if self.smtp is None and self.imap is None:
            log.warning("no inbound mail configured: only `narrator inject` brings mail in")
        for task in (
            self._sender_task,
            self._keeper_task,
            self._changes_task,
            self._stories_task,
            self.worker.task if self.worker else None,
        ):
            self._watch(task)
        if self.imap is not None:
            self._watch(self.imap.task)
        if self.web is not None:
            self._watch(self.web.task)
        log.info("narrator serving as %s", config.narrator.address)

    async def stop(self) -> None:
        """Stop everything that runs, in order; safe to call twice or after a failed start."""
        if not self._started:
            return
        self._started = False
        if self.smtp is not None:
            await self.smtp.stop()
            self.smtp = None
        if self.imap is not None:
            await self.imap.stop()
            self.imap = None
        if self.web is not None:
            await self.web.stop()
            self.web = None
        if self.watcher is not None:
            await self.watcher.stop()
            self.watcher = None
        await _cancel(self._changes_task)
        self._changes_task = None
        if self.worker is not None:
            await self.worker.stop()
        if self.scheduler is not None:
            await self.scheduler.stop()
        if self.sender is not None and self._sender_task is not None:
            self.sender.stop()
            await asyncio.wait({self._sender_task})
            self._sender_task = None
        await _cancel(self._keeper_task)
        self._keeper_task = None
        if self._owner_lock is not None:  # only now: no claim of ours is in hand any more
            await asyncio.to_thread(self._owner_lock.release)
            self._owner_lock = None
        if self._stories_task is not None:
            self._stories_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._stories_task
            self._stories_task = None
        if self._transport is not None:
            await self._transport.close()
            self._transport = None
        if self.engine is not None:
            await _dispose_when_returned(self.engine)
        log.info("narrator stopped")

    async def _take_over_claims(self, url: str, factory: sessionmaker[Session]) -> int:
        """Draw this daemon's owner id and take back the outbox claims of dead senders.

        SQLite (one daemon per file): every claim recorded is a dead predecessor's.
        PostgreSQL: the owner id is an advisory lock held until the daemon stops; the lease
        keeper takes back (now, and every second) the claims of owners without their lock.
        """
        if is_sqlite(url):
            owner = new_owner_id()
            count = await asyncio.to_thread(SqlOutbox(factory).reclaim_all, self._clock())
            if count:
                log.warning("took back %d outbox claim(s) of a stopped daemon; sending now", count)
            return owner
        self._owner_lock = OwnerLock(url)
        return await asyncio.to_thread(self._owner_lock.acquire)

    async def _act_on_changes(self) -> None:
        """After an admin command committed: send what it queued, process what it stored,
        re-read the deadlines and the stories, at once."""
        assert self.mailer is not None and self.factory is not None
        mailer, factory = self.mailer, self.factory

        def reload() -> None:
            with transaction(factory) as session:
                mailer.reload(session)

        while True:
            await self._changed.wait()
            self._changed.clear()
            log.debug("an admin command changed something: acting on it now")
            if self.sender is not None:
                self.sender.wake()
            if self._inbox_notifier is not None:
                self._inbox_notifier.notify()
            try:
                if self.scheduler is not None:
                    await self.scheduler.sync()
                await asyncio.to_thread(reload)
            except Exception as error:
                what = "acting on an admin command failed"
                log_failure(log, error, what, "the next poll takes it up")

    async def _reload_stories(self) -> None:
        """Look at the stories table now and then, so stories stored behind the daemon's back
        (``narrator stories`` tells it at once) need no restart.

        The mailer reloads only when the table holds other stories than those it renders from
        (the first layer of its store, :meth:`~narrator.service.mailer.Mailer.reload`): the
        table rarely changes, and a reload builds the mailer's store anew.
        """
        assert self.mailer is not None and self.factory is not None
        mailer, factory = self.mailer, self.factory

        def reload_if_changed() -> None:
            with transaction(factory) as session:
                stored = set(DatabaseStore(session).all())
                store = mailer.store
                if isinstance(store, LayeredStore) and set(store.first.all()) == stored:
                    return  # the mailer renders from the table as it is
                mailer.reload(session)

        errors = 0
        while True:
            await asyncio.sleep(self.options.stories_max_age)
            try:
                await asyncio.to_thread(reload_if_changed)
            except Exception as error:
                errors += 1
                what = f"re-reading the stories table failed ({errors} in a row)"
                log_failure(log, error, what, "keeping the stories in use")
            else:
                errors = 0

    async def __aenter__(self) -> Daemon:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


def read_only_database(error: BaseException, url: str) -> OSError | None:
    """An OSError saying which files to fix when `error` is SQLite refusing to write (the
    database file, its ``-wal`` or ``-shm`` beside it, or its folder is read-only); else None."""
    text = str(getattr(error, "orig", error)).lower()
    if "readonly database" not in text and "read-only" not in text:
        return None
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return OSError(errno.EROFS, "the database is read-only")
    name = parsed.database.removeprefix("file:").split("?", 1)[0]
    file = Path(name).resolve()
    candidates = [file, Path(f"{file}-wal"), Path(f"{file}-shm"), file.parent]
    blocked = [str(p) for p in candidates if p.exists() and not os.access(p, os.W_OK)]
    if "mode=ro" in str(parsed):
        hint = "the database URL opens it read-only (mode=ro)"
    elif blocked:
        hint = "make writable by this user: " + ", ".join(blocked)
    else:
        hint = f"make {file}, {file}-wal, {file}-shm and the folder {file.parent} writable"
    return OSError(errno.EROFS, f"the SQLite database {file} is read-only: {hint}")


class DaemonFailed(RuntimeError):
    """A part of the daemon that should run until the stop ended by itself."""


async def _cancel(task: asyncio.Task[None] | None) -> None:
    """Cancel `task` (if any) and wait until it ended."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


#: How long a stop waits for the database connections still in use to come back to the pool.
RETURN_TIMEOUT = 30.0


async def _dispose_when_returned(engine: Engine, timeout: float = RETURN_TIMEOUT) -> None:
    """Dispose of `engine` once every connection is back in its pool (within `timeout` s).

    A part's task cancelled by the stop leaves the thread it was waiting on running to the end
    of its transaction; a connection such a thread hands back after the dispose would go to the
    disposed pool and stay open (a PostgreSQL session) until the garbage collector found it.
    """
    pool = engine.pool
    if isinstance(pool, QueuePool):
        deadline = time.monotonic() + timeout
        while pool.checkedout() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if pool.checkedout():
            log.warning(
                "%d database connection(s) still in use %gs after the stop;"
                " disposing of the engine anyway",
                pool.checkedout(),
                timeout,
            )
    engine.dispose()


def _shown_url(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def _describe_transport(transport: Transport, config: Config) -> str:
    if isinstance(transport, MaildirTransport):
        return f"written to the Maildir {transport.path}"
    smtp = config.outbound.smtp
    tls = "SSL" if smtp.ssl else "STARTTLS" if smtp.starttls else "no TLS"
    return f"submitted to {smtp.host}:{smtp.port} ({tls})"


async def serve(
    config: Config,
    *,
    options: DaemonOptions | None = None,
    stop: asyncio.Event | None = None,
    on_started: Callable[[Daemon], None] | None = None,
) -> None:
    """Run a daemon until SIGTERM/SIGINT (or `stop` is set), then stop it cleanly."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT)
    for number in signals:
        loop.add_signal_handler(number, _stop_on_signal, stop, number)
    try:
        async with Daemon(config, options=options) as daemon:
            if on_started is not None:
                on_started(daemon)
            stopped = asyncio.create_task(stop.wait())
            failed = asyncio.create_task(daemon.wait_failed())
            await asyncio.wait({stopped, failed}, return_when=asyncio.FIRST_COMPLETED)
            for waiter in (stopped, failed):
                waiter.cancel()
            if daemon.failure is not None:
                raise DaemonFailed(daemon.failure)
            log.info("stopping")
    finally:
        for number in signals:
            loop.remove_signal_handler(number)


def _stop_on_signal(stop: asyncio.Event, number: int) -> None:
    log.info("received %s", signal.Signals(number).name)
    stop.set()
