"""Benchmark of the inbox worker alone: milliseconds per stored vote in ``process_pending``.

Sets up `--games` games of `--players` players (as ``benchmarks/pipeline.py`` does), stores one
vote per living player in the inbox, then times ``process_pending`` over all of them (no SMTP).
With ``--profile`` prints the cProfile of the processing, sorted by cumulative time.

Prints figures; asserts nothing about timing.  Usage:
    python benchmarks/inbox.py [--games 10] [--players 50] [--database URL] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pipeline import NARRATOR, set_up_games  # noqa: E402

from narrator.db import make_engine, session_factory, upgrade  # noqa: E402
from narrator.inbound.dbsink import DbSink  # noqa: E402
from narrator.service.inbox import InboxSettings, process_pending  # noqa: E402
from narrator.service.mailer import Mailer  # noqa: E402
from narrator.service.wiring import utc_now  # noqa: E402
from stories import FileStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--database", help="SQLAlchemy URL of an empty database (default SQLite)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=45, help="profile lines shown")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="narrator-bench-") as tmp:
        database = args.database or f"sqlite:///{Path(tmp) / 'inbox.db'}"
        upgrade(database)
        engine = make_engine(database)
        factory = session_factory(engine)
        votes = set_up_games(factory, args.games, args.players, speed=2 * 86400)
        sink = DbSink(factory)
        for sender, raw in votes:
            sink.store_sync(raw, source="smtp", envelope_from=sender)
        mailer = Mailer(FileStore(), NARRATOR)
        settings = InboxSettings(address=NARRATOR)
        profile = cProfile.Profile() if args.profile else None
        started, cpu_started = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        outcomes = process_pending(factory, mailer, settings, utc_now, limit=len(votes) + 1)
        if profile is not None:
            profile.disable()
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        engine.dispose()
    kinds = Counter(o.what for o in outcomes)
    print(f"{len(outcomes)} mails processed in {elapsed:.2f}s: {dict(kinds)}")
    print(
        f"  {1000 * elapsed / len(outcomes):.2f} ms per mail, {len(outcomes) / elapsed:.0f}/s "
        f"({1000 * cpu / len(outcomes):.2f} ms of CPU per mail)"
    )
    if profile is not None:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)
        profile.dump_stats(Path(tempfile.gettempdir()) / "narrator-inbox.prof")


if __name__ == "__main__":
    main()
