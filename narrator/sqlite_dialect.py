"""The narrator's SQLite dialect: SQLAlchemy's pysqlite dialect whose ``do_begin`` opens every
transaction with ``BEGIN IMMEDIATE`` at the engine's turn (:class:`narrator.db.WriteTurns`).

SQLAlchemy's own recipe for SQLite's BEGIN is a ``begin`` event listener on the engine, which
is how :func:`narrator.db.make_engine` did it.  But an engine with any connection event makes
each connection dispatch every event point of every statement (before and after the execute,
before and after the cursor's, the commit), whether or not anything listens there: about 5 µs
a statement and 6 µs a transaction, 15% of a received mail's commit (a mail's 120 µs).  The
dialect's ``do_begin``, the hook SQLAlchemy calls to begin a DB-API transaction (the pysqlite
dialect's does nothing: the sqlite3 module begins on its own, which the narrator turns off),
emits the same statement with no event at all.  Registered by :mod:`narrator.db` under the
driver name ``sqlite+narrator`` (loaded only when a SQLite database is opened); an engine on
it is made by :func:`narrator.db.make_engine` only, which also has the pool end a turn when a
connection goes back to it (and sets the connection's pragmas).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

from narrator import db


class NarratorSQLiteDialect(SQLiteDialect_pysqlite):
    """pysqlite, each transaction begun by ``BEGIN IMMEDIATE`` at its turn (:attr:`turns`:
    one per engine, as each engine has a dialect of its own)."""

    # A dialect subclass must say so itself, or SQLAlchemy compiles every statement anew.
    supports_statement_cache = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The busy timeout as it is when the engine is made (as its connections' pragma is).
        self.turns = db.WriteTurns(db.SQLITE_BUSY_TIMEOUT_MS / 1000)

    def do_begin(self, dbapi_connection: Any) -> None:
        # `dbapi_connection`: the pool's proxy of the sqlite3 connection (its record's info,
        # its driver connection); a driver error is raised as SQLAlchemy's by its caller.
        self.turns.begin_immediate(dbapi_connection)
