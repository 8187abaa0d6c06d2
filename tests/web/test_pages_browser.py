"""A real browser follows a game's public page through the game, a player votes in his page and
an admin drives a game in the admin panel: the system Chromium, driven by Playwright, at a
phone's width (400 px) and a desktop's (1,100 px), with screenshots.

Needs the Debian package ``chromium`` (/usr/bin/chromium; CI installs it: .ci/run) and the
``playwright`` package of the test extras (never its own browser download).  Without Chromium
the test fails in CI (``CI=true``) and is skipped, with the reason, elsewhere.  The browser is
the module's (`browser`, tests/support/browser.py); each test opens its pages in fresh
contexts.  Screenshots go to tmp_path only.
"""

from __future__ import annotations

import re
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import AdminAction, Game, game_players
from narrator.service.inbox import process_pending
from narrator.web.tokens import page_token
from narrator.web.vote import Envelope
from stories.words import load_words
from tests.support.admin import BOSS, PASSWORD, panel_site, store_hash
from tests.support.botgame import BotGame, ballots
from tests.support.browser import chromium
from tests.support.bymail import NARRATOR, Table
from tests.support.web import serving, site_of

WIDTHS = (400, 1100)
SECRET = "the key of the personal links"
GAME = BotGame(
    "wakkerdam",
    "en",
    "Harbour",
    (("Anna", "vrouw"), ("Bram", "man"), ("Carla", "vrouw"), ("Dirk", "man"), ("Eva", "vrouw")),
    seed=3,
)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), path
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    return width, height


@pytest.mark.slow  # a browser (`make test-fast` leaves it out)
def test_the_public_page_followed_through_a_game(
    factory: sessionmaker[Session], browser: object, tmp_path: Path
) -> None:
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    table = Table(factory, language="en")
    GAME.open(table)
    pages = {width: browser.new_page(viewport={"width": width, "height": 900}) for width in WIDTHS}
    shots: list[Path] = []

    def look(root: str, moment: str) -> dict[int, str]:
        """Open the game's page at both widths; screenshot it; return its text per width."""
        texts = {}
        for width, page in pages.items():
            answer = page.goto(f"{root}/games/{GAME.name}")
            assert answer is not None and answer.status == 200
            # The stylesheet loaded (the CSP allows it): the header has the mails' dark blue.
            header = page.locator("header").evaluate("e => getComputedStyle(e).backgroundColor")
            assert header == "rgb(35, 48, 74)", header
            # Nothing wider than the window: no sideways scrolling on a phone.
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, (width, scroll)
            shot = tmp_path / f"{moment}-{width}.png"
            page.screenshot(path=str(shot), full_page=True)
            shots.append(shot)
            texts[width] = page.locator("main").inner_text()
        return texts

    with serving(site_of(factory, ruleset="wakkerdam", language="en")) as root:
        index = pages[400]
        index.goto(f"{root}/")
        assert "Open for signup" in index.locator("main").inner_text()
        index.get_by_role("link", name=GAME.name).click()
        assert index.url.endswith(f"/games/{GAME.name}")
        texts = look(root, "signup")
        assert all("To join, mail" in text for text in texts.values())
        GAME.start(table)
        texts = look(root, "started")
        assert all("Now:" in text and "(Europe/Amsterdam)" in text for text in texts.values())
        for number in GAME.steps(table):
            texts = look(root, f"step{number}")
            assert all("The story so far" in text for text in texts.values())
        assert all("Who was who" in text and "Winners" in text for text in texts.values())
    for page in pages.values():
        page.close()
    for shot in shots:
        width, _height = _png_size(shot)
        assert width in WIDTHS, shot


@pytest.mark.slow  # a browser (`make test-fast` leaves it out)
def test_a_player_votes_in_his_page_with_the_browser(
    factory: sessionmaker[Session], browser: object, tmp_path: Path
) -> None:
    """Through a whole game the first asked player of each step votes in his page's form
    (clicks a name, or blank, and the button); the others vote by mail."""
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    table = Table(factory, language="en")
    GAME.open(table)
    GAME.start(table)
    words = load_words(GAME.ruleset, GAME.language)
    order = [name for name, _ in GAME.players]
    site = replace(
        site_of(factory, ruleset="wakkerdam", language="en"),
        secret=SECRET,
        envelope=Envelope(NARRATOR),
    )
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        tokens = {p.name: page_token(SECRET, game.id, p.id) for p in game_players(session, game)}
    pages = {width: browser.new_page(viewport={"width": width, "height": 900}) for width in WIDTHS}
    by_page = 0
    with serving(site) as root:
        for step in range(1, 40):
            asked = ballots(factory, GAME, order, words)
            if asked is None:
                break
            voter, body = asked[0]
            for width, page in pages.items():
                page.goto(f"{root}/p/{tokens[voter]}")
                assert "This page is yours alone" in page.locator("main").inner_text()
                page.screenshot(path=str(tmp_path / f"own{step}-{width}.png"), full_page=True)
            page = pages[400]
            # He clicks what the bots' rule has him mail: its names, or blank.
            names = [word for word in body.split() if word in order]
            forms = page.locator("form.vote")
            if names:
                form = forms.filter(has=page.locator(f"input[value={names[0]}]")).first
                for name in names:
                    form.locator(f"input[name=name][value={name}]").check()
            else:
                form = forms.filter(has=page.locator("input[name=blank]")).first
                form.locator("input[name=blank]").check()
            form.locator("button[type=submit]").click()
            assert "Your vote is on its way" in page.locator("#sent").inner_text()
            outcomes = process_pending(factory, table.mailer, table.settings, table.clock)
            assert [o.what for o in outcomes] == ["vote accepted"], outcomes
            by_page += 1
            for name, body in asked[1:]:
                table.write(name, body, GAME.name)
            table.deadline()
    for page in pages.values():
        page.close()
    assert by_page >= 2
    receipts = [to for to, kind, _ in table.mails() if kind == "receipt"]
    assert len(receipts) >= by_page


@pytest.mark.slow  # a browser (`make test-fast` leaves it out)
def test_an_admin_logs_in_starts_a_game_and_closes_a_step(
    factory: sessionmaker[Session], browser: object, tmp_path: Path, boss_hash: str
) -> None:
    """The admin panel in the browser: at each width an admin logs in; at a phone's width he
    starts the game and closes its first step; every kind of admin page is screenshot."""
    from playwright.sync_api import Browser, Page

    assert isinstance(browser, Browser)
    store_hash(factory, BOSS, boss_hash)
    table = Table(factory, language="en")
    GAME.open(table)
    shots: list[Path] = []

    def look(page: Page, width: int, name: str) -> str:
        """Check the page fits the window and has the site's style; screenshot it."""
        header = page.locator("header").evaluate("e => getComputedStyle(e).backgroundColor")
        assert header == "rgb(35, 48, 74)", header
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, (name, width, scroll)
        shot = tmp_path / f"admin-{name}-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        shots.append(shot)
        return page.locator("main").inner_text()

    with serving(panel_site(factory)) as root:
        pages = {}
        for width in WIDTHS:
            context = browser.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            page.goto(f"{root}/admin")
            assert page.url.endswith("/admin/login")
            look(page, width, "login")
            page.fill("input[name=email]", BOSS)
            page.fill("input[name=password]", PASSWORD)
            page.get_by_role("button", name="Log in").click()
            page.wait_for_url(f"{root}/admin")
            assert GAME.name in look(page, width, "games")
            pages[width] = page
        phone = pages[400]
        phone.get_by_role("link", name=GAME.name).click()
        assert "signup" in look(phone, 400, "game-signup")
        phone.get_by_role("button", name="Start the game").click()
        assert "Done: started" in phone.locator("#done").inner_text()
        text = look(phone, 400, "game-started")
        assert "running" in text and "Close step" in text
        phone.get_by_role("button", name=re.compile("^Close step")).click()
        assert "Done: closed step" in phone.locator("#done").inner_text()
        look(phone, 400, "game-closed")
        desk = pages[1100]
        for path, name in (
            (f"/admin/games/{GAME.name}", "game"),
            ("/admin/help", "help"),
            ("/admin/distributions", "distributions"),
            ("/admin/stories?event=role", "stories"),
        ):
            desk.goto(root + path)
            look(desk, 1100, name)
        assert "=== wakkerdam/" in desk.locator("main").inner_text()
        for page in pages.values():
            page.context.close()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert (game.status, game.step_number) == ("running", 2)
        actions = session.scalars(select(AdminAction.action).order_by(AdminAction.id)).all()
        assert actions == ["start", "close-step"]
    assert {_png_size(shot)[0] for shot in shots} == set(WIDTHS)


def test_without_chromium_ci_fails_and_elsewhere_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    """The browser check never passes silently: no Chromium is a failure in CI."""
    monkeypatch.setattr(Path, "is_file", lambda self: False)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install chromium"):
        chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        chromium()
