"""The HTML of real mails in a real browser: a game of each ruleset played by mail (the bots of
tests/support/botgame.py), its mails opened in the system Chromium at a phone's width (400 px)
and a desktop's (1,100 px), their page height measured and their parts checked in the rendered
DOM (which part comes first, what each holds), not their pixels.

Needs the Debian package ``chromium`` and the ``playwright`` package of the test extras (never
its own browser download): without Chromium the test fails in CI and is skipped elsewhere
(the module's `browser`, tests/support/browser.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory
from stories.words import Words, load_words
from tests.support.botgame import BotGame, power_word
from tests.support.bymail import Table, address_of

pytestmark = pytest.mark.slow  # whole games and a browser

WIDTHS = (400, 1100)
NAMES = ("Alice", "Boris", "Clara", "Derek", "Edith", "Fred", "Gwen", "Hugo", "Iris", "Jack")
#: The layout's parts, by element id, in the order a page shows them.
ORDER = ("header", "deaths", "role-card", "story", "action", "signature", "roster", "footer")
#: A 10-player Russian Mafia night step with every move of a black Blocker (eight) stood
#: ~5,000 px high at 400 px before the moves were set apart, ~2,000 after; ~1,440 since each
#: move's lines run on in one paragraph, the spacing is a phone's, the header is one line, the
#: footer does not repeat the story's reply recipe and the pack's note per move is shorter.
MAFIA_NIGHT_MAX = 1500


def _players(count: int) -> tuple[tuple[str, str], ...]:
    return tuple((name, "vrouw" if i % 2 == 0 else "man") for i, name in enumerate(NAMES[:count]))


@dataclass(frozen=True)
class Played:
    """A game played by mail: its plan, its words, and every mail (recipient, kind, HTML)."""

    plan: BotGame
    words: Words
    mails: tuple[tuple[str, str, str], ...]
    roles: dict[str, str]

    def of(self, kind: str) -> list[tuple[str, str]]:
        """(recipient, HTML) of every mail of `kind` (the outbox's: role, step, story…)."""
        return [(to, page) for to, k, page in self.mails if k == kind]


GAMES = {
    "wakkerdam": BotGame("wakkerdam", "nl", "G1", _players(8), seed=1),
    "lupus": BotGame("lupus", "it", "G1", _players(8), seed=1, extra=power_word),
    "vampiri": BotGame("vampiri", "it", "G1", _players(8), seed=1),
    "mafia": BotGame("mafia", "ru", "G1", _players(10), seed=1),
}
#: Steps each game is played (enough for a night with moves and a death told).
STEPS = {"wakkerdam": 4, "lupus": 4, "vampiri": 4, "mafia": 7}


def _html(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/html":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    raise AssertionError("no HTML part")


@pytest.fixture(scope="module", params=sorted(GAMES))
def played(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _sqlite_template: Path,
) -> Iterator[Played]:
    """One game of the ruleset, played by mail to its end or its `STEPS`, with an error."""
    ruleset = request.param
    plan = GAMES[ruleset]
    path = tmp_path_factory.mktemp(ruleset) / "narrator.db"
    shutil.copyfile(_sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    factory: sessionmaker[Session] = session_factory(engine)
    table = Table(factory, language=plan.language)
    plan.open(table)
    plan.start(table)
    roles = table.roles()
    for number in plan.steps(table):
        if number >= STEPS[ruleset]:
            break
    table.write(NAMES[0], "zzzqqq", plan.name)  # a mail the narrator cannot read: an error
    mails = tuple((to, kind, _html(message)) for to, kind, message in table.mails())
    yield Played(plan, load_words(plan.ruleset, plan.language), mails, roles)
    engine.dispose()


class Shown:
    """One mail open in the browser at one width."""

    def __init__(self, page: object, html: str, width: int) -> None:
        from playwright.sync_api import Page

        assert isinstance(page, Page)
        page.set_viewport_size({"width": width, "height": 900})
        page.set_content(html)
        self.page = page
        self.width = width

    def height(self) -> int:
        return int(self.page.evaluate("document.documentElement.scrollHeight"))

    def parts(self) -> list[str]:
        """The layout's parts present, in the order the page shows them (top to bottom)."""
        tops = {}
        for part in ORDER:
            box = self.page.locator(f"#{part}")
            if box.count():
                bound = box.bounding_box()
                assert bound is not None, part
                tops[part] = bound["y"]
        return sorted(tops, key=tops.__getitem__)

    def text(self, selector: str) -> str:
        return self.page.locator(selector).first.inner_text()

    def texts(self, selector: str) -> list[str]:
        return self.page.locator(selector).all_inner_texts()

    def fits(self) -> None:
        """Nothing wider than the window: no sideways scrolling on a phone."""
        scroll = self.page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= self.width, (self.width, scroll)


@pytest.fixture(scope="module")
def tab(browser: object) -> Iterator[object]:
    """One browser page for every mail of the module: `Shown` sets its window's width and
    replaces its document whole with the mail's (a mail holds no script and stores nothing),
    so a fresh context per mail (a renderer process each, a third of a second of CPU) would
    show nothing more."""
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


def _open(tab: object, html: str) -> Iterator[Shown]:
    for width in WIDTHS:
        shown = Shown(tab, html, width)
        shown.fits()
        yield shown


def test_the_role_mail_sets_the_role_apart(played: Played, tab: object) -> None:
    label = played.words.mail
    to, html = played.of("role")[0]
    name = next(n for n, _g in played.plan.players if address_of(n) == to)
    role = played.words.roles[played.roles[name].split("+")[0]].name
    for shown in _open(tab, html):
        assert shown.parts()[:3] == ["header", "role-card", "story"]
        assert shown.text("#kind").casefold() == label.kind_role.casefold()
        card = shown.text("#role-card")
        assert role in card and label.write in card  # his role, and what he writes


def test_step_mails_set_each_move_apart_once_before_the_signature(
    played: Played, tab: object
) -> None:
    label = played.words.mail
    spelt = {forms[0] for forms in played.words.keywords.values()}
    steps = played.of("step")
    assert steps
    # The step mail of most moves, and the first one (a plain vote, most often).
    most = max(steps, key=lambda mail: mail[1].count('class="move"'))
    for _to, html in {most, steps[0]}:
        for shown in _open(tab, html):
            parts = shown.parts()
            assert parts[0] == "header" and shown.text("#kind").casefold() == (
                label.action.casefold()
            )
            assert parts.index("action") < parts.index("signature")  # the deadline, first
            assert "(Europe/Amsterdam)" in shown.text("#deadline")  # with its zone
            headings = shown.texts("td.move h3")
            assert headings, html
            for heading in headings:  # each move's heading names the word to write
                folded = heading.casefold()
                assert label.move_name.casefold() in folded or any(w in heading for w in spelt)
            # The choices are listed once: in the moves, never again as a list in the story.
            assert shown.page.locator("#story ul").count() == 0
            listed = shown.texts("td.move .choices")
            page = shown.text("body")
            for choices in set(listed):
                assert page.count(choices) == listed.count(choices), choices
            moves = [shown.page.locator("td.move").nth(i) for i in range(len(headings))]
            signature = shown.page.locator("#signature").bounding_box()
            assert signature is not None
            for move in moves:
                bound = move.bounding_box()
                assert bound is not None and bound["y"] < signature["y"]


@pytest.mark.parametrize("played", ["mafia"], indirect=True)
def test_a_ten_player_mafia_night_step_fits_a_phone(played: Played, tab: object) -> None:
    _to, html = max(played.of("step"), key=lambda mail: mail[1].count('class="move"'))
    assert html.count('class="move"') >= 6  # a black Blocker's night: seven moves
    heights = {shown.width: shown.height() for shown in _open(tab, html)}
    assert heights[400] <= MAFIA_NIGHT_MAX, heights
    assert heights[1100] <= heights[400]


def test_receipts_errors_and_stories_say_what_they_are(played: Played, tab: object) -> None:
    label = played.words.mail
    for kind, said in (
        ("receipt", label.kind_receipt),
        ("error", label.kind_error),
        ("story", label.kind_story),
    ):
        mails = played.of(kind)
        assert mails, kind
        _to, html = mails[-1]
        for shown in _open(tab, html):
            assert shown.parts()[0] == "header"
            assert shown.text("#kind").casefold() == said.casefold(), kind
            if kind == "error":  # its action box: the deadline, before the signature
                parts = shown.parts()
                assert parts.index("action") < parts.index("signature")
                assert "(Europe/Amsterdam)" in shown.text("#deadline")  # with its zone
            if kind == "receipt":
                assert "action" not in shown.parts()


def test_deaths_stand_out_in_the_story_mails(played: Played, tab: object) -> None:
    label = played.words.mail
    told = [html for _to, html in played.of("story") if 'id="deaths"' in html]
    assert told, "no story mail told a death"
    for shown in _open(tab, told[0]):
        assert shown.parts()[:2] == ["header", "deaths"]
        deaths = shown.text("#deaths")
        assert deaths.startswith(label.died)
        dead = [name for name in NAMES if name in deaths]
        assert dead and all(name in shown.text("#roster").split(":")[-1] for name in dead)
