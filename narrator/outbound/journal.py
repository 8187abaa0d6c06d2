"""The send journal: mails the SMTP server accepted, written down before the outbox knows.

Between the server's ``250`` and the outbox row's "sent" the daemon can die, or lose its
database (a PostgreSQL restart).  The mail would then be sent again by whoever takes the claim
back.  The sender therefore appends the Message-ID of every accepted mail to a journal file
(fsynced) first; a mail that is claimed again is looked up there and, when found, only marked
sent.  A mail is sent again only when it may not have been accepted: when the crash came
between the ``250`` and the journal's write (a few microseconds).

One file per UTC day in the journal folder (``[outbound] journal``), appended to by every
daemon of the installation on this host; files older than two days are deleted (a claim is
taken back within the lease, minutes).
"""

from __future__ import annotations

import logging
import os
from datetime import datetime, timedelta
from pathlib import Path

log = logging.getLogger("narrator.outbound.journal")

KEEP = timedelta(days=2)


class SendJournal:
    """The journal folder `directory` (created on first use)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self._directory = Path(directory)

    @property
    def directory(self) -> Path:
        """Where the day files are."""
        return self._directory

    def record(self, message_id: str, now: datetime) -> None:
        """Write down that `message_id` was accepted (appended, fsynced); raises OSError."""
        self._directory.mkdir(parents=True, exist_ok=True)
        line = (message_id.replace("\n", " ") + "\n").encode("utf-8", "replace")
        descriptor = os.open(self._day_file(now), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        try:
            os.write(descriptor, line)  # one write of one short line: never interleaved
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

    def accepted(self, now: datetime) -> frozenset[str]:
        """The Message-IDs written down today and yesterday (UTC); also drops older files."""
        found: set[str] = set()
        wanted = {self._day_file(now - timedelta(days=n)).name for n in range(2)}
        try:
            files = list(self._directory.iterdir())
        except FileNotFoundError:
            return frozenset()
        for file in files:
            if file.name in wanted:
                found.update(file.read_text("utf-8", "replace").splitlines())
            elif file.suffix == ".journal" and file.name < min(wanted):
                try:
                    file.unlink()
                except OSError as error:  # another daemon's, or read-only: harmless
                    log.debug("could not delete the old journal %s: %s", file, error)
        return frozenset(found)

    def _day_file(self, when: datetime) -> Path:
        return self._directory / f"{when:%Y-%m-%d}.journal"
