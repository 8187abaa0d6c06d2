"""Benchmark of what idling costs: the same work's CPU back to back and with the CPU idle between.

On the 2-CPU machines here a piece of work takes several times more CPU when the machine idled
just before it than when it runs back to back (docs/dev/a-vote-from-smtp-to-receipt.md,
"Session 17: where it stands, and what idling between votes costs"). A vote at 20 a second
pays that price at each piece of work it wakes the daemon for, which is why
`benchmarks/latency.py`'s CPU per vote is higher at 20 votes/s than at 50, for the daemon and
for the bare sink alike.

Two pieces of work, each timed by its thread's CPU (``time.thread_time``) over ``--count``
repetitions, with no pause and with each ``--gaps`` (milliseconds of sleep between two):

- a mail stored in the inbox (``DbSink.store_many_sync`` of one mail: a SQLite transaction on a
  new database file in a temporary folder), as the daemon's store does for each vote;
- a fixed piece of plain Python (sorting and summing a list), no I/O at all: how much of the
  extra is the machine's, not the database's.

Then the same again with both CPUs kept busy by two spinning processes at the lowest priority
(``--no-spinners`` to skip): if the extra goes away, it is the idle CPU's waking, not the work.
Prints figures; asserts nothing.  Usage:
    python benchmarks/idle.py [--count 300] [--gaps 1 20 50]
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from narrator.db import make_engine, session_factory, upgrade  # noqa: E402
from narrator.inbound.dbsink import DbSink, Incoming  # noqa: E402


def cpu_per_call(work: Callable[[int], object], count: int, gap_ms: float) -> float:
    """The thread CPU (µs) of one call of `work`, `count` calls with `gap_ms` of sleep between."""
    total = 0.0
    for n in range(count):
        started = time.thread_time()
        work(n)
        total += time.thread_time() - started
        if gap_ms:
            time.sleep(gap_ms / 1000)
    return 1e6 * total / count


def store_one(folder: Path) -> Callable[[int], object]:
    """A function storing one vote-sized mail (its `n` makes its Message-ID) in a new inbox."""
    database = f"sqlite:///{folder / 'idle.db'}"
    upgrade(database)
    sink = DbSink(session_factory(make_engine(database)))
    run = time.monotonic_ns()

    def store(n: int) -> object:
        raw = (
            "From: Anna <anna@example.org>\r\nTo: verteller@example.org\r\n"
            f"Subject: Re: WW1\r\nMessage-ID: <idle-{run}-{n}@bench>\r\n\r\nBram\r\n"
        ).encode()
        return sink.store_many_sync([Incoming(raw, "smtp", envelope_from="anna@example.org")])

    return store


def plain_python(n: int) -> object:
    """A fixed piece of plain Python, no I/O (about the size of a stored mail back to back)."""
    values = [(n * 7919 + k * 104729) % 1009 for k in range(400)]
    values.sort()
    return sum(values)


Work = Callable[[int], object]


def idle_penalty(count: int = 100, gap_ms: float = 50.0) -> str:
    """What the machine charges now for idling, in words: :func:`plain_python`'s thread CPU
    when resumed `gap_ms` after its last run, against back to back (about 5 s)."""
    cpu_per_call(plain_python, 30, 0)  # warm
    warm = cpu_per_call(plain_python, count, 0)
    cold = cpu_per_call(plain_python, count, gap_ms)
    return (
        f"plain Python resumed {gap_ms:g} ms after its last run costs {cold / warm:.1f} x its "
        f"CPU back to back ({cold:.0f} against {warm:.0f} us; benchmarks/idle.py)"
    )


def measure(label: str, pieces: dict[str, Work], args: argparse.Namespace) -> None:
    """Print each piece's CPU per call back to back and at each of ``args.gaps``."""
    print(label)
    for name, work in pieces.items():
        cpu_per_call(work, 30, 0)  # warm
        figures = [(0.0, cpu_per_call(work, args.count, 0))]
        figures += [(gap, cpu_per_call(work, args.count, gap)) for gap in args.gaps]
        base = figures[0][1]
        shown = ", ".join(
            f"{'back to back' if not gap else f'{gap:g} ms apart'} {us:.0f} us ({us / base:.1f} x)"
            for gap, us in figures
        )
        print(f"  {name}: {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--gaps", type=float, nargs="+", default=[1.0, 20.0, 50.0])
    parser.add_argument("--no-spinners", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory(prefix="narrator-bench-idle-") as tmp:
        pieces = {"a mail stored": store_one(Path(tmp)), "plain Python": plain_python}
        measure("the machine otherwise idle (thread CPU of one call):", pieces, args)
        if args.no_spinners:
            return
        spin = [sys.executable, "-c", "while True: pass"]
        spinners = [
            subprocess.Popen(["nice", "-n", "19", *spin]) for _ in range(os.cpu_count() or 2)
        ]
        try:
            time.sleep(0.5)
            measure("every CPU kept busy by a spinning process at nice 19:", pieces, args)
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()


if __name__ == "__main__":
    main()
