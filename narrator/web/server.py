"""The web server of the daemon: uvicorn serving the game pages in the daemon's own event loop.

The socket is bound here (so a taken port is an OSError the daemon reports, not uvicorn's
exit), uvicorn's own signal handling is not used (the daemon stops it), and no access log is
written (a private page's address will hold its player's token).

uvicorn's own main loop wakes ten times a second to refresh its Date header (once a second)
and to see whether it should stop; an idle daemon spent most of its CPU there, and on these
machines a wake-up after a second asleep costs a thousand times a warm one (a cold cache:
``benchmarks/wakeup.py``).  Here the server never wakes on a timer: each response's Date is
written when it is sent (:func:`date_header`), and :meth:`WebServer.stop` ends the server's wait
itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from email.utils import formatdate

import uvicorn
from starlette.types import ASGIApp

from narrator.web.headers import Headers, ResponseHeaders


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port` (0: any free port); raises OSError."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def date_header() -> Headers:
    """The Date header of a response starting now (RFC 9110: an origin server with a clock
    sends it); :class:`WebServer` adds it to every response, uvicorn's own (refreshed by a
    timer) being off."""
    return [(b"date", formatdate(time.time(), usegmt=True).encode())]


class WebServer:
    """uvicorn on one socket: ``await start()`` … ``await stop()``."""

    def __init__(self, app: ASGIApp, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    @property
    def port(self) -> int:
        """The port it listens on (the one the OS chose for port 0)."""
        if self._socket is None:
            raise RuntimeError("the web server is not running")
        return int(self._socket.getsockname()[1])

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The server's main loop while it runs."""
        return self._task

    async def start(self) -> None:
        """Bind the socket and start serving; raises OSError when the port is taken."""
        self._socket = bind(self.host, self.requested_port)
        config = uvicorn.Config(
            ResponseHeaders(self.app, date_header),
            date_header=False,  # date_header() writes it, with no timer
            log_config=None,
            access_log=False,
            lifespan="off",
            server_header=False,
            proxy_headers=False,
        )
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        await server.startup(sockets=[self._socket])
        self._server = server
        self._stopping.clear()
        self._task = asyncio.create_task(self._run(server), name="narrator.web")

    async def _run(self, server: uvicorn.Server) -> None:
        """What uvicorn's ``main_loop`` does, with no timer: its tick (counter 0) once, which
        sets the server's default headers, then a wait that :meth:`stop` ends."""
        if not await server.on_tick(0):
            await self._stopping.wait()

    async def stop(self) -> None:
        """Stop accepting, let requests in hand finish, close the socket."""
        server, task = self._server, self._task
        self._server = self._task = None
        if server is not None:
            server.should_exit = True
            self._stopping.set()
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await server.shutdown(sockets=None)
        if self._socket is not None:
            self._socket.close()
            self._socket = None
