"""The web server's own loop: it wakes on no timer (uvicorn's woke ten times a second), its
Date header is still right, and a stop ends it at once."""

from __future__ import annotations

import asyncio
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from narrator.web.server import WebServer


async def hello(request: Request) -> PlainTextResponse:
    """A page with nothing to read."""
    return PlainTextResponse("hello")


@dataclass
class Running:
    """A running server, the event loop it runs in and that loop's thread (its OS id)."""

    server: WebServer
    loop: asyncio.AbstractEventLoop
    thread_id: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(30)


@contextmanager
def running() -> Iterator[Running]:
    """A WebServer of one plain page in an event loop of its own thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="web", daemon=True)
    thread.start()
    server = WebServer(Starlette(routes=[Route("/", hello)]), "127.0.0.1", 0)

    async def start() -> int:
        await server.start()
        return threading.get_native_id()

    try:
        thread_id = asyncio.run_coroutine_threadsafe(start(), loop).result(30)
        yield Running(server, loop, thread_id)
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def times_scheduled(thread_id: int) -> int:
    """How many times the kernel ran thread `thread_id` so far (Linux: its wake-ups)."""
    return int(Path(f"/proc/self/task/{thread_id}/schedstat").read_text().split()[2])


def test_an_idle_server_does_not_wake_its_loop() -> None:
    """uvicorn's own main loop woke ten times a second (then, here, once a second, for the
    Date header); nothing but the server runs in this loop, so its thread's wake-ups are the
    server's own."""
    with running() as web:
        time.sleep(0.3)
        before = times_scheduled(web.thread_id)
        time.sleep(3.0)
        wakes = times_scheduled(web.thread_id) - before
        with urllib.request.urlopen(web.url, timeout=10) as answer:  # it still serves
            assert answer.read() == b"hello"
    assert wakes <= 1, f"{wakes} wake-ups in 3 s"


@pytest.mark.wallclock
def test_the_date_header_is_the_current_second() -> None:
    with running() as web:
        for _ in range(5):
            asked = time.time()
            with urllib.request.urlopen(web.url, timeout=10) as answer:
                date = parsedate_to_datetime(answer.headers["Date"]).timestamp()
                assert answer.read() == b"hello"
            answered = time.time()
            assert int(asked) - 1 <= date <= answered, (asked, date, answered)
            time.sleep(0.6)


@pytest.mark.wallclock
def test_a_stop_ends_the_server_at_once() -> None:
    with running() as web:
        time.sleep(0.2)
        started = time.monotonic()
        web.stop()
        took = time.monotonic() - started
        assert web.server.task is None
    assert took < 0.5, f"the stop took {took:.2f}s"
