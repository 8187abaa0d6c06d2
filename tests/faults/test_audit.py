"""The crash test's audit finds what it claims to: a lost mail, a doubled delivery, a loop
(so a clean audit of a storm means something)."""

from __future__ import annotations

import mailbox
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from narrator.db import make_engine, session_factory, transaction
from narrator.models import OutboxMessage
from tests.daemon.driver import PLAYERS, address, compose
from tests.faults.harness import Mail, audit, cli, read_engine, write_config


def test_the_audit_counts_lost_doubled_and_loops(sqlite_url: str, tmp_path: Path) -> None:
    config = write_config(tmp_path, sqlite_url, smtp_port=None, outbound_port=None)
    cli(config, "game", "create", "WW1", "--speed", "1h")
    accepted: dict[str, Mail] = {}
    for n, (name, gender) in enumerate(PLAYERS[:3]):
        message_id = f"su-{n}@spelers.example.org"
        raw = compose(address(name), "WW1", f"{name}, {gender}", message_id)
        mail_file = tmp_path / f"{n}.eml"
        mail_file.write_bytes(raw)
        cli(config, "inject", str(mail_file))  # stored, processed, the reply flushed
        accepted[message_id] = Mail(message_id, "signup", "WW1", address(name), raw, "smtp")
    received = [m.as_bytes() for m in mailbox.Maildir(tmp_path / "outbox", create=False)]
    engine = read_engine(sqlite_url)
    factory = sessionmaker(engine, expire_on_commit=False)
    try:
        clean = audit(factory, accepted, received)
        assert (clean.lost, clean.doubled, clean.loops, clean.problems) == (0, 0, 0, [])
        assert (clean.mails, clean.replies, clean.outgoing) == (3, 3, 3)

        never_stored = Mail("ghost@spelers.example.org", "signup", "WW1", "x@y.org", b"", "smtp")
        lost = audit(factory, {**accepted, never_stored.message_id: never_stored}, received)
        # Not in the inbox, never answered, and its signup missing from the game log.
        assert (lost.lost, lost.doubled) == (3, 0), lost.problems

        doubled = audit(factory, accepted, [*received, received[0]])
        assert (doubled.lost, doubled.doubled) == (0, 1)  # a second copy in one attempt

        writer = session_factory(make_engine(sqlite_url))
        with transaction(writer) as session:
            row = session.scalars(select(OutboxMessage)).first()
            assert row is not None
            row.recipient = "verteller@example.org"
        looped = audit(factory, accepted, received)
        assert looped.loops == 1
    finally:
        engine.dispose()
