"""A daemon SIGKILLed between claiming mail and marking it sent costs seconds, not the lease:
the next start (SQLite) or the other daemon (PostgreSQL) sends the claimed mail, once each.

The killed daemon is `narrator serve` with a transport that hangs inside its first send
(``tests.faults.serve_stall``); the one that takes over is the real `narrator serve` with
every default (lease 10 minutes, outbox poll 60 s), so only the reclaim can be quick.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.faults.harness import ServeProcess, poll
from tests.faults.serve_stall import MARKER_ENV
from tests.support.home import cli, create_game, maildir_ids, outbox_ids, write_home

#: The promise: a claimed mail of a dead sender is delivered within 5 s.
PROMPT = 5.0


def _stalled_daemon(config: Path, marker: Path) -> ServeProcess:
    """Start the stalling daemon, start the game (role mails queued), wait until it hangs in a
    send with the whole batch claimed."""
    stalled = ServeProcess(config, {MARKER_ENV: str(marker)}, module="tests.faults.serve_stall")
    stalled.start()
    stalled.wait_serving()
    cli(config, "game", "start", "WW13", "--seed", "3")
    poll(marker.exists, 10, "the stalling daemon to claim the mail and hang in its send")
    return stalled


def _all_sent(db_url: str, maildir: Path, rows: dict[str, str]) -> bool:
    """Whether every mail of `rows` is in the Maildir and marked sent (a sender marks a group
    of mails sent once all their files are in the Maildir: the files come first)."""
    delivered = maildir_ids(maildir)
    return all(delivered[m] for m in rows) and set(outbox_ids(db_url).values()) == {"sent"}


def _assert_each_once(db_url: str, maildir: Path) -> None:
    rows = outbox_ids(db_url)
    delivered = maildir_ids(maildir)
    assert set(rows.values()) == {"sent"}, rows
    assert dict(delivered) == dict.fromkeys(rows, 1), delivered


def test_a_start_after_a_sigkill_sends_the_claimed_mail_at_once_on_sqlite(
    tmp_path: Path, sqlite_url: str
) -> None:
    maildir = tmp_path / "outbox"
    config = write_home(tmp_path / "home", sqlite_url, maildir)
    create_game(config, sqlite_url, "WW13")
    marker = tmp_path / "stalled"
    stalled = _stalled_daemon(config, marker)
    restarted = ServeProcess(config, module="narrator")
    try:
        stalled.kill()
        assert maildir_ids(maildir) == {}
        restarted.start()
        started = time.monotonic()
        rows = outbox_ids(sqlite_url)
        poll(lambda: _all_sent(sqlite_url, maildir, rows), PROMPT, "the claimed mail sent")
        took = time.monotonic() - started
        print(f"\nSQLite: {len(rows)} claimed mails delivered {took:.2f}s after the restart")
        assert "took back" in restarted.current_log()
        assert marker.read_text().strip().strip("<>") in rows  # the mail that was being sent
        _assert_each_once(sqlite_url, maildir)
        assert restarted.stop() == 0, restarted.log()
    finally:
        stalled.close()
        restarted.close()


@pytest.mark.postgres
def test_a_daemon_takes_over_the_claims_of_a_sigkilled_one_on_postgresql(
    tmp_path: Path, postgres_db_url: str
) -> None:
    maildir = tmp_path / "outbox"
    config = write_home(tmp_path / "stalled", postgres_db_url, maildir)
    create_game(config, postgres_db_url, "WW13")
    marker = tmp_path / "stalled.ids"
    stalled = _stalled_daemon(config, marker)
    other = ServeProcess(
        write_home(tmp_path / "other", postgres_db_url, maildir), module="narrator"
    )
    try:
        other.start()
        other.wait_serving()
        # While its owner lives, a claim is left alone: the other daemon sends nothing.
        wait_until = time.monotonic() + 2.0  # two rounds of the lease keeper
        while time.monotonic() < wait_until:
            assert maildir_ids(maildir) == {}
            time.sleep(0.1)  # watching that nothing happens; bounded
        stalled.kill()
        killed = time.monotonic()
        rows = outbox_ids(postgres_db_url)
        poll(lambda: _all_sent(postgres_db_url, maildir, rows), PROMPT, "the claimed mail sent")
        took = time.monotonic() - killed
        print(f"\nPostgreSQL: {len(rows)} claimed mails delivered {took:.2f}s after the SIGKILL")
        assert "took back" in other.current_log()
        _assert_each_once(postgres_db_url, maildir)
        assert other.stop() == 0, other.log()
    finally:
        stalled.close()
        other.close()
