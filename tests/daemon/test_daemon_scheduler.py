"""The deadline scheduler: missed deadlines fire at start, each deadline fires once (also with
two schedulers on one database), reminders go to who has not voted, extend and pause hold."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory, transaction
from narrator.models import Game, GameLogEntry, GameStatus, OutboxMessage, Step, game_players
from narrator.scheduler import (
    HELP_DIGEST_JOB,
    DeadlineScheduler,
    close_if_due,
    remind_if_due,
    scheduled_games,
)
from narrator.service import games as service
from narrator.service.inbox import InboxSettings
from narrator.service.letters import post
from narrator.service.limits import Limits
from narrator.service.mailer import Mailer
from narrator.service.table import table_of
from narrator.service.work import Work, unit_of_work
from stories import FileStore
from tests.security.security_support import Clock, Narrator, mail
from tests.support.aio import run_async, wait_until
from tests.support.clock import MovableClock

NARRATOR = "verteller@example.org"
NAMES = ["Anna", "Bram", "Carla", "Dirk", "Eva", "Frank", "Greet", "Hans"]


def now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def mailer() -> Mailer:
    return Mailer(FileStore(), NARRATOR)


def new_game(
    sessions: sessionmaker[Session],
    mailer: Mailer,
    *,
    speed: int,
    started: datetime,
    name: str = "WW1",
    strictness: int = 50,
) -> int:
    """A running 8-player game whose first step opened at `started`; returns its id."""
    with unit_of_work(sessions) as work:
        session = work.session
        game = Game(
            name=name,
            name_key=name.lower(),
            ruleset="wakkerdam",
            language="nl",
            theme="wakkerdam",
            speed=speed,
            strictness=strictness,
            status="signup",
        )
        session.add(game)
        session.flush()
        for n, player in enumerate(NAMES):
            applicant = service.Applicant(
                f"{player.lower()}@{name.lower()}.example.org",
                player,
                "vrouw" if n % 2 else "man",
            )
            signed = service.signup(table_of(work, game), applicant, started)
            post(work.session, mailer, signed.letters, started)
        service.start_game(work, mailer, game, now=started, seed=11)
        return game.id


def game_row(sessions: sessionmaker[Session], game_id: int) -> Game:
    with transaction(sessions) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def resolutions(sessions: sessionmaker[Session], game_id: int) -> list[GameLogEntry]:
    with transaction(sessions) as session:
        return list(
            session.scalars(
                select(GameLogEntry)
                .where(GameLogEntry.game_id == game_id, GameLogEntry.kind == "resolve")
                .order_by(GameLogEntry.seq)
            )
        )


def outbox_kinds(sessions: sessionmaker[Session], kind: str) -> list[str]:
    with transaction(sessions) as session:
        return list(
            session.scalars(
                select(OutboxMessage.recipient)
                .where(OutboxMessage.kind == kind)
                .order_by(OutboxMessage.recipient)
            )
        )


# --- the jobs, with a clock in hand ---------------------------------------------------------


def test_close_if_due_closes_a_step_once_and_only_after_its_deadline(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    start = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)
    game_id = new_game(sessions, mailer, speed=60, started=start)
    deadline = game_row(sessions, game_id).deadline
    assert deadline == start + timedelta(seconds=60)

    assert not close_if_due(sessions, mailer, game_id, deadline - timedelta(seconds=1))
    assert game_row(sessions, game_id).step_number == 1
    assert close_if_due(sessions, mailer, game_id, deadline)
    after = game_row(sessions, game_id)
    assert after.step_number == 2
    assert after.deadline == deadline + timedelta(seconds=60)
    # The same deadline firing again (a second daemon, a retried job) changes nothing.
    assert not close_if_due(sessions, mailer, game_id, deadline + timedelta(seconds=1))
    assert game_row(sessions, game_id).step_number == 2
    assert len(resolutions(sessions, game_id)) == 1


def test_remind_if_due_mails_only_asked_players_who_have_not_voted_once(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    start = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)
    game_id = new_game(sessions, mailer, speed=3600, started=start)
    with unit_of_work(sessions) as work:
        session = work.session
        game = session.get(Game, game_id)
        assert game is not None
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        asked = list(rs.asked(state))
        players = {p.name: p for p in game_players(session, game)}
        voter = asked[0]
        action = rs.choices(state, voter).actions[0]
        ballot = service.Ballot(
            targets=list(action.targets[: action.min_names]),
            blanco=not action.min_names,
            keywords=[action.keyword] if action.keyword else [],
        )
        voted_at = start + timedelta(minutes=1)
        outcome = service.cast_vote(table_of(work, game), players[voter], ballot, voted_at)
        post(work.session, mailer, outcome.letters, voted_at)
    assert len(asked) >= 2, "the first step should ask more than one player"
    reminder_at = start + timedelta(minutes=45)  # a quarter of an hour's step before it ends
    assert remind_if_due(sessions, mailer, game_id, reminder_at - timedelta(seconds=1)) is None
    reminded = remind_if_due(sessions, mailer, game_id, reminder_at)
    assert reminded == asked[1:]
    assert outbox_kinds(sessions, "reminder") == sorted(players[name].email for name in asked[1:])
    assert remind_if_due(sessions, mailer, game_id, reminder_at + timedelta(minutes=1)) is None
    assert len(outbox_kinds(sessions, "reminder")) == len(asked) - 1
    assert game_row(sessions, game_id).reminded_at == reminder_at
    # The plan no longer holds a reminder for this step.
    plan = scheduled_games(sessions)[game_id]
    assert plan.reminder is None and plan.deadline == start + timedelta(hours=1)


# --- the scheduler on a clock the test moves ------------------------------------------------


def test_a_deadline_and_a_reminder_due_by_the_clock_run_at_the_next_reading(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    """The scheduler judges times by its clock, not APScheduler's: when its clock is moved past
    a reminder and a deadline an hour away, each job runs at the next re-reading (``sync``),
    once, with that clock's time; nothing runs before."""
    clock = MovableClock()
    game_id = new_game(sessions, mailer, speed=3600, started=clock())
    fired: list[tuple[str, int, bool]] = []
    start = game_row(sessions, game_id)
    assert start.deadline is not None

    async def scenario() -> None:
        scheduler = DeadlineScheduler(
            sessions, mailer, clock, on_fired=lambda *job: fired.append(job), poll_interval=60
        )
        await scheduler.start()
        try:
            assert scheduler.planned == {
                f"deadline:{game_id}": start.deadline,
                f"reminder:{game_id}": start.deadline - timedelta(minutes=15),
            }
            await scheduler.sync()
            assert fired == []
            clock.move_to(start.deadline - timedelta(minutes=10))
            await scheduler.sync()
            await wait_until(lambda: bool(fired), timeout=10, message="the reminder job")
            assert fired == [("reminder", game_id, True)]
            assert f"deadline:{game_id}" in scheduler.planned
            clock.move_to(start.deadline + timedelta(seconds=1))
            await scheduler.sync()
            await scheduler.sync()  # a second reading before the job ran sets nothing twice
            await wait_until(
                lambda: game_row(sessions, game_id).step_number == 2,
                timeout=10,
                message="the deadline job",
            )
        finally:
            await scheduler.stop()

    run_async(scenario())
    assert fired == [("reminder", game_id, True), ("deadline", game_id, True)]
    game = game_row(sessions, game_id)
    # The next step runs an hour from the moved clock's time.
    assert game.deadline is not None and game.deadline > start.deadline + timedelta(minutes=59)
    [resolution] = resolutions(sessions, game_id)
    assert resolution.payload["step"] == start.step


def test_a_help_floods_closing_digest_is_sent_once_its_hour_is_over_and_not_after_a_restart(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    """The scheduler plans the closing digest of a player's Help flood from the database (a
    minute after the end of the hour), sends it when its clock gets there, and a scheduler
    started afterwards (a restart) plans nothing and sends nothing again."""
    clock = MovableClock()
    admin = "beheer@example.org"
    settings = InboxSettings(
        address=NARRATOR, admins=(admin,), limits=Limits(replies_per_hour=1, replies_per_day=0)
    )
    narrator = Narrator(sessions, mailer, settings, Clock(clock()))
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [("Anna", "anna@example.net")])
    for n in range(13):  # 10 forwarded, one told at once, two held for the closing digest
        narrator.receive(mail("anna@example.net", f"Help WW5 vraag{n:02}", "hoe?"))
    hour = narrator.clock.now.replace(minute=0, second=0, microsecond=0)
    due = hour + timedelta(hours=1, minutes=1)
    fired: list[tuple[str, int, bool]] = []

    async def scenario(move_to: datetime | None) -> dict[str, datetime]:
        scheduler = DeadlineScheduler(
            sessions,
            mailer,
            clock,
            on_fired=lambda *job: fired.append(job),
            poll_interval=60,
            admins=(admin,),
        )
        await scheduler.start()
        try:
            planned = scheduler.planned
            if move_to is not None:
                clock.move_to(move_to)
                await scheduler.sync()
                await wait_until(lambda: bool(fired), timeout=10, message="the digest job")
        finally:
            await scheduler.stop()
        return planned

    assert run_async(scenario(due + timedelta(seconds=1))) == {HELP_DIGEST_JOB: due}
    assert fired == [("help-digest", 0, True)]
    digests = [m for m in narrator.outbox() if m.kind == "help_digest"]
    assert [m.recipient for m in digests] == [admin, admin]  # at once, and the closing one
    assert "vraag11" in digests[1].text and "vraag12" in digests[1].text
    assert run_async(scenario(None)) == {}  # restarted: nothing left to plan
    assert len([m for m in narrator.outbox() if m.kind == "help_digest"]) == 2


# A deadline that passed while no scheduler ran is due at once when one starts: no timer is
# waited for, so the test runs with the rest (not marked wallclock).


def test_a_deadline_missed_while_down_fires_at_start(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    game_id = new_game(sessions, mailer, speed=3600, started=now() - timedelta(hours=2))
    fired: list[tuple[str, int, bool]] = []  # the jobs run: kind, game id, did something

    async def scenario() -> DeadlineScheduler:
        woken: list[bool] = []
        scheduler = DeadlineScheduler(
            sessions,
            mailer,
            now,
            on_mail_queued=lambda: woken.append(True),
            on_fired=lambda *job: fired.append(job),
            poll_interval=60,
        )
        await scheduler.start()
        try:
            await wait_until(
                lambda: game_row(sessions, game_id).step_number == 2,
                timeout=10,
                message="the missed deadline to fire",
            )
            await wait_until(lambda: bool(woken), timeout=5, message="the sender to be woken")
        finally:
            await scheduler.stop()
        return scheduler

    run_async(scenario())
    assert ("deadline", game_id, True) in fired
    # The missed reminder of that step is not sent after its deadline.
    assert outbox_kinds(sessions, "reminder") == []
    game = game_row(sessions, game_id)
    assert game.deadline is not None and game.deadline > now() + timedelta(minutes=50)


# --- the scheduler on the real clock --------------------------------------------------------
# (Bounded by seconds of the wall clock: `make test` runs these alone, after the rest.)


@pytest.mark.wallclock
def test_deadlines_fire_one_after_another_each_once(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    game_id = new_game(sessions, mailer, speed=1, started=now(), strictness=50)

    async def scenario() -> None:
        scheduler = DeadlineScheduler(sessions, mailer, now, poll_interval=60)
        await scheduler.start()
        try:
            await wait_until(
                lambda: game_row(sessions, game_id).step_number >= 4,
                timeout=15,
                message="three deadlines to pass",
            )
        finally:
            await scheduler.stop()

    run_async(scenario())
    entries = resolutions(sessions, game_id)
    with transaction(sessions) as session:
        steps = session.scalars(
            select(Step).where(Step.game_id == game_id).order_by(Step.number)
        ).all()
        closed = [s for s in steps if s.resolved_at is not None]
        assert len(closed) == len(entries) >= 3
        for step in closed:
            assert step.deadline is not None and step.resolved_at is not None
            assert step.resolved_at >= step.deadline


@pytest.mark.wallclock
def test_two_schedulers_on_one_database_close_each_deadline_once(
    db_url: str, mailer: Mailer
) -> None:
    engines: list[Engine] = [make_engine(db_url), make_engine(db_url)]
    try:
        first, second = (session_factory(engine) for engine in engines)
        fired: tuple[list[tuple[str, int, bool]], ...] = ([], [])  # each scheduler's jobs run
        game_ids = [
            new_game(first, mailer, speed=1, started=now(), name=f"WW{n}") for n in range(1, 4)
        ]

        async def scenario() -> list[DeadlineScheduler]:
            schedulers = [
                DeadlineScheduler(
                    factory,
                    Mailer(FileStore(), NARRATOR),
                    now,
                    on_fired=lambda *job, jobs=jobs: jobs.append(job),
                    poll_interval=0.2,
                )
                for factory, jobs in ((first, fired[0]), (second, fired[1]))
            ]
            for scheduler in schedulers:
                await scheduler.start()
            try:
                await wait_until(
                    lambda: all(game_row(first, g).step_number >= 4 for g in game_ids),
                    timeout=20,
                    message="three deadlines of every game to pass",
                )
            finally:
                for scheduler in schedulers:
                    await scheduler.stop()
            return schedulers

        run_async(scenario())
        for game_id in game_ids:
            entries = resolutions(first, game_id)
            steps_closed = game_row(first, game_id).step_number - 1
            assert len(entries) == steps_closed
            # Each step number's step mails were queued once (Message-IDs are unique anyway;
            # a double close would have made a step more).
            with transaction(first) as session:
                numbers = session.scalars(
                    select(Step.number).where(Step.game_id == game_id).order_by(Step.number)
                ).all()
            assert list(numbers) == list(range(1, steps_closed + 2))
        done = Counter((kind, game_id) for jobs in fired for kind, game_id, did in jobs if did)
        assert sum(n for (kind, _), n in done.items() if kind == "deadline") == sum(
            len(resolutions(first, g)) for g in game_ids
        )
        # Both schedulers fired for the same deadlines: the later one found it handled.
        assert all(any(kind == "deadline" for kind, _, _ in jobs) for jobs in fired)
        assert any(not did for jobs in fired for kind, _, did in jobs if kind == "deadline")
    finally:
        for engine in engines:
            engine.dispose()


@pytest.mark.wallclock
def test_reminders_are_sent_by_the_scheduler_before_the_deadline(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    game_id = new_game(sessions, mailer, speed=3600, started=now())

    def lead(speed: timedelta) -> timedelta:
        return speed - timedelta(seconds=0.5)  # half a second into the step

    async def scenario() -> None:
        scheduler = DeadlineScheduler(sessions, mailer, now, reminder_lead=lead, poll_interval=60)
        await scheduler.start()
        try:
            assert f"reminder:{game_id}" in scheduler.planned
            await wait_until(
                lambda: game_row(sessions, game_id).reminded_at is not None,
                timeout=10,
                message="the reminder",
            )
            await wait_until(
                lambda: f"reminder:{game_id}" not in scheduler.planned,
                timeout=5,
                message="the reminder job to be gone",
            )
        finally:
            await scheduler.stop()

    run_async(scenario())
    game = game_row(sessions, game_id)
    assert game.step_number == 1
    asked = service.ruleset_of(game).asked(service.state_of(game))
    assert len(outbox_kinds(sessions, "reminder")) == len(asked)


@pytest.mark.wallclock
def test_an_extended_deadline_fires_at_its_new_time(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    game_id = new_game(sessions, mailer, speed=1, started=now())
    original = game_row(sessions, game_id).deadline
    assert original is not None

    async def scenario() -> None:
        scheduler = DeadlineScheduler(sessions, mailer, now, poll_interval=0.1)
        await scheduler.start()
        try:
            # Another process (the CLI) extends the deadline; the poll picks it up.
            with unit_of_work(sessions) as work:
                session = work.session
                game = session.get(Game, game_id)
                assert game is not None
                service.extend_deadline(work, game, timedelta(seconds=1.5), now=now())
            await wait_until(
                lambda: game_row(sessions, game_id).step_number == 2,
                timeout=10,
                message="the extended deadline",
            )
        finally:
            await scheduler.stop()

    run_async(scenario())
    with transaction(sessions) as session:
        step = session.scalars(select(Step).where(Step.game_id == game_id, Step.number == 1)).one()
        assert step.resolved_at is not None
        assert step.resolved_at >= original + timedelta(seconds=1.5)


@pytest.mark.wallclock
def test_a_paused_game_waits_and_resumes_with_the_time_it_had_left(
    sessions: sessionmaker[Session], mailer: Mailer
) -> None:
    game_id = new_game(sessions, mailer, speed=1, started=now())
    original = game_row(sessions, game_id).deadline
    assert original is not None

    def drive(action: Callable[[Work, Game], None]) -> None:
        with unit_of_work(sessions) as work:
            game = work.session.get(Game, game_id)
            assert game is not None
            action(work, game)

    async def scenario() -> datetime:
        scheduler = DeadlineScheduler(sessions, mailer, now, poll_interval=0.1)
        await scheduler.start()
        try:
            drive(lambda work, game: service.pause_game(work, game, now=now()))
            await wait_until(
                lambda: f"deadline:{game_id}" not in scheduler.planned,
                timeout=5,
                message="the paused game's deadline job to be dropped",
            )
            await wait_until(
                lambda: now() > original + timedelta(seconds=0.5),
                timeout=5,
                message="the original deadline to be well past",
            )
            assert game_row(sessions, game_id).status == GameStatus.PAUSED.value
            assert game_row(sessions, game_id).step_number == 1
            resumed = now()
            drive(lambda work, game: service.resume_game(work, game, now=resumed))
            await wait_until(
                lambda: game_row(sessions, game_id).step_number == 2,
                timeout=10,
                message="the resumed deadline",
            )
            return resumed
        finally:
            await scheduler.stop()

    resumed = run_async(scenario())
    with transaction(sessions) as session:
        step = session.scalars(select(Step).where(Step.game_id == game_id, Step.number == 1)).one()
        assert step.resolved_at is not None and step.resolved_at > resumed
        assert step.resolved_at > original + timedelta(seconds=0.5)
