"""Crash safety: `narrator serve` SIGKILLed at random moments under a storm of signups and votes
(SMTP, and IMAP through Dovecot when installed) loses nothing and applies nothing twice."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.faults.harness import Storm, private_dovecot

#: Kills of each storm (SMTP, then Maildir). A bounded run: every kill lands at a
#: moment drawn from the seed (every fourth during the start), and what it must show is that no
#: moment loses or doubles a mail; eight kills over three games at once still cut receiving,
#: processing, deadlines and sending, each several times. The long runs are `benchmarks/soak.py`'s.
KILLS = int(os.environ.get("NARRATOR_FAULT_KILLS", "8"))
SEED = int(os.environ.get("NARRATOR_FAULT_SEED", "6"))


@pytest.mark.timeout(400)
def test_sigkill_storm_loses_nothing_and_doubles_nothing(tmp_path: Path) -> None:
    with private_dovecot() as imap:
        storm = Storm(tmp_path, seed=SEED, kills=KILLS, imap=imap, timeout=300)
        figures = storm.run()
    print(f"\ncrash safety (seed {SEED}): {figures.line()}")
    assert figures.problems == [], f"{figures.line()}\n" + "\n".join(figures.problems[:50])
    assert (figures.lost, figures.doubled, figures.loops) == (0, 0, 0), figures.line()
    assert figures.kills >= KILLS and figures.restarts >= KILLS, figures.line()
    # The run exercised what it claims to: deadlines fired, and (with Dovecot) IMAP mail came in.
    assert figures.deadline_steps > 0, figures.line()
    assert figures.imap > 0 or imap is None, figures.line()


@pytest.mark.timeout(400)
def test_sigkill_storm_on_the_maildir_transport_delivers_every_mail_once(tmp_path: Path) -> None:
    """The outgoing mail goes into the Maildir outbox: a mail written again after a kill lands
    in the file its outbox row names, so no mail is ever delivered twice (over SMTP a resend
    after an interrupted send is allowed and its rate printed)."""
    storm = Storm(tmp_path, seed=SEED + 1, kills=KILLS, maildir=True, timeout=300)
    figures = storm.run()
    print(f"\ncrash safety, Maildir out (seed {SEED + 1}): {figures.line()}")
    assert figures.problems == [], f"{figures.line()}\n" + "\n".join(figures.problems[:50])
    assert (figures.lost, figures.doubled, figures.loops) == (0, 0, 0), figures.line()
    assert figures.resent == 0, figures.line()
    assert figures.outgoing > 0 and figures.kills >= KILLS, figures.line()
    assert figures.deadline_steps > 0, figures.line()  # the kills met the games' steps too
