"""The crash-safety soak: `narrator serve` SIGKILLed many times under a storm of mail, by hand.

The long run of ``tests/faults/test_crash.py`` (which makes 20 kills in CI)::

    .venv/bin/python benchmarks/soak.py --kills 500 [--seed 6] [--games 3] [--no-imap] [--maildir]

Bots play Werewolf games by mail (signups and votes over SMTP, and through a private Dovecot
IMAP mailbox when Dovecot is installed) while the daemon is killed with SIGKILL at random
moments (seeded) and restarted. Outgoing mail goes to an SMTP sink, or with ``--maildir`` into
the Maildir outbox (where a mail written again after a kill must land in the same file). Then
the games are played to their end, the daemon is stopped cleanly, and the database and every
delivered mail are audited. Prints the figures — mails sent, kills, restarts, lost, doubled,
loops, the duplicate rate of outgoing mail — and exits 1 when anything was lost or doubled
(on the Maildir, also when any outgoing mail was delivered twice).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.faults.harness import Storm, private_dovecot


def main() -> int:
    """Run the soak; return 0 when nothing was lost, doubled or looped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=500, help="SIGKILLs to make (500)")
    parser.add_argument("--seed", type=int, default=6, help="seed of every random choice")
    parser.add_argument("--games", type=int, default=3, help="games played side by side")
    parser.add_argument("--no-imap", action="store_true", help="SMTP only, even with Dovecot")
    parser.add_argument(
        "--maildir", action="store_true", help="outgoing mail into the Maildir, not over SMTP"
    )
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    began = time.strftime("%H:%M:%S")
    with contextlib.ExitStack() as stack:
        workdir = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        workdir.mkdir(parents=True, exist_ok=True)
        imap = None if args.no_imap else stack.enter_context(private_dovecot())
        print(
            f"{began} soak: {args.kills} kills, seed {args.seed}, {args.games} games at once, "
            f"{'SMTP and IMAP' if imap else 'SMTP only'} in, "
            f"{'Maildir' if args.maildir else 'SMTP'} out; work in {workdir}",
            flush=True,
        )
        storm = Storm(
            workdir,
            seed=args.seed,
            kills=args.kills,
            games_at_once=args.games,
            imap=imap,
            maildir=args.maildir,
            timeout=max(600.0, args.kills * 10.0),
            progress=lambda line: print(f"{time.strftime('%H:%M:%S')} {line}", flush=True),
        )
        figures = storm.run()
    print(f"soak (seed {args.seed}): {figures.line()}")
    for problem in figures.problems[:100]:
        print(f"  problem: {problem}")
    # Over SMTP a mail may be re-sent after a kill mid-send (the rate is printed); a Maildir
    # delivery written again lands in the same file, so there a duplicate is a failure.
    duplicates = figures.resent if args.maildir else 0
    bad = figures.problems or figures.lost or figures.doubled or figures.loops or duplicates
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
