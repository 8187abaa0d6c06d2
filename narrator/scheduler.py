"""Deadlines and reminders: APScheduler jobs rebuilt from the database, fired exactly once.

The database is the source of truth: every running game has a ``deadline`` column (and a
``reminded_at`` for the current step).  :class:`DeadlineScheduler` reads them with
:func:`scheduled_games` and keeps one APScheduler date job per deadline and per reminder.  The
times are judged by the scheduler's clock (the daemon's): a job whose time has come by it when
the jobs are brought in line runs at once, such as a deadline that passed while the daemon was
down (or, in the tests, one the test's clock was moved past).  It re-reads the database after
each job it ran, when told to (:meth:`DeadlineScheduler.sync`, after the inbox worker applied
mail that moved a deadline: a vote that closed a step early), and every ``poll_interval``
seconds, so deadlines changed by the CLI in another process (start, close-step, pause, resume,
extend) are picked up.

The same way it keeps one job for the closing digests of the players' Help floods
(:func:`send_help_digests_if_due`): planned from the oldest hour with held Help, run when that
hour is over (at once at start when it ended while the daemon was down).

The jobs themselves (:func:`close_if_due`, :func:`remind_if_due`) are plain functions of one
transaction each: they lock the game row (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's
``BEGIN IMMEDIATE`` serialises writers) and re-check the deadline inside it, so when two daemons
share one database each deadline is resolved and each reminder is sent by exactly one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy import select
from sqlalchemy.orm import Session, load_only, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus
from narrator.outages import log_failure
from narrator.service import games as service
from narrator.service import help as help_service
from narrator.service.mailer import Mailer
from narrator.service.work import unit_of_work

log = logging.getLogger("narrator.scheduler")

Clock = Callable[[], datetime]

#: The longest a reminder is sent before its deadline.
REMINDER_MAX_LEAD = timedelta(hours=6)


def default_reminder_lead(speed: timedelta) -> timedelta:
    """How long before a deadline the reminder goes out: a quarter of the step, at most 6 h."""
    return min(REMINDER_MAX_LEAD, speed / 4)


ReminderLead = Callable[[timedelta], timedelta]

#: Runs of one deadline or reminder job APScheduler lets overlap: the run that closed a step
#: re-reads the deadlines at its end and plans the next step's job under the same id, which
#: may be due at once (a step of a second, late); with one instance APScheduler would skip that
#: run, as the planning one has not returned yet, and the deadline would never fire.  The work
#: never overlaps: a job is not planned again while its work runs (``_running``).
TAIL_INSTANCES = 2


# --- the jobs: one transaction each --------------------------------------------------------


def close_if_due(
    factory: sessionmaker[Session], mailer: Mailer, game_id: int, now: datetime
) -> bool:
    """Resolve the game's current step if its deadline has passed; return whether it did.

    The game row is locked and the deadline re-checked inside the transaction, so a deadline
    that another process (or an earlier run) has already handled is left alone.
    """
    with unit_of_work(factory) as work:
        game = work.locked_game(game_id)
        if game is None or game.status != GameStatus.RUNNING.value:
            return False
        if game.deadline is None or game.deadline > now:
            return False
        step, number = game.step, game.step_number
        service.close_step(work, mailer, game, now=now)
        log.info(
            "game %s: step %d (%s) closed at its deadline; now %s",
            game.name,
            number,
            step,
            f"step {game.step_number} ({game.step}) until {game.deadline.isoformat()}"
            if game.deadline is not None
            else game.status,
        )
        return True


def reminder_time(game: Game, lead: ReminderLead = default_reminder_lead) -> datetime | None:
    """When the reminder of the game's current step is due (None: no deadline)."""
    if game.deadline is None:
        return None
    return game.deadline - lead(timedelta(seconds=game.speed))


def remind_if_due(
    factory: sessionmaker[Session],
    mailer: Mailer,
    game_id: int,
    now: datetime,
    lead: ReminderLead = default_reminder_lead,
) -> list[str] | None:
    """Send the current step's reminders if they are due and not sent yet.

    Returns the players reminded, or None when nothing was due (already reminded, deadline
    passed, paused, or another process did it).
    """
    with unit_of_work(factory) as work:
        game = work.locked_game(game_id)
        if game is None or game.status != GameStatus.RUNNING.value or game.reminded_at is not None:
            return None
        due = reminder_time(game, lead)
        if due is None or game.deadline is None or not due <= now < game.deadline:
            return None
        reminded = service.send_reminders(work, mailer, game, now=now)
        log.info(
            "game %s: step %d reminder sent to %s",
            game.name,
            game.step_number,
            ", ".join(reminded) or "nobody (everybody voted)",
        )
        return reminded


def send_help_digests_if_due(
    factory: sessionmaker[Session], mailer: Mailer, admins: Sequence[str], now: datetime
) -> int:
    """Queue the closing digest of every Help flood whose hour is over (one transaction);
    return how many were queued.  Each is queued once: see
    :func:`narrator.service.help.send_closing_digests`."""
    with transaction(factory) as session:
        return help_service.send_closing_digests(session, mailer, admins, now)


def next_help_digest(factory: sessionmaker[Session]) -> datetime | None:
    """When the next closing digest of a Help flood is due (None: no Help is held)."""
    with transaction(factory) as session:
        return help_service.next_closing_digest(session)


#: The one job of the Help floods' closing digests (its "game id" is 0).
HELP_DIGEST_JOB = "help-digest:0"


@dataclass(frozen=True)
class Plan:
    """What the scheduler should have for one running game: its deadline and reminder times."""

    game_id: int
    name: str
    deadline: datetime
    reminder: datetime | None  # None: already reminded, or no time left for one


def scheduled_games(
    factory: sessionmaker[Session], lead: ReminderLead = default_reminder_lead
) -> dict[int, Plan]:
    """Read the plan of every running game with a deadline from the database."""
    with transaction(factory) as session:
        # Only the few columns a plan needs: never a game's rules state (large, and this runs
        # after every pass of the inbox worker that moved a deadline).
        games = session.scalars(
            select(Game)
            .options(load_only(Game.name, Game.deadline, Game.speed, Game.reminded_at))
            .where(Game.status == GameStatus.RUNNING.value, Game.deadline.is_not(None))
        ).all()
        plans = {}
        for game in games:
            assert game.deadline is not None
            reminder = reminder_time(game, lead) if game.reminded_at is None else None
            if reminder is not None and reminder >= game.deadline:
                reminder = None
            plans[game.id] = Plan(game.id, game.name, game.deadline, reminder)
        return plans


# --- the scheduler -------------------------------------------------------------------------


class DeadlineScheduler:
    """APScheduler (asyncio) jobs for every running game's deadline and reminder, and for the
    closing digests of Help floods (to the configured `admins` and those added by the CLI).

    ``on_mail_queued`` is called (in the event loop) after a job queued mail — the daemon wakes
    the outbox sender with it; ``on_fired`` after each job ran, with its kind (``deadline``,
    ``reminder``, ``help-digest``), game id (0 for the digests) and whether it did something
    (tests watch the jobs with it).  Use ``await start()`` / ``await stop()`` inside a running
    loop.
    """

    def __init__(
        self,
        factory: sessionmaker[Session],
        mailer: Mailer,
        clock: Clock,
        *,
        on_mail_queued: Callable[[], None] | None = None,
        on_fired: Callable[[str, int, bool], None] | None = None,
        reminder_lead: ReminderLead = default_reminder_lead,
        poll_interval: float = 30.0,
        admins: Sequence[str] = (),
    ) -> None:
        self._factory = factory
        self._admins = tuple(admins)
        self._mailer = mailer
        self._clock = clock
        self._on_mail_queued = on_mail_queued
        self._on_fired = on_fired
        self._lead = reminder_lead
        self._poll_interval = poll_interval
        self._scheduler: AsyncIOScheduler | None = None
        self._planned: dict[str, datetime] = {}  # job id -> run time as scheduled
        self._jobs: set[asyncio.Task[Any]] = set()
        self._running: set[str] = set()  # job ids whose work is in progress (sync leaves them)
        self._sync_lock = asyncio.Lock()
        self._stopping = False
        self._sync_failures = 0  # re-readings of the deadlines failed in a row
        self._job_failures: dict[str, int] = {}  # job id -> its runs failed in a row

    @property
    def planned(self) -> dict[str, datetime]:
        """The jobs scheduled now: ``deadline:<game id>`` / ``reminder:<game id>`` /
        ``help-digest:0`` -> when."""
        return dict(self._planned)

    async def start(self) -> None:
        """Start APScheduler and schedule every running game's deadline from the database."""
        if self._scheduler is not None:
            return
        self._stopping = False
        self._scheduler = AsyncIOScheduler(
            timezone=UTC,
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
        )
        self._scheduler.start()
        self._scheduler.add_job(
            self._poll, "interval", seconds=self._poll_interval, id="poll", name="poll database"
        )
        await self.sync()
        log.info(
            "scheduler started: %d deadline(s) scheduled; database re-read every %gs",
            sum(1 for job in self._planned if job.startswith("deadline:")),
            self._poll_interval,
        )

    async def stop(self) -> None:
        """Stop scheduling, let running jobs finish their transaction, shut APScheduler down."""
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is None:
            return
        self._stopping = True
        scheduler.pause()
        if self._jobs:
            await asyncio.gather(*self._jobs, return_exceptions=True)
        scheduler.shutdown(wait=False)
        # AsyncIOScheduler shuts down in a callback of the loop; let it run before returning.
        for _ in range(100):
            if not scheduler.running:
                break
            await asyncio.sleep(0)
        self._planned.clear()
        log.info("scheduler stopped")

    async def sync(self) -> None:
        """Re-read the running games and bring the jobs in line (add, move, drop); a job whose
        time has come by the clock is set to run at once."""
        if self._scheduler is None or self._stopping:
            return
        async with self._sync_lock:
            # One read (one wait): the plans are as fresh as before when the jobs are set.
            plans, digest = await asyncio.to_thread(self._read_plans)
            if self._scheduler is None or self._stopping:
                return
            now = self._clock()
            wanted: dict[str, tuple[datetime, Callable[..., Any], int]] = {}
            for plan in plans.values():
                wanted[f"deadline:{plan.game_id}"] = (plan.deadline, self._deadline, plan.game_id)
                if plan.reminder is not None:
                    wanted[f"reminder:{plan.game_id}"] = (
                        plan.reminder,
                        self._reminder,
                        plan.game_id,
                    )
            if digest is not None:
                wanted[HELP_DIGEST_JOB] = (digest, self._help_digest, 0)
            for job_id in set(self._planned) - set(wanted) - self._running:
                self._remove(job_id)
            for job_id, (when, func, game_id) in wanted.items():
                # A running job re-reads the database when it is done; scheduling it again
                # meanwhile (its row still shows the old deadline) would only be skipped.
                if job_id in self._running:
                    continue
                due = when <= now
                # A planned job stays as it is unless its time has come by our clock while
                # APScheduler still holds it for later (our clock was moved on).  APScheduler no
                # longer holds a job it has set running (its work starts in a moment).
                if self._planned.get(job_id) == when and (
                    not due or self._scheduler.get_job(job_id) is None
                ):
                    continue
                # APScheduler keeps its own time (the system clock): a job due by ours is given
                # no run date, which APScheduler reads as "now".
                self._scheduler.add_job(
                    func,
                    "date",
                    run_date=None if due else when,
                    args=(game_id,),
                    id=job_id,
                    name=job_id,
                    replace_existing=True,
                    max_instances=TAIL_INSTANCES,
                )
                self._planned[job_id] = when
                log.debug("%s at %s%s", job_id, when.isoformat(), " (due: now)" if due else "")
        self._sync_failures = 0

    def _read_plans(self) -> tuple[dict[int, Plan], datetime | None]:
        return scheduled_games(self._factory, self._lead), next_help_digest(self._factory)

    def _remove(self, job_id: str) -> None:
        if self._planned.pop(job_id, None) is not None:
            log.debug("%s dropped", job_id)
        if self._scheduler is None:
            return
        with contextlib.suppress(JobLookupError):  # it ran already
            self._scheduler.remove_job(job_id)

    async def _poll(self) -> None:
        await self._guarded("poll", 0, self.sync)

    async def _deadline(self, game_id: int) -> None:
        async def work() -> bool:
            return await asyncio.to_thread(
                close_if_due, self._factory, self._mailer, game_id, self._clock()
            )

        await self._guarded("deadline", game_id, work)

    async def _reminder(self, game_id: int) -> None:
        async def work() -> bool:
            reminded = await asyncio.to_thread(
                remind_if_due, self._factory, self._mailer, game_id, self._clock(), self._lead
            )
            return bool(reminded)

        await self._guarded("reminder", game_id, work)

    async def _help_digest(self, _: int) -> None:
        async def work() -> bool:
            queued = await asyncio.to_thread(
                send_help_digests_if_due, self._factory, self._mailer, self._admins, self._clock()
            )
            return queued > 0

        await self._guarded("help-digest", 0, work)

    async def _guarded(self, kind: str, game_id: int, work: Callable[[], Any]) -> None:
        """Run a job's work as a tracked task (stop waits for it); log errors, then re-sync."""
        if self._stopping:
            return
        job_id = f"{kind}:{game_id}"
        if kind != "poll":
            self._planned.pop(job_id, None)
            self._running.add(job_id)
        task = asyncio.current_task()
        if task is not None:
            self._jobs.add(task)
        try:
            did = await work()
        except Exception as error:
            if kind == "poll":
                self._sync_failed(error)
            else:
                failures = self._job_failures[job_id] = self._job_failures.get(job_id, 0) + 1
                whose = f"for game {game_id} " if game_id else ""
                what = f"{kind} job {whose}failed ({failures} in a row)"
                log_failure(log, error, what, f"retrying in {self._poll_interval:g}s")
            did = False
            failed = True
        else:
            failed = False
            self._job_failures.pop(job_id, None)
        finally:
            self._running.discard(job_id)
            if task is not None:
                self._jobs.discard(task)
        if kind == "poll":
            return
        if self._on_fired is not None:
            self._on_fired(kind, game_id, bool(did))
        if did and self._on_mail_queued is not None:
            self._on_mail_queued()
        if failed:
            # Try again later, not at once: a failing resolution must not spin.
            self._retry_later(kind, game_id)
            return
        try:
            await self.sync()
        except Exception as error:
            self._sync_failed(error)

    def _sync_failed(self, error: Exception) -> None:
        """Log a failed re-reading of the deadlines (by the poll, or after a job)."""
        self._sync_failures += 1
        what = f"re-reading the deadlines failed ({self._sync_failures} in a row)"
        log_failure(log, error, what, "the next poll retries")

    def _retry_later(self, kind: str, game_id: int) -> None:
        if self._scheduler is None or self._stopping:
            return
        when = self._clock() + timedelta(seconds=self._poll_interval)
        jobs = {"deadline": self._deadline, "reminder": self._reminder}
        func = jobs.get(kind, self._help_digest)
        job_id = f"{kind}:{game_id}"
        self._scheduler.add_job(
            func,
            "date",
            run_date=when,
            args=(game_id,),
            id=job_id,
            name=job_id,
            replace_existing=True,
            max_instances=TAIL_INSTANCES,
        )
        self._planned[job_id] = when
