"""The game pages in tests: a real server (uvicorn on a free loopback port) in a thread of its
own, and plain HTTP requests to it."""

from __future__ import annotations

import asyncio
import html
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message

from sqlalchemy.orm import Session, sessionmaker

from narrator.web.app import Site, make_app
from narrator.web.server import WebServer
from tests.support.bymail import NARRATOR
from tests.support.shipped import SHIPPED_RENDERER


def site_of(
    factory: sessionmaker[Session], *, ruleset: str = "wakkerdam", language: str = "nl"
) -> Site:
    """The pages of the database of `factory`, told with the shipped packs."""
    return Site(
        factory=factory,
        renderer=SHIPPED_RENDERER,
        address=NARRATOR,
        ruleset=ruleset,
        language=language,
        base_url="http://127.0.0.1:8080",
    )


@contextmanager
def serving(site: Site) -> Iterator[str]:
    """Serve `site` on a free port while the block runs; yields its http://127.0.0.1:PORT."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="web", daemon=True)
    thread.start()
    server = WebServer(make_app(site), "127.0.0.1", 0)
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(30)
        yield f"http://127.0.0.1:{server.port}"
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


@dataclass(frozen=True)
class Page:
    """One answer: status, headers, body (decoded)."""

    status: int
    headers: Message
    body: str

    @property
    def text(self) -> str:
        """The page as a reader sees it: tags dropped, entities decoded, spaces collapsed."""
        return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", self.body)).split())


def fetch(url: str) -> Page:
    """GET `url` (a 4xx or 5xx is returned, not raised)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return Page(answer.status, answer.headers, answer.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        with error:
            return Page(error.code, error.headers, error.read().decode("utf-8"))


def post_form(url: str, fields: list[tuple[str, str]]) -> Page:
    """POST `fields` as an HTML form does (urlencoded); redirects are followed (303: GET)."""
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(url, data=data, method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return Page(answer.status, answer.headers, answer.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        with error:
            return Page(error.code, error.headers, error.read().decode("utf-8"))
