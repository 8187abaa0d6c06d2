"""Limits of the processing pipeline: replies per sender (never loop, never flood) and sizes.

Every mail the pipeline answers costs its sender one unit in the ``reply_counters`` table
(one row per sender and clock hour).  Within :attr:`Limits.replies_per_hour` (this hour) and
:attr:`Limits.replies_per_day` (the last 24 hours) the answer is sent; the first mail over
either limit gets one polite notice instead (at most one per sender per day); after that the
sender's mail is still processed — votes count — but nothing is sent back.  Game mails (steps,
stories, roles) are not replies and are never limited.
"""

from __future__ import annotations

import enum
import json
import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Boolean,
    Connection,
    Integer,
    bindparam,
    cast,
    column,
    delete,
    func,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter

from narrator.config import Config
from narrator.models import ReplyCounter, fold_email
from narrator.tables import reply_counters
from stories.lexicon import explainer_for

log = logging.getLogger("narrator.limits")

NOTICE_KIND = "rate_limited"
COUNTER_RETENTION = timedelta(days=2)
# Defects `parse_mail` records when it cut a mail short; no mail client produces them.
HOSTILE_DEFECTS = ("mime-too-deep", "too-many-headers", "too-many-parts")


@dataclass(frozen=True)
class Limits:
    """The pipeline's limits (``[security]`` in the configuration); 0 means no limit."""

    replies_per_hour: int = 20
    replies_per_day: int = 100
    # Answers to addresses that play in no open game, all of them together, per clock hour.
    stranger_replies_per_hour: int = 200
    max_message_bytes: int = 10 * 1024 * 1024
    max_players_per_game: int = 100
    max_games_per_address: int = 10


class Admission(enum.Enum):
    """What may go back to a sender for one more mail."""

    SEND = "send"  # the normal answer
    NOTICE = "notice"  # over the limit: one polite notice instead of the answer
    SILENT = "silent"  # over the limit and already told: nothing


def _hour(now: datetime) -> datetime:
    return now.replace(minute=0, second=0, microsecond=0)


class Budget(enum.Enum):
    """Whose answers a mail's answer is counted with."""

    PLAYER = "player"  # the sender plays in an open game: his own counter
    STRANGER = "stranger"  # any other address: its own counter, and the strangers' hourly cap
    FORGED = "forged"  # a refusal of mail that failed authentication: once a day per address


# Counter keys that are no address (an address never starts with "!").
STRANGERS_KEY = "!strangers"
FORGED_PREFIX = "!forged:"
NOTICE_PREFIX = "!notice:"
HELP_PREFIX = "!help:"
# Help mails of one player forwarded to the admins in a clock hour beyond his reply limit.
HELP_FORWARDS_PER_HOUR = 10
HELD_PREFIX = "!held:"


def limit_key(address: str) -> str:
    """The address a reply limit counts: case and a ``+detail`` folded away, so that
    ``Victim+1@X`` … ``victim+60@x`` share the one mailbox's budget."""
    local, at, domain = fold_email(address).rpartition("@")
    if not at:
        return fold_email(address)
    return f"{local.split('+', 1)[0]}@{domain}"


def _over_strangers_cap(session: Session, now: datetime, limits: Limits) -> bool:
    """Count one more answer to a stranger this hour; whether that is over the strangers' cap
    (none when ``stranger_replies_per_hour`` is 0)."""
    if limits.stranger_replies_per_hour <= 0:
        return False
    with session.no_autoflush:
        strangers = _count_one(session, STRANGERS_KEY, _hour(now))
        if strangers == 1:  # once an hour: every counter too old to matter goes
            session.execute(
                delete(ReplyCounter).where(ReplyCounter.window_start < now - COUNTER_RETENTION)
            )
    if strangers == limits.stranger_replies_per_hour + 1:
        log.warning(
            "%s answers to strangers this hour: over the cap, no more answers to "
            "addresses that play in no game until the next hour",
            limits.stranger_replies_per_hour,
        )
    return strangers > limits.stranger_replies_per_hour


def admit_reply(
    session: Session,
    sender: str,
    now: datetime,
    limits: Limits,
    budget: Budget = Budget.PLAYER,
    counts: ReplyCounts | None = None,
) -> Admission:
    """Count one more answered mail from `sender` and return what may be sent back.

    Runs in the caller's transaction, so the count is committed with the answer (or not at all).
    A refusal of forged mail (``Budget.FORGED``) never touches the address's own counter: at
    most one goes out per address a day, and nothing else.  Answers to strangers are also
    counted together, and over ``stranger_replies_per_hour`` nothing is sent (not even the
    notice: it would be one more mail to an address a forger chose).
    With `counts` (the unit of work's, which read the hour's counters of its batch's senders),
    the sender's hour is counted there, and written back when the unit of work flushes.
    """
    key = limit_key(sender)
    if budget is Budget.FORGED:
        with session.no_autoflush:
            today = _count_one(session, FORGED_PREFIX + key[:200], _day(now))
        return Admission.SEND if today == 1 else Admission.SILENT
    if budget is Budget.STRANGER and _over_strangers_cap(session, now, limits):
        return Admission.SILENT
    hour_count, day_count = _sender_hour(session, key, now, counts)
    over_hour = limits.replies_per_hour > 0 and (hour_count or 0) > limits.replies_per_hour
    over_day = limits.replies_per_day > 0 and (day_count or 0) > limits.replies_per_day
    if not (over_hour or over_day):
        return Admission.SEND
    with session.no_autoflush:  # one notice per mailbox (+detail folded) a day
        notices = _count_one(session, NOTICE_PREFIX + key[:200], _day(now))
    if notices > 1:
        return Admission.SILENT
    log.warning(
        "%s sent %s mails this hour, %s in a day: over the limit, no more answers",
        key,
        hour_count,
        day_count,
    )
    return Admission.NOTICE


def _sender_hour(
    session: Session, key: str, now: datetime, counts: ReplyCounts | None
) -> tuple[int | None, int | None]:
    """Count one more answered mail of `key` this hour; return the hour's and the day's counts
    (by `counts`, the unit of work's, when it holds the sender's hour; else by a statement),
    the sender's stale counters deleted when the count found some."""
    # The counters are written by statements of their own, never by the ORM: what else the
    # transaction has pending (a batch's earlier mails) need not be flushed first, and is
    # flushed together at the end.  (A count held by `counts`, a batch's usual mail, runs Core
    # statements at most, which never flush: no need to hold the flush off for it.)
    counted = counts.count(session, key, now) if counts is not None else None
    if counted is not None and not counted[2]:
        return counted[0], counted[1]
    with session.no_autoflush:
        if counted is None:
            if counts is not None:  # another hour's (the clock turned): its day counts these
                counts.write(session.connection())
            counted = _count_hour(session, key, _hour(now), now - COUNTER_RETENTION)
        hour_count, day_count, stale = counted
        if stale:
            session.execute(
                delete(ReplyCounter).where(
                    ReplyCounter.sender.in_(
                        [key, FORGED_PREFIX + key[:200], NOTICE_PREFIX + key[:200]]
                    ),
                    ReplyCounter.window_start < now - COUNTER_RETENTION,
                )
            )
    return hour_count, day_count


def count_help_forward(session: Session, sender: str, now: datetime) -> int:
    """Count one more Help mail of `sender` forwarded beyond his reply limit this clock hour;
    return the hour's count."""
    with session.no_autoflush:
        return _count_one(session, HELP_PREFIX + limit_key(sender)[:200], _hour(now))


def count_help_held(session: Session, sender: str, now: datetime) -> tuple[int, int] | None:
    """Count one more Help mail of `sender` held this clock hour (a player's flood: more than
    the Help forwards allowed an hour); return the hour's ``(forwarded, held)``.  None when
    `sender` had no Help counted by :func:`count_help_forward` this hour (no player's flood)."""
    key, window = limit_key(sender)[:200], _hour(now)
    with session.no_autoflush:
        seen = (
            session.connection()
            .execute(
                select(_TABLE.c.count).where(
                    _TABLE.c.sender == HELP_PREFIX + key, _TABLE.c.window_start == window
                )
            )
            .scalar()
        )
        if not seen:
            return None
        held = _count_one(session, HELD_PREFIX + key, window)
    return max(0, int(seen) - held), held


def _day(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


# The counters' statements, built once (Core: every answered mail runs them).
_TABLE = reply_counters  # the table ReplyCounter maps
_COUNTERS_OF = select(_TABLE.c.window_start, _TABLE.c.count).where(
    _TABLE.c.sender == bindparam("sender")
)
_ADD_ONES = {
    name: insert(_TABLE)
    .values(sender=bindparam("sender"), window_start=bindparam("window"), count=1)
    .on_conflict_do_update(
        index_elements=[_TABLE.c.sender, _TABLE.c.window_start],
        set_={"count": _TABLE.c.count + 1},
    )
    for name, insert in (("sqlite", sqlite_insert), ("postgresql", postgresql_insert))
}
_UPSERTS = {name: add.returning(_TABLE.c.count) for name, add in _ADD_ONES.items()}
# Beside the hour's count an upsert returns the rest of the day's and whether any counter is
# stale, by subqueries on the row's sender's other counters (his few rows: one per hour, two
# days at most): for one mail (`_HOUR_UPSERTS`, adding one), and for a batch's senders
# (`_READ_UPSERTS`, adding the mails expected of each, one row per sender, executed for them
# all at once).
# The row's sender is compared as text: SQLite (3.40) finds the others by the (sender,
# window_start) index only so; compared as the column it is, in a RETURNING clause it reads
# the whole table for each row (a batch's read cost 0.8 ms of 500 counters, 2 ms of 1,500).
_ROW_OTHERS = (
    "FROM reply_counters AS others WHERE others.sender = CAST(reply_counters.sender AS TEXT)"
    " AND others.window_start != reply_counters.window_start"
)
_WINDOW = _TABLE.c.window_start.type
_ROW_REST_OF_DAY = (
    text(f"SELECT coalesce(sum(others.count), 0) {_ROW_OTHERS} AND others.window_start > :day")
    .bindparams(bindparam("day", type_=_WINDOW))
    .columns(column("rest", Integer))
    .scalar_subquery()
)
_ROW_ANY_STALE = (
    text(f"SELECT EXISTS (SELECT 1 {_ROW_OTHERS} AND others.window_start < :stale)")
    .bindparams(bindparam("stale", type_=_WINDOW))
    .columns(column("stale", Boolean))
    .scalar_subquery()
)
_HOUR_UPSERTS = {
    name: add.returning(_TABLE.c.count, _ROW_REST_OF_DAY, _ROW_ANY_STALE)
    for name, add in _ADD_ONES.items()
}
# A batch's senders are one parameter, a JSON object of their keys and how many mails of each
# are expected, made rows by the database (in the order of their keys): each row of an
# executemany cost SQLAlchemy its parameters' processing (three timestamps), more than the
# database's whole statement.
_SENDERS_JSON: BindParameter[str] = bindparam("senders")
_SENDERS = {
    "sqlite": func.json_each(_SENDERS_JSON).table_valued("key", "value"),
    "postgresql": func.jsonb_each_text(cast(_SENDERS_JSON, JSONB)).table_valued("key", "value"),
}


def _read_upsert(name: str, insert: Any) -> Any:
    """The batch's read of its senders' counters on the dialect `name` (its `insert`)."""
    senders = _SENDERS[name]
    add = insert(_TABLE).from_select(
        ["sender", "window_start", "count"],
        select(senders.c.key, bindparam("window", type_=_WINDOW), cast(senders.c.value, Integer))
        .where(true())  # (SQLite: an upsert's SELECT needs a WHERE before its ON CONFLICT)
        .order_by(senders.c.key),
    )
    return add.on_conflict_do_update(
        index_elements=[_TABLE.c.sender, _TABLE.c.window_start],
        set_={"count": _TABLE.c.count + add.excluded.count},
    ).returning(_TABLE.c.sender, _TABLE.c.count, _ROW_REST_OF_DAY, _ROW_ANY_STALE)


_READ_UPSERTS = {
    name: _read_upsert(name, insert)
    for name, insert in (("sqlite", sqlite_insert), ("postgresql", postgresql_insert))
}
_SET_COUNT = (
    update(_TABLE)
    .where(_TABLE.c.sender == bindparam("key"), _TABLE.c.window_start == bindparam("window"))
    .values(count=bindparam("new_count"))
)
_DROP_UNUSED = delete(_TABLE).where(
    _TABLE.c.sender.in_(bindparam("keys", expanding=True)),
    _TABLE.c.window_start == bindparam("window"),
    _TABLE.c.count == 0,
)


def _count_hour(
    session: Session, key: str, window: datetime, stale: datetime
) -> tuple[int, int, bool]:
    """Add one to `key`'s counter of the clock hour `window`; return the hour's new count, the
    day's (the 24 hours up to this one) and whether any of his counters started before
    `stale`.

    On SQLite and PostgreSQL one statement does it: the hour's upsert returns the rest beside
    its count (the sender's few counter rows: one per hour, two days at most).
    """
    connection = session.connection()
    upsert = _HOUR_UPSERTS.get(connection.dialect.name)
    day = window - timedelta(hours=24)
    if upsert is not None:
        values = {"sender": key, "window": window, "day": day, "stale": stale}
        hour, rest, any_stale = connection.execute(upsert, values).one()
        return int(hour), int(hour) + int(rest), bool(any_stale)
    hour = _count_one(session, key, window)
    counters = connection.execute(_COUNTERS_OF, {"sender": key}).all()
    day_count = sum(count for start, count in counters if start > day)
    return hour, day_count, any(start < stale for start, _ in counters)


@dataclass
class _Held:
    """A sender's counter of the hour as a unit of work holds it: its `count` there, the count
    in its row (`written`), the rest of the day's count and whether he has stale counters."""

    count: int
    written: int
    rest: int
    stale: bool


class ReplyCounts:
    """The reply counters of one hour of a batch's senders, held by its unit of work.

    The batch names its senders, one for each mail expected to be answered (:meth:`expect`);
    the first count (:meth:`count`) reads the counters of them all, of its hour, by one
    statement: an upsert that adds to each sender's the mails expected of him (a sender
    without a row this hour gets one).  On PostgreSQL it locks each sender's row of the hour
    (in the order of their keys) until the commit, as the upsert of :func:`admit_reply` did
    mail by mail, so another daemon counting one of them waits, then counts after these (no
    limit is exceeded); on SQLite the transaction holds the database's write lock anyway.  The
    counts are then made here, one mail at a time from the count before the batch, and
    :meth:`write` (when the unit of work flushes) writes back by one statement (an
    executemany) only those that differ from what the read wrote: of a sender some of whose
    mails were not answered after all (none: nothing is written, the read wrote them all), and
    drops the rows that counted nothing.
    """

    def __init__(self) -> None:
        self.window: datetime | None = None
        self._expected: Counter[str] = Counter()
        self._held: dict[str, _Held] = {}

    def expect(self, senders: Iterable[str]) -> None:
        """Have the first count read the counters of `senders` (addresses, one for each mail
        expected to be answered) too, and count those mails already."""
        self._expected.update(limit_key(sender) for sender in senders)

    def _read(self, session: Session, now: datetime) -> None:
        """Read the counters of the clock hour of `now` of the senders expected, adding the
        mails expected of each (on SQLite and PostgreSQL; elsewhere each is counted by
        :func:`admit_reply` alone)."""
        expected, self._expected = self._expected, Counter()
        mails = {key: n for key, n in sorted(expected.items()) if key not in self._held}
        connection = session.connection()
        upsert = _READ_UPSERTS.get(connection.dialect.name)
        if upsert is None or not mails:
            return
        window = self.window = _hour(now)
        day, stale = window - timedelta(hours=24), now - COUNTER_RETENTION
        values = {"senders": json.dumps(mails), "window": window, "day": day, "stale": stale}
        read = connection.execute(upsert, values)
        for key, count, rest, any_stale in read:
            # Counted here from the count before the batch; the row holds its expected mails.
            before = int(count) - mails[key]
            self._held[key] = _Held(before, int(count), int(rest), bool(any_stale))

    def count(self, session: Session, key: str, now: datetime) -> tuple[int, int, bool] | None:
        """Add one to `key`'s counter of the clock hour of `now`, if held here (the senders
        expected are read first, at the first count); return the hour's new count, the day's
        and whether he had stale counters (told once), as :func:`_count_hour` does.  None
        when it is not held here (another hour's, or not expected)."""
        if self._expected and self.window is None:
            self._read(session, now)
        held = self._held.get(key) if _hour(now) == self.window else None
        if held is None:
            return None
        held.count += 1
        stale, held.stale = held.stale, False
        return held.count, held.count + held.rest, stale

    def write(self, connection: Connection) -> None:
        """Write the counts that differ from their rows' (one statement), and drop the rows
        :meth:`read` made that counted nothing (they are no longer held)."""
        changed = [
            {"key": key, "window": self.window, "new_count": held.count}
            for key, held in self._held.items()
            if held.count != held.written
        ]
        if changed:
            connection.execute(_SET_COUNT, changed)
        unused = [key for key, held in self._held.items() if held.count == 0]
        if unused:
            connection.execute(_DROP_UNUSED, {"keys": unused, "window": self.window})
        for key in unused:
            del self._held[key]
        for held in self._held.values():
            held.written = held.count


def _count_one(session: Session, sender: str, window: datetime) -> int:
    """Add one to the sender's counter of `window`; return its new count.

    On SQLite and PostgreSQL one upsert does it (also when another worker creates the same
    window row meanwhile); elsewhere a look-up, then an update or an insert in a savepoint.
    """
    connection = session.connection()
    upsert = _UPSERTS.get(connection.dialect.name)
    if upsert is not None:
        return int(connection.execute(upsert, {"sender": sender, "window": window}).scalar_one())
    row = session.scalars(
        select(ReplyCounter).where(
            ReplyCounter.sender == sender, ReplyCounter.window_start == window
        )
    ).first()
    if row is not None:
        row.count += 1
        return row.count
    try:
        with session.begin_nested():  # another worker may create the same window row
            session.add(ReplyCounter(sender=sender, window_start=window, count=1))
        return 1
    except IntegrityError:
        row = session.scalars(
            select(ReplyCounter).where(
                ReplyCounter.sender == sender, ReplyCounter.window_start == window
            )
        ).one()
        row.count += 1
        return row.count


def hostile_defect(defects: tuple[str, ...]) -> str | None:
    """The first defect that marks a mail as built to hurt the parser (not a player's mail)."""
    return next((defect for defect in defects if defect in HOSTILE_DEFECTS), None)


# --- the texts of the pipeline's own refusals (the story packs' `error` mail shows them) ------


def refusal_text(code: str, ruleset: str, language: str, **params: str | int) -> str:
    """The explanation of one of the pipeline's own refusals, worded by the story pack of
    `ruleset` in `language` (its words.toml ``[errors]``, the params filled in)."""
    return explainer_for(ruleset, language)(
        code, {key: str(value) for key, value in params.items()}
    )


def limits_from_config(config: Config) -> Limits:
    """The limits of ``[security]``."""
    security = config.security
    return Limits(
        replies_per_hour=security.replies_per_hour,
        replies_per_day=security.replies_per_day,
        stranger_replies_per_hour=security.stranger_replies_per_hour,
        max_message_bytes=security.max_message_bytes,
        max_players_per_game=security.max_players_per_game,
        max_games_per_address=security.max_games_per_address,
    )
