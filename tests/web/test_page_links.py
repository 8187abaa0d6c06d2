"""The personal link in the mails, and its revocation: with the personal pages configured, a
player's role mail and every mail asking him to act carry his own page's address (text and
HTML) and a line not to forward it; no other mail carries any, and nobody gets another's.
Without the key no mail says a word of it.  An admin revokes a link (`narrator game
revoke-link`): the old one is then a plain 404, the new one opens the page."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from email.message import Message

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.config import Config, WebSection
from narrator.db import transaction
from narrator.models import Game, GameLogEntry, game_players
from narrator.service import games as service
from narrator.service.mailer import page_links_from_config
from narrator.service.work import unit_of_work
from narrator.web.tokens import PageLinks, page_token, read_token
from stories.words import load_words
from tests.narrator.fixtures import CliResult
from tests.support.botgame import BotGame, power_word
from tests.support.bymail import Table, address_of, text_of
from tests.support.web import fetch, serving, site_of

SECRET = "the key of the personal links"
BASE = "https://wolves.example.org"
LINK = re.compile(r"https://wolves\.example\.org/p/[0-9]+\.[0-9]+\.[0-9]+\.[A-Za-z0-9_-]{43}")
#: The mails that ask a player to act, besides his role mail: they carry his link.
PERSONAL = {"role", "step", "reminder"}

ITALIANS = (("Lea", "vrouw"), ("Vera", "vrouw"), ("Carlo", "man"),
            ("Dina", "vrouw"), ("Ezio", "man"), ("Ugo", "man"))  # fmt: skip
SEVEN = (("Alice", "vrouw"), ("Boris", "man"), ("Clara", "vrouw"), ("Derek", "man"),
         ("Edith", "vrouw"), ("Fred", "man"), ("Gwen", "vrouw"))  # fmt: skip
DUTCH = (("Anna", "vrouw"), ("Bram", "man"), ("Carla", "vrouw"), ("Dirk", "man"),
         ("Eva", "vrouw"), ("Frank", "man"), ("Greet", "vrouw"), ("Hans", "man"))  # fmt: skip
#: A game in each language of the story packs.
GAMES = [
    BotGame("wakkerdam", "nl", "WW1", DUTCH, seed=9),
    BotGame("lupus", "it", "Borgo", ITALIANS, seed=3, extra=power_word),
    BotGame("vampiri", "en", "Night", ITALIANS, seed=1),
    BotGame("mafia", "ru", "Carrow", SEVEN, seed=1),
]


def _html_of(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/html":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    raise AssertionError("no HTML part")


def _own_links(factory: sessionmaker[Session], name: str) -> dict[str, str]:
    """Player address -> the address of his page (of his current generation)."""
    with transaction(factory) as session:
        game = session.scalars(select(Game).where(Game.name == name)).one()
        return {
            p.email: f"{BASE}/p/{page_token(SECRET, game.id, p.id, p.page_generation)}"
            for p in game_players(session, game)
        }


def _play(table: Table, plan: BotGame, steps: int) -> None:
    plan.open(table)
    plan.start(table)
    for number in plan.steps(table):
        if number >= steps:
            break
    with unit_of_work(table.factory) as work:  # a reminder: it asks to act too
        game = work.session.scalars(select(Game).where(Game.name == plan.name)).one()
        if game.status != "ended":
            service.send_reminders(work, table.mailer, game, now=table.clock())


@pytest.mark.parametrize("plan", GAMES, ids=[f"{p.ruleset}-{p.language}" for p in GAMES])
def test_the_role_and_action_mails_carry_the_players_own_link(
    factory: sessionmaker[Session], plan: BotGame
) -> None:
    table = Table(factory, language=plan.language)
    table.mailer.pages = PageLinks(SECRET, BASE)
    _play(table, plan, steps=2)
    links = _own_links(factory, plan.name)
    mail = load_words(plan.ruleset, plan.language).mail
    seen: dict[str, set[str]] = {}
    for to, kind, message in table.mails():
        text, html = text_of(message), _html_of(message)
        found = set(LINK.findall(text)) | set(LINK.findall(html))
        if kind in PERSONAL:
            assert found == {links[to]}, (to, kind)
            assert text.count(links[to]) == 1 and f'href="{links[to]}"' in html
            assert mail.page_private in text and mail.page_private in html
            assert mail.page_link.replace("{url}", links[to]) in text
            seen.setdefault(kind, set()).add(to)
        else:  # a story (the village's above all), a receipt, the end: no link at all
            assert found == set(), (to, kind)
            assert mail.page_private not in text
    assert seen["role"] == set(links)  # every player's role mail
    assert seen.get("step") and seen.get("reminder")


def test_without_the_key_no_mail_mentions_a_page(factory: sessionmaker[Session]) -> None:
    plan = GAMES[0]
    table = Table(factory, language=plan.language)
    _play(table, plan, steps=1)
    mail = load_words(plan.ruleset, plan.language).mail
    kinds = set()
    for _to, kind, message in table.mails():
        kinds.add(kind)
        for part in (text_of(message), _html_of(message)):
            assert "/p/" not in part and mail.page_private not in part
    assert kinds >= PERSONAL


def test_the_links_are_in_mails_only_with_the_pages_enabled_and_a_key() -> None:
    web = WebSection(base_url=BASE)
    assert page_links_from_config(Config(web=web)) is None  # no key
    keyed = replace(web, secret=SECRET)
    assert page_links_from_config(Config(web=keyed)) == PageLinks(SECRET, BASE)
    assert page_links_from_config(Config(web=replace(keyed, enabled=False))) is None


def test_a_revoked_link_is_a_plain_404_and_the_new_one_opens_the_page(
    factory: sessionmaker[Session],
) -> None:
    plan = GAMES[0]
    table = Table(factory, language=plan.language)
    table.mailer.pages = PageLinks(SECRET, BASE)
    plan.open(table)
    plan.start(table)
    old = _own_links(factory, plan.name)[address_of("Anna")]
    site = replace(site_of(factory), secret=SECRET)
    with serving(site) as root:
        token = old.rsplit("/", 1)[1]
        assert fetch(f"{root}/p/{token}").status == 200
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            [anna] = [p for p in game_players(work.session, game) if p.name == "Anna"]
            assert service.revoke_link(work, game, anna, now=table.clock()) == 1
        new = _own_links(factory, plan.name)[address_of("Anna")]
        assert new != old
        for suffix in ("", ".json"):
            answer = fetch(f"{root}/p/{token}{suffix}")
            assert (answer.status, answer.body) == (404, "Not Found")
            assert fetch(f"{root}/p/{new.rsplit('/', 1)[1]}{suffix}").status == 200
        others = _own_links(factory, plan.name)
        assert fetch(f"{root}/p/{others[address_of('Bram')].rsplit('/', 1)[1]}").status == 200
    # Her next mail asking her to act carries the new link.
    before = len(table.mails())
    for _ in plan.steps(table):
        break
    anna_mails = [
        text_of(m)
        for to, kind, m in table.mails()[before:]
        if to == address_of("Anna") and kind == "step"
    ]
    assert all(old not in text for text in anna_mails)
    assert any(new in text for text in anna_mails) or not anna_mails
    with transaction(factory) as session:
        [entry] = session.scalars(select(GameLogEntry).where(GameLogEntry.kind == "revoke-link"))
        assert entry.payload == {"player": "Anna", "generation": 1}


def test_the_cli_revokes_a_link(
    run_cli: Callable[..., CliResult],
    sessions: sessionmaker[Session],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("NARRATOR_WEB_SECRET", SECRET)
    run_cli("game", "create", "WW5")
    table = Table(sessions, language="nl")
    assert table.write("Anna", "Anna, vrouw", "WW5") == "signup: Anna"
    first = run_cli("game", "link", "WW5", "Anna")
    assert first.status == 0, first.err
    revoked = run_cli("game", "revoke-link", "WW5", "anna")
    assert revoked.status == 0, revoked.err
    assert "revoked the personal link of Anna in WW5" in revoked.out
    second = run_cli("game", "link", "WW5", "Anna")
    old, new = (read_token(SECRET, r.out.strip().rsplit("/", 1)[1]) for r in (first, second))
    assert old is not None and new is not None
    assert (old.player_id, old.generation, new.generation) == (new.player_id, 0, 1)
    assert first.out.strip().rsplit("/", 1)[1] not in revoked.out + revoked.err + caplog.text
    assert run_cli("game", "revoke-link", "WW5", "Zoe").status == 2
    with transaction(sessions) as session:
        entries = session.scalars(select(GameLogEntry).where(GameLogEntry.kind == "revoke-link"))
        assert [e.payload for e in entries] == [{"player": "Anna", "generation": 1}]
