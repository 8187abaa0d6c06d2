"""The reply limit's counters: the hour's and the day's counts, and the old rows dropped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import event, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, transaction
from narrator.models import ReplyCounter
from narrator.service.limits import (
    _HOUR_UPSERTS,
    _READ_UPSERTS,
    NOTICE_PREFIX,
    Admission,
    Limits,
    ReplyCounts,
    admit_reply,
)

NOW = datetime(2026, 3, 4, 12, 30, tzinfo=UTC)
HOUR = NOW.replace(minute=0)


def _counters(sessions: sessionmaker[Session]) -> dict[tuple[str, datetime], int]:
    with transaction(sessions) as session:
        rows = session.scalars(select(ReplyCounter)).all()
        return {(row.sender, row.window_start): row.count for row in rows}


def _admit(sessions: sessionmaker[Session], sender: str, limits: Limits) -> Admission:
    with transaction(sessions) as session:
        return admit_reply(session, sender, NOW, limits)


def test_the_day_counts_the_24_hours_up_to_this_one_and_old_counters_go(
    sessions: sessionmaker[Session],
) -> None:
    old = HOUR - timedelta(days=3)
    with transaction(sessions) as session:
        session.add_all(
            [
                ReplyCounter(sender="flood@example.net", window_start=HOUR, count=1),
                ReplyCounter(
                    sender="flood@example.net", window_start=HOUR - timedelta(hours=1), count=2
                ),
                ReplyCounter(
                    sender="flood@example.net", window_start=HOUR - timedelta(hours=23), count=1
                ),
                # Not in the day: the hour 24 hours before this one, and older.
                ReplyCounter(
                    sender="flood@example.net", window_start=HOUR - timedelta(hours=24), count=50
                ),
                ReplyCounter(sender="flood@example.net", window_start=old, count=50),
                ReplyCounter(sender=NOTICE_PREFIX + "flood@example.net", window_start=old, count=1),
                # Another sender's counters count nothing of his, and are not his to drop.
                ReplyCounter(sender="other@example.net", window_start=HOUR, count=70),
                ReplyCounter(sender="other@example.net", window_start=old, count=1),
            ]
        )
    limits = Limits(replies_per_hour=10, replies_per_day=6)
    # 2 this hour, 2 + 1 + 2 = 5 in the day: within both.
    assert _admit(sessions, "Flood+1@Example.net", limits) is Admission.SEND
    counters = _counters(sessions)
    assert counters[("flood@example.net", HOUR)] == 2
    # His counters older than two days went (his notices' too); the other sender's stayed.
    assert ("flood@example.net", old) not in counters
    assert (NOTICE_PREFIX + "flood@example.net", old) not in counters
    assert counters[("other@example.net", old)] == 1
    assert counters[("flood@example.net", HOUR - timedelta(hours=24))] == 50
    # 6 in the day, then 7: over the day's 6 (the hour has room), one notice, then silence.
    assert _admit(sessions, "flood@example.net", limits) is Admission.SEND
    assert _admit(sessions, "flood@example.net", limits) is Admission.NOTICE
    assert _admit(sessions, "flood@example.net", limits) is Admission.SILENT
    # The hour alone: its 11th answer is over the hour's 10, whatever the day allows.
    hourly = Limits(replies_per_hour=10, replies_per_day=0)
    assert _admit(sessions, "newcomer@example.net", hourly) is Admission.SEND
    for _ in range(9):
        assert _admit(sessions, "newcomer@example.net", hourly) is Admission.SEND
    assert _admit(sessions, "newcomer@example.net", hourly) is Admission.NOTICE


def test_the_counters_upserts_find_the_senders_other_counters_by_the_index(
    sqlite_url: str,
) -> None:
    """The upserts that return the rest of a sender's day and whether he has stale counters
    (one mail's, and a batch's read) find his other counters by the (sender, window_start)
    index on SQLite, not by reading the whole table for each row (they did: in a RETURNING
    clause SQLite compares the row's sender by the index only when it is cast to text)."""
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as connection:
            for name, upsert in (("hour", _HOUR_UPSERTS), ("read", _READ_UPSERTS)):
                sql = str(upsert["sqlite"].compile(dialect=connection.dialect))
                plan = connection.exec_driver_sql(
                    f"EXPLAIN QUERY PLAN {sql}", (None,) * sql.count("?")
                ).all()
                reads = [row[-1] for row in plan if "others" in row[-1]]
                assert reads, (name, plan)
                assert all(read.startswith("SEARCH others USING") for read in reads), (name, plan)
    finally:
        engine.dispose()


def test_a_batch_reads_the_counters_of_any_addresses_and_counts_on_from_them(
    sessions: sessionmaker[Session],
) -> None:
    """The senders a batch reads together (one parameter, a JSON array of their keys) may be
    any addresses: accents, quotes, backslashes; each is counted on from his own counter of the
    hour (the one this hour's earlier mail left), the day's rest beside it."""
    senders = ["zoë@example.net", 'o"brien@example.net', "back\\slash@example.net", "a@b.c"]
    with transaction(sessions) as session:
        session.add(ReplyCounter(sender="zoë@example.net", window_start=HOUR, count=4))
        session.add(ReplyCounter(sender="a@b.c", window_start=HOUR - timedelta(hours=2), count=5))
    with transaction(sessions) as session:
        counts = ReplyCounts()
        counts.expect(senders)
        counted = {key: counts.count(session, key, NOW) for key in senders}
        counts.write(session.connection())
    assert counted == {
        "zoë@example.net": (5, 5, False),
        'o"brien@example.net': (1, 1, False),
        "back\\slash@example.net": (1, 1, False),
        "a@b.c": (1, 6, False),
    }
    counters = _counters(sessions)
    assert {sender: counters[(sender, HOUR)] for sender in senders} == {
        "zoë@example.net": 5,
        'o"brien@example.net': 1,
        "back\\slash@example.net": 1,
        "a@b.c": 1,
    }


def test_a_batch_counts_its_expected_mails_by_the_read_and_writes_only_what_differs(
    sessions: sessionmaker[Session],
) -> None:
    """The read counts the mails expected of each sender; the counters then hold what was
    counted mail by mail: a mail expected but never answered is taken back, one answered but
    not expected is added, a sender with nothing counted keeps no row; and a batch that counts
    what it expected writes nothing more."""
    with transaction(sessions) as session:
        session.add(ReplyCounter(sender="anna@example.net", window_start=HOUR, count=3))
    with transaction(sessions) as session:
        counts = ReplyCounts()
        counts.expect(["Anna@example.net", "anna@example.net", "bram@example.net"])
        counts.expect(["cor@example.net", "dirk@example.net"])
        assert counts.count(session, "anna@example.net", NOW) == (4, 4, False)  # one of two
        assert counts.count(session, "cor@example.net", NOW) == (1, 1, False)
        assert counts.count(session, "cor@example.net", NOW) == (2, 2, False)  # not expected
        assert counts.count(session, "dirk@example.net", NOW) == (1, 1, False)
        counts.write(session.connection())
    assert _counters(sessions) == {
        ("anna@example.net", HOUR): 4,
        ("cor@example.net", HOUR): 2,
        ("dirk@example.net", HOUR): 1,
    }
    with transaction(sessions) as session:
        counts = ReplyCounts()
        counts.expect(["anna@example.net"])
        assert counts.count(session, "anna@example.net", NOW) == (5, 5, False)
        connection = session.connection()
        statements: list[str] = []

        def record(_conn: object, _cursor: object, statement: str, *_: object) -> None:
            statements.append(statement)

        event.listen(connection, "before_cursor_execute", record)
        counts.write(connection)
        event.remove(connection, "before_cursor_execute", record)
        assert statements == []  # nothing differs from what the read wrote
    assert _counters(sessions)[("anna@example.net", HOUR)] == 5


def test_the_expected_mails_of_an_hour_gone_by_are_taken_back(
    sessions: sessionmaker[Session],
) -> None:
    """The clock turns within a batch: the hour before keeps what it counted (not what the read
    expected of it), and the next hour counts on, its day including the hour before."""
    limits = Limits(replies_per_hour=0, replies_per_day=0, stranger_replies_per_hour=0)
    with transaction(sessions) as session:
        counts = ReplyCounts()
        counts.expect(["anna@example.net"] * 3)
        admit_reply(session, "anna@example.net", NOW, limits, counts=counts)
        later = NOW + timedelta(hours=1)
        admit_reply(session, "anna@example.net", later, limits, counts=counts)
        admit_reply(session, "anna@example.net", later, limits, counts=counts)
        counts.write(session.connection())
    assert _counters(sessions) == {
        ("anna@example.net", HOUR): 1,
        ("anna@example.net", HOUR + timedelta(hours=1)): 2,
    }
