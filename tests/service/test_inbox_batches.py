"""The inbox worker takes mail in batches (one transaction for several mails): the mails of a
batch see each other's effects, and a mail that fails costs the others of its batch nothing."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
import weakref
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory, transaction
from narrator.inbound.dbsink import DbSink
from narrator.models import (
    Game,
    GameLogEntry,
    InboxMessage,
    OutboxMessage,
    Player,
    ReplyCounter,
    Vote,
    game_players,
)
from narrator.outbound.outbox import Claimant
from narrator.service import games as service
from narrator.service.inbox import (
    MAX_ATTEMPTS,
    Claimed,
    InboxSettings,
    _arrived,
    arrival_of,
    process_pending,
)
from narrator.service.limits import Admission, Limits, admit_reply
from narrator.service.mailer import Mailer
from narrator.service.removal import remove_player
from narrator.service.table import table_of
from narrator.service.work import unit_of_work
from parsing import ErrorCode, ParseError, Route
from tests.service.test_game_by_mail import mail
from tests.support.bymail import NARRATOR, Clock
from tests.support.games import game_taking_signups
from tests.support.shipped import shipped_mailer

SETTINGS = InboxSettings(address=NARRATOR)


@pytest.fixture
def factory(engine: Engine) -> Iterator[sessionmaker[Session]]:
    yield session_factory(engine)


@pytest.fixture
def mailer() -> Mailer:
    return shipped_mailer(NARRATOR)


def new_game(factory: sessionmaker[Session]) -> None:
    with transaction(factory) as session:
        session.add(game_taking_signups())


def store(factory: sessionmaker[Session], *mails: tuple[str, str]) -> None:
    sink = DbSink(factory)
    for n, (sender, body) in enumerate(mails):
        sink.store_sync(mail(sender, "WW5", body, n), source="inject")


#: The players of the tests' games, in signup order.
SIX = ("Anna", "Bram", "Carla", "Dirk", "Eva", "Frank")


def store_signups(factory: sessionmaker[Session], names: Sequence[str] = SIX) -> None:
    """Store a signup of each of `names` (from name@example.org) to WW5."""
    store(factory, *((f"{name.lower()}@example.org", f"{name}, man") for name in names))


def store_next_vote(factory: sessionmaker[Session], sink: DbSink, step: int, n: int) -> bool:
    """Store (mail number `n`) a valid vote of an asked player of the one game who has not
    voted yet in step `step`; False, storing nothing, once the step has closed."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        if game.step_number != step:
            return False
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        player = next(p for p in rs.asked(state) if p not in state.votes)
        action = rs.choices(state, player).actions[0]
        targets = [t for t in action.targets if t != player][: action.min_names]
        body = " ".join(targets) or "blanco"
        if action.keyword:
            body += f" {action.keyword}"
    sink.store_sync(mail(f"{player.lower()}@example.org", "WW5", body, n), source="inject")
    return True


def receipts(factory: sessionmaker[Session]) -> dict[str, int]:
    """Replies by In-Reply-To: each mail must be answered exactly once."""
    with transaction(factory) as session:
        rows = session.scalars(select(OutboxMessage)).all()
    counts: dict[str, int] = {}
    for row in rows:
        header = row.raw.split(b"In-Reply-To: ", 1)[1].split(b"\r\n", 1)[0].decode()
        counts[header] = counts.get(header, 0) + 1
    return counts


def test_a_signup_changed_within_one_batch_changes_the_first(
    factory: sessionmaker[Session], mailer: Mailer, caplog: pytest.LogCaptureFixture
) -> None:
    """The second mail must see the player the first one added (not a stale player list)."""
    new_game(factory)
    store(
        factory,
        ("anna@example.org", "Anna, vrouw"),
        ("bram@example.org", "Bram, man"),
        ("anna@example.org", "Anneke, vrouw"),
    )
    outcomes = process_pending(factory, mailer, SETTINGS, Clock(), batch_size=10)
    assert [o.what for o in outcomes] == ["signup: Anna", "signup: Bram", "signup: Anneke"]
    assert "batch" not in caplog.text  # done as one batch, not undone and redone one by one
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert [(p.name, p.email) for p in game_players(session, game)] == [
            ("Anneke", "anna@example.org"),
            ("Bram", "bram@example.org"),
        ]


def test_a_vote_changed_within_one_batch_counts_once_as_the_last(
    factory: sessionmaker[Session], mailer: Mailer, caplog: pytest.LogCaptureFixture
) -> None:
    """Votes of one batch see the game state the earlier ones left (not a stale state)."""
    new_game(factory)
    store_signups(factory)
    clock = Clock()
    process_pending(factory, mailer, SETTINGS, clock)
    with unit_of_work(factory) as work:
        session = work.session
        game = session.scalars(select(Game)).one()
        service.start_game(work, mailer, game, now=clock(), seed=7)
        for _ in range(10):  # to a step where two players with two choices or more are asked
            state = service.load_state(work, game)
            rs = service.ruleset_of(game)
            asked = [
                p
                for p in rs.asked(state)
                if len(rs.choices(state, p).actions[0].targets) >= 2
                and rs.choices(state, p).actions[0].max_names == 1
            ]
            if len(asked) >= 2:
                break
            service.close_step(work, mailer, game, now=clock())
        voter, other = asked[:2]
        first, second = rs.choices(state, voter).actions[0].targets[:2]
        others_choice = rs.choices(state, other).actions[0].targets[0]
        step = game.step_number
    sink = DbSink(factory)
    sink.store_sync(mail(f"{voter.lower()}@example.org", "WW5", first, 100), source="inject")
    sink.store_sync(
        mail(f"{other.lower()}@example.org", "WW5", others_choice, 101), source="inject"
    )
    sink.store_sync(mail(f"{voter.lower()}@example.org", "WW5", second, 102), source="inject")
    outcomes = process_pending(factory, mailer, SETTINGS, clock, batch_size=10)
    assert [o.what for o in outcomes] == ["vote accepted"] * 3
    assert "batch" not in caplog.text  # done as one batch, not undone and redone one by one
    with unit_of_work(factory) as work:
        session = work.session
        game = session.scalars(select(Game)).one()
        votes = session.scalars(select(Vote).where(Vote.step_number == step)).all()
        assert [v.targets for v in votes] == [[first], [others_choice], [second]]
        # Each mail saw the state the earlier ones left: both players' votes are in it, the
        # changed one as changed.
        ballots = service.load_state(work, game).votes
        assert (ballots[voter], ballots[other]) == ((second,), (others_choice,))


def test_a_mail_that_fails_costs_its_batch_nothing(
    factory: sessionmaker[Session],
    mailer: Mailer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bug met by one mail of a batch: the batch is undone and its mails are taken one at a
    time; the others are applied and answered exactly once, the bad one retried then set
    aside, never lost."""
    new_game(factory)
    real_signup = service.signup

    def signup(*args: Any, **kwargs: Any) -> Any:
        if args[1].name == "Kapot":
            raise RuntimeError("a bug met by this one mail")
        return real_signup(*args, **kwargs)

    monkeypatch.setattr(service, "signup", signup)
    names = ["Anna", "Bram", "Kapot", "Dirk", "Eva"]
    store_signups(factory, names)
    clock = Clock()
    outcomes = process_pending(factory, mailer, SETTINGS, clock, batch_size=10)
    assert [o.what for o in outcomes if o.state == "done"] == [
        f"signup: {n}" for n in names if n != "Kapot"
    ]
    assert "a batch of 5 mails failed (RuntimeError: a bug met by this one mail)" in caplog.text
    for _ in range(MAX_ATTEMPTS):
        process_pending(factory, mailer, SETTINGS, clock, batch_size=10)
    with transaction(factory) as session:
        states = dict(session.execute(select(InboxMessage.message_id, InboxMessage.state)).all())
        failed = session.scalars(select(InboxMessage).where(InboxMessage.state == "failed")).one()
        players = session.scalar(select(func.count(Player.id)))
    assert failed.message_id == "m2.kapot@example.org" and failed.attempts == MAX_ATTEMPTS
    assert sorted(states.values()) == ["done"] * 4 + ["failed"]
    assert players == 4
    assert receipts(factory) == {
        f"<m{n}.{name.lower()}@example.org>": 1 for n, name in enumerate(names) if name != "Kapot"
    }


def test_mails_are_logged_once_committed(
    factory: sessionmaker[Session],
    mailer: Mailer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A batch that is undone logged nothing of what it had done: the log tells what stuck."""
    new_game(factory)
    real_signup = service.signup

    def signup(*args: Any, **kwargs: Any) -> Any:
        if args[1].name == "Kapot":
            raise RuntimeError("boom")
        return real_signup(*args, **kwargs)

    monkeypatch.setattr(service, "signup", signup)
    store(factory, ("anna@example.org", "Anna, vrouw"), ("kapot@example.org", "Kapot, man"))
    caplog.set_level(logging.INFO, logger="narrator.inbox")
    process_pending(factory, mailer, SETTINGS, Clock(), batch_size=10)
    assert caplog.text.count("signup: Anna") == 1


def test_a_unit_of_work_sees_the_games_its_own_changes_open_and_close(
    factory: sessionmaker[Session], mailer: Mailer
) -> None:
    """The open games are read once per unit of work, and again after a change of its own."""
    new_game(factory)
    with unit_of_work(factory) as work:
        assert [g.name for g in work.open_games()] == ["WW5"]
        game = work.locked_game(work.open_games()[0].id)
        assert game is not None and work.locked_game(game.id) is game
        work.session.add(game_taking_signups("WW7", language="en"))
        work.session.flush()
        assert [g.name for g in work.open_games()] == ["WW5"]  # read once: not seen yet
        work.games_changed()
        assert sorted((g.name, g.language) for g in work.open_games()) == [
            ("WW5", "nl"),
            ("WW7", "en"),
        ]
        game.status = "ended"
        work.games_changed()
        assert [g.name for g in work.open_games()] == ["WW7"]
    with unit_of_work(factory) as work:  # and nothing of it is remembered after the commit
        assert [g.name for g in work.open_games()] == ["WW7"]


def test_an_outcome_says_whether_its_transaction_moved_a_deadline(
    factory: sessionmaker[Session], mailer: Mailer
) -> None:
    """Only a mail whose batch changed a game's deadline or status (a vote that closed the step
    early) asks the daemon to read the deadlines again: a vote that leaves the step open and a
    signup do not."""
    new_game(factory)
    names = SIX
    store_signups(factory)
    clock = Clock()
    signups = process_pending(factory, mailer, SETTINGS, clock)
    assert [o.replan for o in signups] == [False] * len(names)
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        game.close_early = True
        service.start_game(work, mailer, game, now=clock(), seed=7)
        step = game.step_number
    sink = DbSink(factory)
    replans = []
    for n in range(30):  # every asked player votes, one mail a pass, until the step closes
        if not store_next_vote(factory, sink, step, 200 + n):
            break
        clock.now += timedelta(minutes=1)  # a step opened now ends later than the last
        outcomes = process_pending(factory, mailer, SETTINGS, clock)
        assert [o.what for o in outcomes] == ["vote accepted"]
        replans.append(outcomes[0].replan)
    assert len(replans) >= 2
    assert replans == [False] * (len(replans) - 1) + [True]  # the last closed the step early


def test_a_unit_of_work_tells_a_changed_plan_of_a_locked_game(
    factory: sessionmaker[Session],
) -> None:
    """What a game's deadline and reminder are planned from, compared with when it was locked."""
    new_game(factory)
    with unit_of_work(factory) as work:
        game = work.locked_game(work.open_games()[0].id)
        assert game is not None and not work.plans_changed()
        game.name = "WW6"  # not planned from
        assert not work.plans_changed()
        game.status = "running"
        assert work.plans_changed()


def test_a_unit_of_work_frees_its_tables_without_the_garbage_collector(
    factory: sessionmaker[Session],
) -> None:
    """A table and its unit of work refer to each other; the tables are dropped at the end of
    the unit of work, so a pass's players, states and casts are freed at once, not when the
    cyclic garbage collector next runs (also when the block raised)."""
    new_game(factory)
    gc.disable()
    try:
        for fails in (False, True):
            with contextlib.suppress(RuntimeError), unit_of_work(factory) as work:
                game = work.locked_game(work.open_games()[0].id)
                assert game is not None
                table = table_of(work, game)
                freed = weakref.ref(table)
                del table
                if fails:
                    raise RuntimeError("the block raised")
            assert freed() is None
    finally:
        gc.enable()


def test_a_batch_of_votes_in_several_games_costs_few_statements_a_vote(
    factory: sessionmaker[Session], mailer: Mailer, engine: Engine
) -> None:
    """The database's load per vote: a batch locks the games its mails name and reads their
    players together (not once per game), reads its senders' reply counters together, and
    writes what its votes change once per batch, each kind by one statement (the counters,
    the log, the votes, the receipts, the inbox rows, the games' states): no vote runs a
    statement of its own."""
    names = SIX
    games = ["WW5", "WW6", "WW7"]
    with transaction(factory) as session:
        session.add_all(game_taking_signups(game) for game in games)
    sink = DbSink(factory)
    for g, game in enumerate(games):
        for n, name in enumerate(names):
            sender = f"{name.lower()}@{game.lower()}.example.org"
            sink.store_sync(mail(sender, game, f"{name}, man", 10 * g + n), source="inject")
    clock = Clock()
    process_pending(factory, mailer, SETTINGS, clock)
    ballots: dict[str, list[tuple[str, str]]] = {}
    with unit_of_work(factory) as work:
        for g, game in enumerate(work.session.scalars(select(Game).order_by(Game.id))):
            service.start_game(work, mailer, game, now=clock(), seed=g)
            rs = service.ruleset_of(game)
            for _ in range(10):  # to a step where two players or more may vote
                state = service.load_state(work, game)
                if len(rs.asked(state)) >= 2:
                    break
                service.close_step(work, mailer, game, now=clock())
            for player in rs.asked(state)[:2]:
                action = rs.choices(state, player).actions[0]
                body = " ".join([t for t in action.targets if t != player][: action.min_names])
                ballots.setdefault(game.name, []).append((player, body or "blanco"))
    for n in range(2):  # the games' votes interleaved: WW5, WW6, WW7, WW5, WW6, WW7
        for game, votes in ballots.items():
            player, body = votes[n]
            sender = f"{player.lower()}@{game.lower()}.example.org"
            sink.store_sync(mail(sender, game, body, 100 + n), source="inject")
    statements: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(" ".join(statement.split())[:60])

    event.listen(engine, "before_cursor_execute", count)
    try:
        outcomes = process_pending(factory, mailer, SETTINGS, clock, batch_size=10)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert [o.what for o in outcomes] == ["vote accepted"] * 6
    # 11 (SQLite's BEGIN goes to the driver, as the COMMIT: no statement; 12 with it before),
    # for 6 votes in 3 games, as for any number of them: the claim, the open games, the games
    # locked, their players, the senders' counters read, and one write of each kind; 38 and
    # 37 before (each vote's counter, log entry, vote row, receipt and inbox row by statements
    # of its own, and each game's state), 51 and 50 before that (a select of each game, of its
    # players and of its log's last seq, and one of each sender's counters).
    assert len(statements) <= 11, "\n".join(statements)
    # Each kind of row is written once per batch, all together; the senders' counters by their
    # read, which counts the mails expected of them (every one was answered: no other write).
    once = [
        "UPDATE games",
        "UPDATE inbox",
        "INSERT INTO outbox",
        "INSERT INTO game_log",
        "INSERT INTO votes",
        "INSERT INTO reply_counters",
    ]
    assert [sum(s.startswith(w) for s in statements) for w in once] == [1] * len(once), statements
    assert not any(s.startswith("UPDATE reply_counters") for s in statements), statements
    with transaction(factory) as session:  # the log's entries numbered in order, per game
        for game in session.scalars(select(Game)):
            seqs = session.scalars(
                select(GameLogEntry.seq)
                .where(GameLogEntry.game_id == game.id)
                .order_by(GameLogEntry.id)
            ).all()
            assert seqs == list(range(1, len(seqs) + 1))
            kinds = session.scalars(
                select(GameLogEntry.kind).where(GameLogEntry.game_id == game.id)
            ).all()
            assert kinds.count("vote") == 2


def test_a_mail_read_before_the_open_games_changed_is_routed_again(
    factory: sessionmaker[Session], mailer: Mailer
) -> None:
    """A batch reads its mails before it processes the first; a mail is routed again among the
    games open when its turn comes (an earlier mail may have ended one), not parsed again."""
    new_game(factory)
    raw = mail("anna@example.org", "WW5", "Anna, vrouw", 1)
    row = Claimed(1, "<m1.anna@example.org>", "anna@example.org", raw)
    now = Clock()()
    with unit_of_work(factory) as work:
        early = arrival_of(SETTINGS, row, ())  # read when no game was open
        assert isinstance(early.routed, ParseError) and early.routed.code is ErrorCode.NO_GAME
        arrived = _arrived(work, mailer, SETTINGS, row, now, early)
        assert arrived.routed == Route("WW5") and arrived.parsed is early.parsed
        current = arrival_of(SETTINGS, row, ("WW5",))
        assert _arrived(work, mailer, SETTINGS, row, now, current).routed is current.routed


def test_the_games_a_batch_locks_stay_locked_to_other_daemons(postgres_db_url: str) -> None:
    """PostgreSQL: the games a batch locks together are held ``FOR UPDATE`` until its commit
    (another daemon's lock of one waits; here it asks NOWAIT and is refused), and their
    players are read with them."""
    engine = make_engine(postgres_db_url)
    other = make_engine(postgres_db_url)
    try:
        factory = session_factory(engine)
        with transaction(factory) as session:
            session.add_all(game_taking_signups(name) for name in ("WW5", "WW6", "WW7"))
        with unit_of_work(factory) as work:
            ids = {g.name: g.id for g in work.open_games()}
            work.lock_games([ids["WW6"], ids["WW5"]])
            game = work.locked_game(ids["WW5"])
            assert game is not None and game.name == "WW5" and work.players(game) == []
            with other.connect() as connection:
                for name, locked in (("WW5", True), ("WW6", True), ("WW7", False)):
                    query = text("SELECT id FROM games WHERE id = :id FOR UPDATE NOWAIT")
                    if locked:
                        with pytest.raises(OperationalError, match="could not obtain lock"):
                            connection.execute(query, {"id": ids[name]})
                        connection.rollback()
                    else:
                        assert connection.execute(query, {"id": ids[name]}).scalar() == ids[name]
                        connection.rollback()
        with unit_of_work(factory) as work:  # one game alone: by the statement of one
            work.lock_games([ids["WW7"]])
            game = work.locked_game(ids["WW7"])
            assert game is not None and game.name == "WW7" and work.players(game) == []
            with other.connect() as connection:
                query = text("SELECT id FROM games WHERE id = :id FOR UPDATE NOWAIT")
                with pytest.raises(OperationalError, match="could not obtain lock"):
                    connection.execute(query, {"id": ids["WW7"]})
                connection.rollback()
                assert connection.execute(query, {"id": ids["WW5"]}).scalar() == ids["WW5"]
                connection.rollback()
    finally:
        other.dispose()
        engine.dispose()


def test_every_mail_a_pass_with_a_claimant_queues_is_claimed_and_carried_by_its_outcome(
    factory: sessionmaker[Session], mailer: Mailer
) -> None:
    """The daemon's pass hands its sender what it queued, and no more wakes it: so every mail
    queued in the pass (replies, and a step's mails when a vote closes it early) is claimed by
    the claimant and named by an outcome; mail queued elsewhere (the start) is not claimed."""
    owner = 4242
    settings = dataclasses.replace(SETTINGS, claimant=Claimant(owner, timedelta(minutes=10)))
    new_game(factory)
    store_signups(factory)
    clock = Clock()
    outcomes = process_pending(factory, mailer, settings, clock)
    with unit_of_work(factory) as work:
        signed_up = set(work.session.scalars(select(OutboxMessage.id)))
        game = work.session.scalars(select(Game)).one()
        game.close_early = True
        service.start_game(work, mailer, game, now=clock(), seed=7)
        step = game.step_number
    with transaction(factory) as session:
        started = set(session.scalars(select(OutboxMessage.id))) - signed_up
    sink = DbSink(factory)
    for n in range(30):  # every asked player votes, one mail a pass, until the step closes
        if not store_next_vote(factory, sink, step, 200 + n):
            break
        clock.now += timedelta(minutes=1)
        outcomes += process_pending(factory, mailer, settings, clock)
    assert outcomes[-1].replan and len(outcomes[-1].queued) > 1  # the receipt, the next step's
    queued = [item for outcome in outcomes for item in outcome.queued]
    with transaction(factory) as session:
        rows = session.execute(
            select(OutboxMessage.id, OutboxMessage.claimed_by, OutboxMessage.attempts)
        ).all()
    assert {row.id for row in rows if row.claimed_by is None} == started
    assert sorted(item.id for item in queued) == sorted(r.id for r in rows if r.id not in started)
    assert {(r.claimed_by, r.attempts) for r in rows if r.id not in started} == {(owner, 1)}


def test_votes_written_at_the_flush_count_for_what_reads_them_in_the_same_unit_of_work(
    factory: sessionmaker[Session], mailer: Mailer
) -> None:
    """A vote's row is written when its unit of work flushes; a reminder, or a removal, later
    in the same unit of work still counts it (the voter is not reminded; a removed voter's
    vote is withdrawn)."""
    new_game(factory)
    store_signups(factory)
    clock = Clock()
    process_pending(factory, mailer, SETTINGS, clock)
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, mailer, game, now=clock(), seed=1)
        rs = service.ruleset_of(game)
        for _ in range(10):  # to a step where two players or more may vote
            if len(rs.asked(service.load_state(work, game))) >= 2:
                break
            service.close_step(work, mailer, game, now=clock())
    for removed in (False, True):
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            table = table_of(work, game)
            state = table.state
            voter, other = rs.asked(state)[:2]
            action = rs.choices(state, voter).actions[0]
            targets = [t for t in action.targets if t != voter][: action.min_names]
            player = next(p for p in table.players if p.name == voter)
            keywords = [action.keyword] if action.keyword else []
            ballot = service.Ballot(targets, not targets, keywords)
            assert service.cast_vote(table, player, ballot, clock()).accepted
            if not removed:
                reminded = service.remind(table, clock()).names
                assert voter not in reminded and other in reminded
                continue
            voting = work.session.get(Player, player.id)
            assert voting is not None
            remove_player(work, mailer, game, voting, now=clock(), by="cli")
        with transaction(factory) as session:
            voters = session.scalars(select(Vote.player_id)).all()
        assert voters == ([] if removed else [player.id])


def test_a_batch_counts_its_senders_replies_as_one_mail_at_a_time_would(
    factory: sessionmaker[Session], mailer: Mailer, engine: Engine
) -> None:
    """The reply counters of a batch's senders are read by one statement, which counts the
    mails expected of them: the limits count every mail of the batch in turn (his third mail
    over a limit of two gets the notice, the fourth nothing), the counters are committed with
    the batch, and a sender whose mail is not answered (an automatic reply) is left without a
    counter."""
    new_game(factory)
    settings = dataclasses.replace(SETTINGS, limits=Limits(replies_per_hour=2))
    store(factory, *[("flood@example.org", "Flood, man")] * 4, ("anna@example.org", "Anna, vrouw"))
    auto = mail("robot@example.org", "WW5", "away", 9).replace(
        b"Subject:", b"Auto-Submitted: auto-replied\r\nSubject:", 1
    )
    DbSink(factory).store_sync(auto, source="inject")
    with _reply_counter_statements(engine) as statements:
        outcomes = process_pending(factory, mailer, settings, Clock(), batch_size=10)
    suffixes = [o.what.partition(" (over the reply limit")[1:] for o in outcomes]
    assert [s[1] if s[0] else "" for s in suffixes][:5] == [
        "",
        "",
        ": notice)",
        ": silent)",
        "",
    ], [o.what for o in outcomes]
    assert outcomes[5].state == "ignored"
    # One read (and for the strangers' cap, a count of its own); no write: every mail the read
    # counted was answered.
    assert statements.count("UPDATE") == 0 and statements.count("SELECT") == 0, statements
    with transaction(factory) as session:
        counters = {
            row.sender: row.count
            for row in session.scalars(select(ReplyCounter))
            if not row.sender.startswith("!")
        }
    assert counters == {"flood@example.org": 4, "anna@example.org": 1}


def test_the_reply_counters_a_batch_reads_stay_locked_to_other_daemons(
    postgres_db_url: str,
) -> None:
    """PostgreSQL: the hour's counters of a batch's senders, read together at its first count,
    are held until its commit, also those it made (another daemon's count of one of them waits:
    here it gives up after a lock timeout); a counter that counted nothing is dropped."""
    engine = make_engine(postgres_db_url)
    other = make_engine(postgres_db_url)
    now = Clock()()
    window = now.replace(minute=0, second=0, microsecond=0)
    try:
        factory = session_factory(engine)
        with transaction(factory) as session:
            session.add(ReplyCounter(sender="anna@example.org", window_start=window, count=3))
        count_one = text(
            "INSERT INTO reply_counters (sender, window_start, count) VALUES (:s, :w, 1) "
            "ON CONFLICT (sender, window_start) DO UPDATE SET count = reply_counters.count + 1"
        )
        with unit_of_work(factory) as work:
            work.replies.expect(["Anna@example.org", "bram@example.org"])
            admission = admit_reply(
                work.session, "anna@example.org", now, Limits(), counts=work.replies
            )
            assert admission is Admission.SEND
            with other.connect() as connection:
                connection.execute(text("SET lock_timeout = '200ms'"))
                for sender, locked in (("anna", True), ("bram", True), ("carla", False)):
                    values = {"s": f"{sender}@example.org", "w": window}
                    if locked:
                        with pytest.raises(OperationalError, match="lock timeout"):
                            connection.execute(count_one, values)
                    else:
                        connection.execute(count_one, values)
                    connection.rollback()
                    connection.execute(text("SET lock_timeout = '200ms'"))
        with transaction(factory) as session:
            counters = {row.sender: row.count for row in session.scalars(select(ReplyCounter))}
        assert counters == {"anna@example.org": 4}
    finally:
        other.dispose()
        engine.dispose()


def test_a_mail_refused_unauthenticated_costs_the_batch_no_counter(
    factory: sessionmaker[Session], mailer: Mailer, engine: Engine
) -> None:
    """A mail whose From names no single sender is never counted against its sender's reply
    limit (a stranger's is ignored): the batch does not read a counter for him, to drop it
    again at its flush."""
    new_game(factory)
    store(factory, ("anna@example.org", "Anna, vrouw"))
    forged = mail("zora@example.org", "WW5", "Zora, vrouw", 1).replace(
        b"From: zora@example.org", b"From: zora@example.org <mallory@evil.test>", 1
    )
    DbSink(factory).store_sync(forged, source="inject")
    with _reply_counter_statements(engine) as statements:
        # (No strangers' cap: its own counter, and the stale counters' clean-up, stay apart.)
        settings = dataclasses.replace(SETTINGS, limits=Limits(stranger_replies_per_hour=0))
        outcomes = process_pending(factory, mailer, settings, Clock(), batch_size=10)
    assert [o.what for o in outcomes] == [
        "signup: Anna",
        "ignored: unauthenticated (several addresses in From)",
    ]
    assert statements == ["INSERT"], statements  # Anna's read, which counted her mail
    with transaction(factory) as session:
        counters = {row.sender: row.count for row in session.scalars(select(ReplyCounter))}
    assert counters == {"anna@example.org": 1}


@contextlib.contextmanager
def _reply_counter_statements(engine: Engine) -> Iterator[list[str]]:
    """The verbs (SELECT, INSERT...) of the statements run on `engine` on the reply counters
    while the block runs."""
    statements: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        if "reply_counters" in statement:
            statements.append(statement.split(" ", 1)[0])

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_a_mail_is_authenticated_whatever_the_batch_guesses_of_the_first_rules(
    factory: sessionmaker[Session], mailer: Mailer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a mail is authenticated is found for every mail as it is read: the batch's guess
    of which mails the chain's first rules let through (to read their senders' reply counters
    up front) decides nothing else, so a wrong guess lets no forged From through."""
    from narrator.service import inbox

    new_game(factory)
    forged = mail("zora@example.org", "WW5", "Zora, vrouw", 1).replace(
        b"From: zora@example.org", b"From: zora@example.org <mallory@evil.test>", 1
    )
    DbSink(factory).store_sync(forged, source="inject")
    monkeypatch.setattr(inbox, "_passes_first_rules", lambda *_: False)  # a wrong guess
    outcomes = process_pending(factory, mailer, SETTINGS, Clock(), batch_size=10)
    assert [o.what for o in outcomes] == ["ignored: unauthenticated (several addresses in From)"]
