"""`narrator db …`: database migrations; also the config/session helpers the other commands use."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from narrator.cli import CommandError, Subparsers

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine
    from sqlalchemy.exc import SQLAlchemyError
    from sqlalchemy.orm import Session

    from narrator.config import Config


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator db upgrade|downgrade|current`."""
    parser = subparsers.add_parser("db", parents=[common], help="database migrations")
    commands = parser.add_subparsers(title="db commands", metavar="COMMAND", required=True)

    upgrade = commands.add_parser(
        "upgrade", parents=[common], help="apply the Alembic migrations (to the newest by default)"
    )
    upgrade.add_argument("revision", nargs="?", default="head", help="target (default: head)")
    upgrade.set_defaults(func=_upgrade)

    down = commands.add_parser(
        "downgrade", parents=[common], help="revert migrations down to REVISION (base: all)"
    )
    down.add_argument("revision", help="target revision, or 'base' to remove every table")
    down.set_defaults(func=_downgrade)

    current = commands.add_parser(
        "current", parents=[common], help="show the database's migration revision"
    )
    current.add_argument("--json", action="store_true", help="print one JSON object")
    current.set_defaults(func=_current)


def config_from_args(args: argparse.Namespace) -> Config:
    """Return the configuration named by ``--config`` (or the default); CommandError if bad."""
    from narrator.config import ConfigError, load_config

    try:
        return load_config(getattr(args, "config", None))
    except ConfigError as error:
        raise CommandError(str(error)) from None


def shown_url(url: str) -> str:
    """Return `url` safe to print (password hidden)."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


@contextmanager
def database_session(config: Config) -> Iterator[Session]:
    """Yield a session in one transaction on the configured, migrated database.

    Commits when the block succeeds and rolls back otherwise. Raises CommandError when the
    database cannot be reached or is not at the newest migration.
    """
    from narrator.db import session_factory

    with (
        _migrated_engine(config) as engine,
        session_factory(engine)() as session,
        session.begin(),
    ):
        yield session


@contextmanager
def database_connection(config: Config) -> Iterator[Connection]:
    """Yield a SQLAlchemy Core connection in one transaction on the configured, migrated
    database, as :func:`database_session` does a session: for a command that only reads the
    tables of :mod:`narrator.tables` and so need not import the ORM (``game show``)."""
    with _migrated_engine(config) as engine, engine.begin() as connection:
        yield connection


@contextmanager
def _migrated_engine(config: Config) -> Iterator[Engine]:
    """The configured database's engine, once it is known to be at the newest migration;
    an OperationalError in the block is a CommandError naming the database."""
    from sqlalchemy.exc import OperationalError

    from narrator.db import make_engine

    url = config.database_url
    engine = make_engine(url)
    try:
        _check_migrated(url)
        yield engine
    except OperationalError as error:
        raise CommandError(f"database {shown_url(url)}: {_first_line(error)}") from None
    finally:
        engine.dispose()


def _check_migrated(url: str) -> None:
    from sqlalchemy.exc import SQLAlchemyError

    from narrator.db import current_revision, head_revision

    try:
        revision = current_revision(url)
    except SQLAlchemyError as error:
        raise CommandError(f"cannot open database {shown_url(url)}: {_first_line(error)}") from None
    head = head_revision()
    if revision is None:
        raise CommandError(
            f"database {shown_url(url)} has no tables yet; run `narrator db upgrade` first"
        )
    if revision != head:
        raise CommandError(
            f"database {shown_url(url)} is at revision {revision}, this narrator needs {head}; "
            "run `narrator db upgrade`"
        )


def _first_line(error: SQLAlchemyError) -> str:
    original = getattr(error, "orig", None)
    text = str(original if original is not None else error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _upgrade(args: argparse.Namespace) -> None:
    from alembic.script.revision import RevisionError
    from alembic.util import CommandError as AlembicError
    from sqlalchemy.exc import SQLAlchemyError

    from narrator.db import current_revision
    from narrator.db import upgrade as upgrade_database

    config = config_from_args(args)
    url = config.database_url
    try:
        before = current_revision(url)
        upgrade_database(url, args.revision)
        after = current_revision(url)
    except SQLAlchemyError as error:
        raise CommandError(f"database {shown_url(url)}: {_first_line(error)}") from None
    except (AlembicError, RevisionError) as error:
        raise CommandError(f"cannot upgrade to {args.revision!r}: {error}") from None
    if before == after:
        print(f"database {shown_url(url)} is up to date (revision {after})")
    else:
        print(f"database {shown_url(url)} upgraded from {before or 'empty'} to {after}")


def _downgrade(args: argparse.Namespace) -> None:
    from alembic.script.revision import RevisionError
    from alembic.util import CommandError as AlembicError
    from sqlalchemy.exc import SQLAlchemyError

    from narrator.db import current_revision, downgrade

    config = config_from_args(args)
    url = config.database_url
    try:
        downgrade(url, args.revision)
        after = current_revision(url)
    except SQLAlchemyError as error:
        raise CommandError(f"database {shown_url(url)}: {_first_line(error)}") from None
    except (AlembicError, RevisionError) as error:
        raise CommandError(f"cannot downgrade to {args.revision!r}: {error}") from None
    print(f"database {shown_url(url)} is now at revision {after or 'base (no tables)'}")


def _current(args: argparse.Namespace) -> None:
    from sqlalchemy.exc import SQLAlchemyError

    from narrator.db import current_revision, head_revision

    config = config_from_args(args)
    url = config.database_url
    try:
        revision = current_revision(url)
    except SQLAlchemyError as error:
        raise CommandError(f"database {shown_url(url)}: {_first_line(error)}") from None
    head = head_revision()
    if args.json:
        print(json.dumps({"database": shown_url(url), "revision": revision, "head": head}))
    else:
        state = "up to date" if revision == head else f"needs upgrade to {head}"
        print(f"{shown_url(url)}: revision {revision or 'none'} ({state})")
