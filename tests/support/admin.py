"""The admin panel in tests: a site with the panel, an admin's password, and a client that keeps
its cookies as a browser does and shows every redirect instead of following it."""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from http.cookiejar import CookieJar
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from narrator.config import AdminsSection, Config, NarratorSection
from narrator.db import transaction
from narrator.models import AdminPassword, utcnow
from narrator.service.wiring import utc_now
from narrator.web.admin import Panel
from narrator.web.app import Site
from narrator.web.auth import LoginLimiter, hash_password
from tests.support.bymail import NARRATOR
from tests.support.shipped import shipped_mailer
from tests.support.web import Page, site_of

BOSS = "boss@example.org"
PASSWORD = "correct horse battery staple"
SECRET = "the key of the pages"


def panel_site(
    factory: sessionmaker[Session],
    *,
    language: str = "en",
    limiter: LoginLimiter | None = None,
    clock: Callable[[], datetime] = utc_now,
    on_change: Callable[[], None] | None = None,
) -> Site:
    """The pages with the admin panel; `BOSS` is the configured admin."""
    config = Config(
        narrator=NarratorSection(address=NARRATOR, language=language),
        admins=AdminsSection(emails=(BOSS,)),
    )
    panel = Panel(
        config,
        shipped_mailer(NARRATOR),
        on_change=on_change,
        limiter=limiter or LoginLimiter(),
        clock=clock,
    )
    return replace(site_of(factory, language=language), secret=SECRET, panel=panel)


def set_password(factory: sessionmaker[Session], email: str, password: str) -> None:
    """Store `email`'s panel password, as ``narrator admin password`` does."""
    store_hash(factory, email, hash_password(password))


def store_hash(factory: sessionmaker[Session], email: str, hashed: str) -> None:
    """Store `hashed` (:func:`~narrator.web.auth.hash_password`'s) as `email`'s panel password:
    a test that logs in with `PASSWORD` stores the run's hash of it (the `boss_hash` fixture,
    tests/web/conftest.py) instead of hashing it again (argon2: a fifth of a second of CPU)."""
    with transaction(factory) as session:
        row = session.get(AdminPassword, email)
        if row is None:
            session.add(AdminPassword(email=email, hash=hashed, updated_at=utcnow()))
        else:
            row.hash = hashed


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class AdminClient:
    """A browser's side of the panel: cookies kept (paths, expiry), redirects returned."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )

    def _open(self, request: urllib.request.Request) -> Page:
        try:
            with self.opener.open(request, timeout=60) as answer:
                return Page(answer.status, answer.headers, answer.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            with error:
                return Page(error.code, error.headers, error.read().decode("utf-8"))

    def get(self, path: str) -> Page:
        """GET `path` (under the root)."""
        return self._open(urllib.request.Request(self.root + path))

    def post(self, path: str, fields: dict[str, str]) -> Page:
        """POST `fields` to `path` as a form does."""
        data = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(self.root + path, data=data, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        return self._open(request)

    def login(self, email: str = BOSS, password: str = PASSWORD) -> Page:
        """Open the login form and send it."""
        form = self.get("/admin/login")
        assert form.status == 200, form.status
        return self.post(
            "/admin/login", {"csrf": csrf_of(form), "email": email, "password": password}
        )

    def cookie(self, name: str) -> str | None:
        """The value of the cookie `name` the client holds."""
        return next((c.value for c in self.jar if c.name == name), None)

    def set_cookie(self, name: str, value: str) -> None:
        """Hold cookie `name` (for the /admin path) with `value` (a forged one)."""
        for cookie in list(self.jar):
            if cookie.name == name:
                self.jar.clear(cookie.domain, cookie.path, cookie.name)
        host = urllib.parse.urlsplit(self.root).hostname or ""
        from http.cookiejar import Cookie

        self.jar.set_cookie(
            Cookie(
                0,
                name,
                value,
                None,
                False,
                host,
                False,
                False,
                "/admin",
                True,
                False,
                None,
                False,
                None,
                None,
                {},
            )
        )


def csrf_of(page: Page) -> str:
    """The CSRF token in a page's first form."""
    match = re.search(r'name="csrf" value="([^"]+)"', page.body)
    assert match is not None, page.body[:500]
    return match.group(1)
