"""`narrator serve`: run the daemon (receivers, inbox worker, scheduler, outbox sender)."""

from __future__ import annotations

import argparse
import logging

from narrator.cli import CommandError, Subparsers

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

#: Allocations between two collections of the youngest generation once the daemon runs (see
#: :func:`settled`; 500 votes at 20 votes/s: 0.28 s of collection at Python's 700, 0.18 s here).
YOUNG_COLLECTION = 10_000


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator serve`."""
    parser = subparsers.add_parser(
        "serve",
        parents=[common],
        help="run the daemon: inbound mail, deadlines, outgoing mail",
        description="Migrate the database and run the narrator until SIGTERM or SIGINT: the "
        "SMTP receiver and/or IMAP poller, the inbox worker, the deadline scheduler and the "
        "outbox sender.",
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="how much to log on stderr (default: INFO)",
    )
    parser.set_defaults(func=run)


def settled(_daemon: object) -> None:
    """The daemon has started: what the start built (modules, templates, mappers, the stories,
    the web app) lives as long as the process, so the cyclic garbage collector is told to stop
    looking at it (``gc.freeze``; the garbage of the start collected first).  Without it a
    busy daemon spent about a fifth of its CPU in the collector, walking these objects again
    and again (benchmarks/latency.py; docs/dev/a-vote-from-smtp-to-receipt.md).

    The youngest generation is then collected every :data:`YOUNG_COLLECTION` allocations
    instead of Python's 700: a pass of the inbox holds many objects for its few milliseconds,
    and at 700 the collector ran about once a vote and walked them on to the older generation,
    whose collections then cost milliseconds each; the garbage itself (cycles a pass leaves)
    is found either way, by fewer collections."""
    import gc

    gc.collect()
    gc.freeze()
    _young, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION, older, oldest)


def run(args: argparse.Namespace) -> int:
    """Run the daemon in the foreground; returns 0 after a clean stop."""
    import asyncio

    from narrator.commands.db import config_from_args, shown_url
    from narrator.config import ConfigError
    from narrator.daemon import DaemonFailed, serve

    config = config_from_args(args)
    logging.basicConfig(level=args.log_level, format=LOG_FORMAT)
    if args.log_level != "DEBUG":
        for chatty in ("apscheduler", "mail.log"):  # a line per job run / per SMTP command
            logging.getLogger(chatty).setLevel(logging.WARNING)
    logging.getLogger("narrator.daemon").info(
        "configuration: %s; database %s",
        config.path or "built-in defaults",
        shown_url(config.database_url),
    )
    try:
        asyncio.run(serve(config, on_started=settled))
    except ConfigError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"cannot start: {error.strerror or error}") from None
    except DaemonFailed as error:
        raise CommandError(f"stopped after an internal failure: {error}") from None
    return 0
