"""Telling a database outage (expected, retried: one log line) from a bug (a traceback)."""

from __future__ import annotations

import logging

from sqlalchemy.exc import DBAPIError, OperationalError

from narrator.inbound.sink import StorageUnavailable


def is_database_unavailable(error: BaseException) -> bool:
    """Return whether `error` means the database cannot be used right now (SQLite locked,
    PostgreSQL down or restarting, a connection lost) rather than a bug.

    That is SQLAlchemy's OperationalError, any DBAPIError whose connection was invalidated, and
    the inbox sink's StorageUnavailable (unless what it wraps is something else).
    """
    if isinstance(error, StorageUnavailable):
        cause = error.__cause__
        return cause is None or is_database_unavailable(cause)
    if isinstance(error, OperationalError):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated


def first_line(error: BaseException) -> str:
    """The first line of the error's message (SQLAlchemy appends the SQL and a link)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def log_failure(logger: logging.Logger, error: BaseException, what: str, then: str = "") -> None:
    """Log at ERROR that `what` failed and what happens `then` (e.g. "retrying in 8s").

    A database outage is one line with the database's error and no traceback
    (``WHAT: database unavailable: ERROR; THEN``); anything else keeps its traceback.
    """
    suffix = f"; {then}" if then else ""
    if is_database_unavailable(error):
        logger.error("%s: database unavailable: %s%s", what, first_line(error), suffix)
    else:
        logger.error("%s%s", what, suffix, exc_info=error)
