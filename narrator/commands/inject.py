"""`narrator inject [FILE.eml ...]`: store raw messages as if they arrived by mail (MTA pipe).

Exit status (sysexits, as an MTA pipe transport expects): 0 when every message is stored (new or
already there), 75 (EX_TEMPFAIL) when storage is unavailable so the MTA keeps the mail and
retries, 65 (EX_DATAERR) for an empty message, 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.cli import CommandError, Subparsers

if TYPE_CHECKING:
    from narrator.config import Config
    from narrator.inbound.inject import Processor
    from narrator.inbound.sink import StoreResult

EX_DATAERR = 65
EX_TEMPFAIL = 75

log = logging.getLogger("narrator.inbound.inject")


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator inject`."""
    parser = subparsers.add_parser(
        "inject",
        parents=[common],
        help="store raw RFC 5322 messages (files or stdin) as if they arrived by mail",
        description="Store raw messages (files, or stdin when none) in the inbox and process "
        "them. Usable as an MTA pipe transport: exit 0 when stored, 75 to retry later.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE.eml", help="messages (default: stdin)")
    parser.add_argument("--json", action="store_true", help="one JSON object per message")
    parser.set_defaults(func=run)


def build_processor(config: Config) -> Processor:
    """Return the function that processes freshly stored mail at once, or None.

    Processing (parse, apply, queue replies) runs in this process right after the commit, and
    in dev mode (outbound Maildir) the replies are written out at once, so a game can be
    played with `narrator inject` alone.  If processing fails, the rows stay ``new`` and the
    daemon's inbox worker picks them up.
    """
    from narrator.changes import announce_change
    from narrator.db import make_engine, session_factory, transaction
    from narrator.service.inbox import process_pending
    from narrator.service.wiring import flush_maildir, inbox_settings, make_mailer, utc_now

    def process(_results: Sequence[StoreResult]) -> None:
        engine = make_engine(config.database_url)
        try:
            factory = session_factory(engine)
            mailer = make_mailer(config, factory)
            try:
                process_pending(factory, mailer, inbox_settings(config), utc_now)
                flush_maildir(config, factory)
            finally:
                # A running daemon sends the replies queued here (SMTP mode) at once, and
                # processes what could not be processed here.
                with transaction(factory) as session:
                    announce_change(session)
        finally:
            engine.dispose()

    return process


def run(args: argparse.Namespace) -> int:
    """Read the messages, store them, print what happened; return the exit status."""
    from narrator.config import ConfigError, load_config
    from narrator.db import make_engine, session_factory
    from narrator.inbound.dbsink import DbSink
    from narrator.inbound.inject import inject_sync
    from narrator.inbound.sink import StorageUnavailable

    messages = _read_messages(args.files)
    for name, raw in messages:
        if not raw.strip():
            print(f"narrator: error: {name}: empty message", file=sys.stderr)
            return EX_DATAERR
    try:
        config = load_config(args.config)
    except ConfigError as error:
        raise CommandError(str(error)) from None
    url = config.database_url
    engine = make_engine(url)
    try:
        problem = _not_ready(url)
        if problem is not None:
            print(f"narrator: temporary failure: {problem}", file=sys.stderr)
            return EX_TEMPFAIL
        sink = DbSink(session_factory(engine))
        try:
            results = inject_sync(
                (raw for _, raw in messages), sink, process=_safe(build_processor(config))
            )
        except StorageUnavailable as error:
            print(f"narrator: temporary failure: {error}", file=sys.stderr)
            return EX_TEMPFAIL
    finally:
        engine.dispose()
    for (name, _), result in zip(messages, results, strict=True):
        if args.json:
            print(
                json.dumps(
                    {
                        "source": name,
                        "message_id": result.message_id,
                        "inbox_id": result.inbox_id,
                        "duplicate": result.duplicate,
                    }
                )
            )
        else:
            what = "already stored as" if result.duplicate else "stored as"
            print(f"{name}: <{result.message_id}> {what} inbox {result.inbox_id}")
    return 0


def _read_messages(files: list[str]) -> list[tuple[str, bytes]]:
    if not files:
        return [("<stdin>", sys.stdin.buffer.read())]
    messages = []
    for name in files:
        try:
            messages.append((name, Path(name).read_bytes()))
        except OSError as error:
            raise CommandError(f"cannot read {name}: {error.strerror or error}") from None
    return messages


def _not_ready(url: str) -> str | None:
    """Why the database cannot take mail now (unreachable, not migrated), or None."""
    from sqlalchemy.exc import SQLAlchemyError

    from narrator.db import current_revision, head_revision

    try:
        revision = current_revision(url)
    except SQLAlchemyError as error:
        return f"cannot open the database: {str(error).splitlines()[0]}"
    if revision != head_revision():
        return "the database is not migrated; run `narrator db upgrade`"
    return None


def _safe(process: Processor | None) -> Processor | None:
    """Processing runs after the commit: its failure is logged, the mail stays stored."""
    if process is None:
        return None

    def guarded(results: Sequence[StoreResult]) -> None:
        try:
            process(results)
        except Exception:
            log.exception("stored mail could not be processed now; the daemon will retry")

    return guarded
