"""The storage layer on real databases: connection settings, transactions, types, constraints."""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError, StatementError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from narrator.db import (
    WriteTurns,
    core_transaction,
    make_engine,
    session_factory,
    transaction,
)
from narrator.models import (
    Admin,
    Game,
    GameLogEntry,
    GameStatus,
    InboxMessage,
    OutboxMessage,
    Player,
    PlayerRow,
    ReplyCounter,
    Story,
    Vote,
    admin_emails,
    find_game,
    find_player,
    fold_email,
    fold_name,
    game_players,
    player_rows,
    player_rows_of,
)
from narrator.sqlite_dialect import NarratorSQLiteDialect


def _game(name: str = "WW5", **overrides: Any) -> Game:
    values: dict[str, Any] = {
        "name": name,
        "name_key": fold_name(name),
        "ruleset": "wakkerdam",
        "language": "nl",
        "theme": "wakkerdam",
        "speed": 172_800,
        "strictness": 2,
    }
    values.update(overrides)
    return Game(**values)


def _player(game: Game, seat: int, name: str, email: str) -> Player:
    return Player(
        game_id=game.id,
        seat=seat,
        name=name,
        name_key=fold_name(name),
        email=fold_email(email),
        gender="vrouw",
    )


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5_000
    finally:
        engine.dispose()


def test_sqlite_begin_goes_to_the_driver_not_through_a_statement(sqlite_url: str) -> None:
    """A transaction's BEGIN IMMEDIATE is sent to the driver's connection as its COMMIT is
    (no statement execution of its own: about 15 µs a transaction), and still takes the write
    lock up front: while another process holds it, the BEGIN waits, then fails with
    SQLAlchemy's OperationalError, as any statement's "database is locked" does."""
    engine = make_engine(sqlite_url)
    event.listen(
        engine, "connect", lambda dbapi, _record: dbapi.execute("PRAGMA busy_timeout = 50")
    )
    statements: list[str] = []

    def executed(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", executed)
    elsewhere = sqlite3.connect(
        str(make_url(sqlite_url).database), isolation_level=None, timeout=0.05
    )
    try:
        elsewhere.execute("BEGIN IMMEDIATE")
        with pytest.raises(OperationalError, match="database is locked"), engine.begin():
            pass
        elsewhere.execute("ROLLBACK")
        with engine.begin() as connection:
            connection.exec_driver_sql("SELECT 1")
            assert not elsewhere.in_transaction
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                elsewhere.execute("BEGIN IMMEDIATE")  # ours holds the write lock
        assert statements == ["SELECT 1"]
    finally:
        elsewhere.close()
        event.remove(engine, "before_cursor_execute", executed)
        engine.dispose()


def test_sqlite_engines_listen_to_no_connection_event(sqlite_url: str) -> None:
    """The BEGIN IMMEDIATE is the dialect's own (``do_begin``), not an engine event: an engine
    with any connection event has every statement dispatch all its event points (about 5 µs a
    statement).  Only SQLite through pysqlite is taken."""
    engine = make_engine(sqlite_url)
    again = make_engine(engine.url)  # an engine's URL names the narrator's dialect: taken too
    try:
        assert (engine.dialect.name, engine.dialect.driver) == ("sqlite", "pysqlite")
        for name in ("begin", "commit", "rollback", "before_execute", "before_cursor_execute"):
            assert not getattr(engine.dispatch, name), name
        assert isinstance(engine.dialect, NarratorSQLiteDialect)
        assert isinstance(again.dialect, NarratorSQLiteDialect)
        assert engine.dialect.turns is not again.dialect.turns  # each engine's own turns
    finally:
        engine.dispose()
        again.dispose()
    with pytest.raises(ValueError, match="pysqlcipher"):
        make_engine(sqlite_url.replace("sqlite:", "sqlite+pysqlcipher:", 1))


def test_an_engines_write_turns_wait_as_long_as_its_busy_timeout(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turns (held by the engine's dialect) take the busy timeout as it is when the engine
    is made, as its connections' pragma does (a daemon told to give up on the lock soon)."""
    monkeypatch.setattr("narrator.db.SQLITE_BUSY_TIMEOUT_MS", 200)
    engine = make_engine(sqlite_url)
    try:
        assert isinstance(engine.dialect, NarratorSQLiteDialect)
        assert engine.dialect.turns._timeout == 0.2
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 200
    finally:
        engine.dispose()


def test_a_mail_that_waited_before_its_transaction_waits_only_the_rest_of_the_timeout(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transaction told when its caller began to wait (a received mail queued behind other
    work) counts that wait against the busy timeout: with the whole timeout spent, a lock held
    by another process fails it at once ("try again later"), not after a timeout of its own;
    with part of it left, it waits that part and gets the lock if it comes free."""
    monkeypatch.setattr("narrator.db.SQLITE_BUSY_TIMEOUT_MS", 30_000)
    engine = make_engine(sqlite_url)
    sessions = session_factory(engine)
    with transaction(sessions) as session:
        session.add(_game())
    other = sqlite3.connect(make_url(sqlite_url).database, isolation_level=None)
    outcome: list[object] = []

    def write(since: float) -> None:
        try:
            with core_transaction(sessions, waiting_since=since) as connection:
                connection.execute(text("UPDATE games SET night = night + 1"))
            outcome.append("committed")
        except OperationalError as error:
            outcome.append(error)

    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        spent = threading.Thread(target=write, args=(time.monotonic() - 30,), daemon=True)
        spent.start()
        spent.join(timeout=10)  # not the 30 s a transaction of its own would wait
        assert not spent.is_alive()
        assert len(outcome) == 1 and "database is locked" in str(outcome[0])

        outcome.clear()
        rest = threading.Thread(target=write, args=(time.monotonic() - 25,), daemon=True)
        rest.start()  # 5 s of its timeout left: the lock comes free within them
        time.sleep(0.3)
        other.execute("COMMIT")
        rest.join(timeout=10)
        assert outcome == ["committed"]
    finally:
        other.close()
        engine.dispose()
    # The engine's next transaction waits the whole timeout again (nothing of the above kept).
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000


def test_a_new_game_gets_defaults_and_a_version(session: Session) -> None:
    game = _game()
    session.add(game)
    session.commit()
    assert game.status == GameStatus.SIGNUP
    assert (game.step, game.step_number, game.night, game.day) == (None, 0, 0, 0)
    assert game.close_early is False and game.reveal_roles is True
    assert game.version == 1
    assert game.created_at.tzinfo is not None


def test_transaction_commits_on_success_and_rolls_back_on_error(
    sessions: sessionmaker[Session],
) -> None:
    with transaction(sessions) as session:
        session.add(Admin(email="a@example.org"))
    with pytest.raises(RuntimeError), transaction(sessions) as session:
        session.add(Admin(email="b@example.org"))
        session.flush()
        raise RuntimeError("boom")
    with sessions() as session:
        assert session.scalars(select(Admin.email)).all() == ["a@example.org"]


def test_timestamps_are_stored_and_read_as_aware_utc(session: Session) -> None:
    amsterdam = timezone(timedelta(hours=1))
    deadline = datetime(2026, 11, 18, 10, 0, 0, tzinfo=amsterdam)
    session.add(_game(deadline=deadline))
    session.commit()
    session.expunge_all()
    stored = session.scalars(select(Game)).one()
    assert stored.deadline == deadline
    assert stored.deadline is not None and stored.deadline.utcoffset() == timedelta(0)
    assert stored.deadline.isoformat() == "2026-11-18T09:00:00+00:00"
    # Comparisons in SQL work across the backends too.
    due = session.scalars(select(Game.name).where(Game.deadline <= deadline)).all()
    assert due == ["WW5"]


def test_naive_timestamps_are_refused(session: Session) -> None:
    session.add(_game(deadline=datetime(2026, 11, 18, 9, 0)))
    with pytest.raises(StatementError, match="naive datetime"):
        session.commit()


def test_json_state_and_raw_bytes_round_trip(session: Session) -> None:
    state = {"players": [{"name": "Anna", "role": "weerwolf", "alive": True}], "votes": [], "n": 1}
    raw = b"Subject: WW5\r\n\r\nAnna \xe9\xff\x00\r\n"
    game = _game(state=state)
    session.add(game)
    session.flush()
    session.add(InboxMessage(message_id="<1@example.org>", source="smtp", raw=raw))
    session.add(
        GameLogEntry(
            game_id=game.id, seq=1, kind="created", payload={"a": [1, 2]}, at=datetime.now(UTC)
        )
    )
    session.commit()
    session.expunge_all()
    assert session.scalars(select(Game.state)).one() == state
    assert session.scalars(select(InboxMessage.raw)).one() == raw
    assert session.scalars(select(GameLogEntry.payload)).one() == {"a": [1, 2]}


def test_game_names_are_unique_ignoring_case_and_accents(session: Session) -> None:
    session.add(_game("Wolven"))
    session.commit()
    session.add(_game("WOLVEN"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    assert find_game(session, "wölven") is not None
    assert find_game(session, "Wolven2") is None


def test_players_are_unique_per_game_by_name_key_and_email(session: Session) -> None:
    game = _game()
    session.add(game)
    session.flush()
    session.add(_player(game, 1, "Anna", "anna@example.org"))
    session.commit()
    session.add(_player(game, 2, "ANNA", "other@example.org"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    session.add(_player(game, 2, "Bram", "Anna@Example.org"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    other = _game("WW6")
    session.add(other)
    session.flush()
    session.add(_player(other, 1, "Anna", "anna@example.org"))  # another game: allowed
    session.commit()


def test_player_helpers_find_by_folded_name_in_seat_order(session: Session) -> None:
    game = _game()
    session.add(game)
    session.flush()
    session.add_all(
        [
            _player(game, 2, "Bram", "bram@example.org"),
            _player(game, 1, "Éva", "eva@example.org"),
        ]
    )
    session.commit()
    assert [p.name for p in game_players(session, game)] == ["Éva", "Bram"]
    found = find_player(session, game, "eva")
    assert found is not None and found.name == "Éva"
    assert find_player(session, game, "Carla") is None


def test_player_rows_are_the_players_columns_in_seat_order_by_game(session: Session) -> None:
    first, second, empty = _game("WW5"), _game("WW6"), _game("WW7")
    session.add_all([first, second, empty])
    session.flush()
    session.add_all(
        [
            _player(second, 1, "Dirk", "dirk@example.org"),
            _player(first, 2, "Bram", "bram@example.org"),
            _player(first, 1, "Éva", "eva@example.org"),
        ]
    )
    unsubscribed = _player(first, 3, "Carla", "carla@example.org")
    unsubscribed.unsubscribed, unsubscribed.page_generation = True, 3
    session.add(unsubscribed)  # unflushed: read all the same (flushed first)
    columns = PlayerRow._fields

    def as_read(game: Game) -> list[tuple[Any, ...]]:
        return [
            tuple(getattr(p, column) for column in columns) for p in game_players(session, game)
        ]

    read = player_rows_of(session, [second.id, first.id, empty.id])
    assert list(read) == [second.id, first.id, empty.id]
    assert [p.name for p in read[first.id]] == ["Éva", "Bram", "Carla"]
    for game in (first, second, empty):
        assert [tuple(row) for row in read[game.id]] == as_read(game)
        assert player_rows(session, game) == read[game.id]
        assert player_rows_of(session, [game.id]) == {game.id: read[game.id]}  # one game's
    carla = read[first.id][2]
    assert type(carla) is PlayerRow and (carla.unsubscribed, carla.page_generation) == (True, 3)
    assert (carla.email, carla.gender, carla.game_id) == ("carla@example.org", "vrouw", first.id)
    assert player_rows_of(session, []) == {}


def test_the_players_of_games_are_read_in_the_order_of_an_index_without_a_sort(
    sqlite_url: str,
) -> None:
    """Every pass reads its games' players in seat order (``player_rows_of``; a single game's:
    ``player_rows``): SQLite reads them by the (game_id, seat) index, whose entries end with
    the row id, in the order asked, and sorts nothing (it sorted each pass's rows in a
    temporary B-tree before the index, migration 0011)."""
    from narrator.db import upgrade
    from narrator.models import _ROWS_OF, _ROWS_OF_GAMES

    upgrade(sqlite_url)
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as connection:
            for statement in (_ROWS_OF_GAMES.params(games=[1, 2, 3]), _ROWS_OF.params(game=1)):
                sql = statement.compile(
                    dialect=connection.dialect, compile_kwargs={"literal_binds": True}
                )
                plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}").all()
                details = [row[-1] for row in plan]
                assert any("ix_players_game_id_seat" in detail for detail in details), details
                assert not any("TEMP B-TREE" in detail for detail in details), details
    finally:
        engine.dispose()


def test_foreign_keys_are_enforced_and_deleting_a_game_cascades(session: Session) -> None:
    session.add(Player(game_id=4242, seat=1, name="X", name_key="x", email="x@e.org", gender="man"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    game = _game()
    session.add(game)
    session.flush()
    player = _player(game, 1, "Anna", "anna@example.org")
    session.add(player)
    session.flush()
    session.add(
        Vote(
            game_id=game.id,
            step_number=1,
            player_id=player.id,
            targets=["Anna"],
            keywords=[],
            cast_at=datetime.now(UTC),
        )
    )
    session.commit()
    session.delete(game)
    session.commit()
    assert session.scalar(select(func.count()).select_from(Player)) == 0
    assert session.scalar(select(func.count()).select_from(Vote)) == 0


@pytest.mark.parametrize(
    ("model", "values"),
    [
        (Game, {"status": "sleeping"}),
        (Game, {"speed": 0}),
        (Game, {"strictness": 0}),
    ],
)
def test_check_constraints_refuse_impossible_values(
    session: Session, model: type[Game], values: dict[str, Any]
) -> None:
    session.add(_game(**values))
    with pytest.raises(IntegrityError):
        session.commit()


def test_inbox_keys_each_mail_once(session: Session) -> None:
    session.add(InboxMessage(message_id="<a@x>", source="smtp", raw=b"1"))
    session.add(InboxMessage(message_id=None, source="inject", raw=b"2"))
    session.add(InboxMessage(message_id=None, source="inject", raw=b"3"))  # NULLs don't clash
    session.add(
        InboxMessage(
            message_id="<b@x>", source="imap", mailbox="INBOX", uidvalidity=7, uid=1, raw=b"4"
        )
    )
    session.commit()
    session.add(InboxMessage(message_id="<a@x>", source="imap", raw=b"5"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    session.add(
        InboxMessage(
            message_id="<c@x>", source="imap", mailbox="INBOX", uidvalidity=7, uid=1, raw=b"6"
        )
    )
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    session.add(InboxMessage(message_id="<d@x>", source="pigeon", raw=b"7"))
    with pytest.raises(IntegrityError):
        session.commit()


def test_outbox_message_ids_and_story_keys_are_unique(session: Session) -> None:
    session.add(OutboxMessage(message_id="<o@x>", recipient="a@x", raw=b"m", kind="receipt"))
    session.commit()
    session.add(OutboxMessage(message_id="<o@x>", recipient="b@x", raw=b"m", kind="receipt"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    key = {"ruleset": "wakkerdam", "language": "nl", "theme": "wakkerdam", "event": "death"}
    session.add(Story(**key, variant=1, source="{{ event.player }} is dood."))
    session.add(Story(**key, variant=2, source="Helaas, {{ event.player }}."))
    session.commit()
    session.add(Story(**key, variant=1, source="dubbel"))
    with pytest.raises(IntegrityError):
        session.commit()


@pytest.mark.postgres
def test_concurrent_updates_of_a_game_are_detected(postgres_db_url: str) -> None:
    # On SQLite transactions never overlap (BEGIN IMMEDIATE); see the next test.
    engine = make_engine(postgres_db_url)
    sessions = session_factory(engine)
    try:
        with transaction(sessions) as session:
            session.add(_game())
        with sessions() as first, sessions() as second:
            game_a = first.scalars(select(Game)).one()
            game_b = second.scalars(select(Game)).one()
            game_a.night = 1
            first.commit()
            game_b.night = 2
            with pytest.raises(StaleDataError):
                second.commit()
        with sessions() as session:
            game = session.scalars(select(Game)).one()
            assert (game.night, game.version) == (1, 2)
    finally:
        engine.dispose()


def test_sqlite_transactions_wait_for_each_other(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    sessions = session_factory(engine)
    with transaction(sessions) as session:
        session.add(_game())
    seen: list[int] = []
    first = sessions()
    try:
        game = first.scalars(select(Game)).one()  # BEGIN IMMEDIATE: holds the write lock
        reader = threading.Thread(
            target=lambda: seen.extend(_night_in_new_transaction(sessions)), daemon=True
        )
        reader.start()  # its transaction can only begin once ours has committed
        game.night = 1
        first.commit()
        reader.join(timeout=30)
    finally:
        first.close()
        engine.dispose()
    assert seen == [1]


def _night_in_new_transaction(sessions: sessionmaker[Session]) -> list[int]:
    with transaction(sessions) as session:
        return [session.scalars(select(Game.night)).one()]


def test_admin_emails_merge_the_config_and_the_table(session: Session) -> None:
    session.add_all([Admin(email="zed@example.org"), Admin(email="boss@example.org")])
    session.commit()
    assert admin_emails(session, ("Boss@Example.org", "cfg@example.org")) == [
        "boss@example.org",
        "cfg@example.org",
        "zed@example.org",
    ]


def test_sqlite_read_modify_write_transactions_do_not_lose_updates(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    sessions = session_factory(engine)
    window = datetime(2026, 1, 1, tzinfo=UTC)
    with transaction(sessions) as session:
        session.add(ReplyCounter(sender="a@x", window_start=window, count=0))
    errors: list[BaseException] = []

    def bump(times: int) -> None:
        try:
            for _ in range(times):
                with transaction(sessions) as session:
                    counter = session.scalars(select(ReplyCounter)).one()
                    counter.count += 1
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=bump, args=(25,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    try:
        assert errors == []
        with sessions() as session:
            assert session.scalars(select(ReplyCounter.count)).one() == 100
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_postgres_engine_survives_a_dropped_connection(postgres_db_url: str) -> None:
    engine = make_engine(postgres_db_url)
    killer = make_engine(postgres_db_url)
    try:
        with engine.connect() as connection:
            pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        with killer.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        with engine.connect() as connection:  # the pooled one is dead; pre-ping replaces it
            assert connection.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid
    finally:
        killer.dispose()
        engine.dispose()


class FakeConnection:
    """What WriteTurns uses of a pool's connection (its record's info, its driver
    connection's ``execute``) and of its pool record."""

    def __init__(self) -> None:
        self.info: dict[str, Any] = {}
        self.statements: list[str] = []
        self.driver_connection = self

    def execute(self, statement: str) -> SimpleNamespace:
        self.statements.append(statement)
        return SimpleNamespace(close=lambda: None)


def test_sqlite_writers_take_turns_in_order() -> None:
    # A thread that writes again and again must not keep the write lock from one waiting.
    turns = WriteTurns(timeout=30)
    worker, receiver = FakeConnection(), FakeConnection()
    order: list[str] = []
    turns.begin_immediate(worker)

    def receive() -> None:
        turns.begin_immediate(receiver)
        order.append("receiver")
        turns.end(None, receiver)

    thread = threading.Thread(target=receive)
    thread.start()
    deadline = datetime.now(UTC) + timedelta(seconds=30)
    while not turns._waiting and datetime.now(UTC) < deadline:  # the receiver waits its turn
        thread.join(timeout=0.001)
    turns.end(None, worker)
    turns.begin_immediate(worker)  # the worker's next transaction comes after the receiver's
    order.append("worker")
    turns.end(None, worker)
    thread.join(timeout=30)
    assert order == ["receiver", "worker"]

    def begins(statements: list[str]) -> list[str]:
        # A writer that waited for its turn shortens its busy timeout by the wait around its
        # BEGIN (and restores it after): how long it waited depends on the machine's load.
        pragmas = [s for s in statements if s.startswith("PRAGMA busy_timeout")]
        if pragmas:
            assert pragmas[-1] == "PRAGMA busy_timeout = 30000", statements
        return [s for s in statements if s not in pragmas]

    assert begins(worker.statements) == ["BEGIN IMMEDIATE"] * 2
    assert begins(receiver.statements) == ["BEGIN IMMEDIATE"]
    assert not turns._busy and not turns._waiting


def test_a_writer_that_waited_before_it_asked_gets_only_the_rest_of_the_timeout() -> None:
    # Its wait for the turn and its busy timeout for the lock end at `since` + the timeout.
    turns = WriteTurns(timeout=30)
    worker, receiver = FakeConnection(), FakeConnection()
    turns.begin_immediate(worker)  # the worker's transaction holds the turn
    turns.count_wait_from(receiver, time.monotonic() - 30)
    thread = threading.Thread(target=turns.begin_immediate, args=(receiver,), daemon=True)
    thread.start()
    thread.join(timeout=10)  # the whole timeout was spent: no wait for the turn
    assert not thread.is_alive()
    assert receiver.statements == [
        "PRAGMA busy_timeout = 0",
        "BEGIN IMMEDIATE",
        "PRAGMA busy_timeout = 30000",
    ]
    assert receiver.info == {"narrator.write_turn": False}  # went on without the turn
    turns.end(None, worker)
    turns.begin_immediate(receiver)  # its next transaction counts from its own BEGIN
    assert receiver.statements[3:] == ["BEGIN IMMEDIATE"]
    turns.end(None, receiver)
    assert not turns._busy and not turns._waiting
