"""`narrator serve` whose sender hangs in its first send: ``python -m tests.faults.serve_stall``.

The real command line and the daemon's real timings, with one seam: the outbound transport
appends the Message-ID of each mail it is handed to the file named by
``NARRATOR_TEST_STALL_MARKER`` and then never returns, as a sender stuck between claiming a
mail and marking it sent.  The fault tests SIGKILL it there and check that another daemon
(or the next start) sends the claimed mail promptly, once.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from pathlib import Path

import narrator.daemon as daemon

MARKER_ENV = "NARRATOR_TEST_STALL_MARKER"


class StallingTransport:
    """A transport that records the mail it is handed and hangs (until the process dies)."""

    def __init__(self, marker: Path) -> None:
        self._marker = marker
        self._never = asyncio.Event()

    async def send(self, sender: str, recipient: str, message: bytes) -> None:
        """Write the Message-ID line to the marker file, then wait forever."""
        line = next(
            (raw for raw in message.split(b"\r\n") if raw.lower().startswith(b"message-id:")),
            b"Message-ID: ?",
        )
        with self._marker.open("ab") as marker:
            marker.write(line.split(b":", 1)[1].strip() + b"\n")
        await self._never.wait()

    async def close(self) -> None:
        """Nothing to close."""


def main(argv: list[str]) -> int:
    """Patch the stalling transport into the daemon and run the narrator command line."""
    options = daemon.DaemonOptions(transport=StallingTransport(Path(os.environ[MARKER_ENV])))
    # `narrator serve` imports the daemon's serve when it runs: it finds this one.
    daemon.serve = functools.partial(daemon.serve, options=options)  # type: ignore[assignment]
    from narrator.cli import main as narrator_main

    return narrator_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
