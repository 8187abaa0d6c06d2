"""A real browser opens the HTML of every kind of mail: headless Chromium screenshots each one.

Needs the Debian package ``chromium`` (CI installs it: .ci/run).  Without it the test fails in
CI (``CI=true``) and is skipped, with the reason, elsewhere.  The browser is the module's
(`browser`, tests/support/browser.py); one page of it loads every mail in turn.  Screenshots
go to tmp_path only.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from stories import FileStore, Renderer, StoryKey
from stories.keys import BASE_THEME, MAIL_TYPES
from stories.samples import mail_samples
from tests.support.browser import CHROMIUM, chromium
from tests.support.shipped import SHIPPED_RENDERER

pytestmark = pytest.mark.slow  # a browser (`make test-fast` leaves them out)

WIDTH, HEIGHT = 800, 1200
MAIN = ("wakkerdam", "nl", "wakkerdam")


def _cases() -> list[tuple[str, str, str, str]]:
    """Every mail of the main pack, and the step mail of every other pack."""
    packs = {(s.key.ruleset, s.key.language, s.key.theme) for s in FileStore().all()}
    others = sorted(p for p in packs if p[2] != BASE_THEME and p != MAIN)
    return [(*MAIN, mail) for mail in MAIL_TYPES] + [(*pack, "step") for pack in others]


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


@pytest.fixture(scope="module")
def tab(browser: object) -> Iterator[object]:
    """One page of WIDTH × HEIGHT for every mail of the module: each test loads its own mail's
    file, which replaces the document whole (a mail holds no script and stores nothing), so a
    fresh context per mail (a renderer process each, a third of a second of CPU) would show
    nothing more."""
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.mark.parametrize(
    ("ruleset", "language", "theme", "mail"), _cases(), ids=["-".join(case) for case in _cases()]
)
def test_chromium_renders_the_mail(
    renderer: Renderer,
    tab: object,
    tmp_path: Path,
    ruleset: str,
    language: str,
    theme: str,
    mail: str,
) -> None:
    from playwright.sync_api import Error, Page

    assert isinstance(tab, Page)
    key = StoryKey(ruleset, language, theme, mail)
    rendered = renderer.render_mail(key, next(iter(mail_samples(key))), "browser")
    page = tmp_path / f"{mail}.html"
    page.write_text(rendered.html, encoding="utf-8")
    shot = tmp_path / f"{mail}.png"
    errors: list[Error] = []

    def record(error: Error) -> None:
        errors.append(error)

    tab.on("pageerror", record)
    try:
        answer = tab.goto(page.as_uri())
        assert answer is not None and answer.ok, answer
        assert tab.url == page.as_uri()
        tab.screenshot(path=str(shot))
    finally:
        tab.remove_listener("pageerror", record)
    assert errors == [], errors
    data = shot.read_bytes() if shot.exists() else b""
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), "no PNG written"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (WIDTH, HEIGHT)


def test_a_chromium_that_cannot_run_is_no_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    """The browser check never passes silently: a Chromium file that may not be executed is
    a failure in CI and a skip elsewhere, as a missing one is."""
    monkeypatch.setattr(os, "access", lambda path, mode: path != CHROMIUM)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install chromium"):
        chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        chromium()
