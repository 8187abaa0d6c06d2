"""Nothing private on a public page: whole games of every ruleset are played by mail, and after
the start and every step each public page and JSON is scanned for every secret — a living
player's role, a line of any mail that only some players got (role mails, step mails,
receipts, private stories: what the village's story mails never said) and every address; and
each player's own page for every secret of the others (what only they were mailed)."""

from __future__ import annotations

import email
import json
import re
from dataclasses import dataclass, replace

import pytest
from markupsafe import escape
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, OutboxMessage, game_players
from narrator.outbound.compose import domain_of, make_message_id
from narrator.web.tokens import page_token
from tests.support.botgame import BotGame, power_word
from tests.support.bymail import NARRATOR, Table, above_roster, address_of, game_view, text_of
from tests.support.web import Page, fetch, serving, site_of

pytestmark = pytest.mark.slow  # whole games of every ruleset, every page scanned

ITALIANS = (
    ("Lea", "vrouw"),
    ("Vera", "vrouw"),
    ("Carlo", "man"),
    ("Dina", "vrouw"),
    ("Ezio", "man"),
    ("Ugo", "man"),
)
ENGLISH = (
    ("Alice", "vrouw"),
    ("Boris", "man"),
    ("Clara", "vrouw"),
    ("Derek", "man"),
    ("Edith", "vrouw"),
    ("Fred", "man"),
    ("Gwen", "vrouw"),
)
DUTCH = (*(("Anna", "vrouw"), ("Bram", "man"), ("Carla", "vrouw"), ("Dirk", "man")),
         *(("Eva", "vrouw"), ("Frank", "man"), ("Greet", "vrouw"), ("Hans", "man")))  # fmt: skip

#: One game of every ruleset with a story pack.
GAMES = [
    BotGame("wakkerdam", "nl", "WW1", DUTCH, seed=9),
    BotGame("lupus", "it", "Borgo", ITALIANS, seed=3, extra=power_word),
    BotGame("vampiri", "it", "Notte", ITALIANS, seed=1),
    BotGame("example", "it", "Esempio", ITALIANS[:5], seed=1),
    BotGame("mafia", "en", "Carrow", ENGLISH, seed=1),
]

SECRET = "the key of the personal links"

#: Lines shorter than this are no secret of their own ("Beste Anna,", a signature).
SHORTEST_SECRET = 25


def _lines(text: str) -> set[str]:
    return {" ".join(line.split()) for line in text.splitlines()} - {""}


#: The kinds of mail that tell no secret: public facts, or told to everybody once it is over.
PUBLIC_KINDS = ("signup_confirmed", "game_over", "epilogue")


@dataclass(frozen=True)
class _Mail:
    """One queued mail, read: its Message-ID, kind, recipient and the lines of its story."""

    message_id: str
    kind: str
    recipient: str
    lines: set[str]


class _Outbox:
    """The mails of the game, each read (parsed, its lines split) once, as it is queued: the
    scans after every step read them all, and parsing every mail again each time was most of
    the test's time.  (The game's mails are never deleted: rows above the last read are new.)"""

    def __init__(self, factory: sessionmaker[Session]) -> None:
        self.factory = factory
        self.mails: list[_Mail] = []
        self.last = 0

    def read(self) -> list[_Mail]:
        """Every mail queued so far, in order."""
        outbox = OutboxMessage.__table__.c
        with transaction(self.factory) as session:
            rows = session.execute(
                select(outbox.id, outbox.message_id, outbox.kind, outbox.recipient, outbox.raw)
                .where(outbox.id > self.last)
                .order_by(outbox.id)
            ).all()
        for row_id, message_id, kind, recipient, raw in rows:
            text = above_roster(text_of(email.message_from_bytes(raw)))
            self.mails.append(_Mail(message_id, kind, recipient, _lines(text)))
            self.last = row_id
        return self.mails


def _private_lines(outbox: _Outbox, village_ids: set[str]) -> set[str]:
    """Every line of a mail to some players that no village story mail (the one text every
    player got) holds: what only its readers know."""
    village: set[str] = set()
    private: set[str] = set()
    for mail in outbox.read():
        if mail.kind in PUBLIC_KINDS:
            continue  # public facts, or told to everybody once the game is over
        (village if mail.message_id in village_ids else private).update(mail.lines)
    return {line for line in private - village if len(line) >= SHORTEST_SECRET}


def _lines_by_reader(outbox: _Outbox, village_ids: set[str]) -> dict[str, set[str]]:
    """Address -> every line of the mails only some players got that went to him (the
    village's story and what everybody is told at the end aside)."""
    told: dict[str, set[str]] = {}
    for mail in outbox.read():
        if mail.message_id in village_ids or mail.kind in PUBLIC_KINDS:
            continue
        told.setdefault(mail.recipient, set()).update(mail.lines)
    return told


def _scan_own_pages(
    factory: sessionmaker[Session], outbox: _Outbox, plan: BotGame, root: str
) -> None:
    """Each player's own page holds no line that only other players were mailed, and no other
    living player's role."""
    village_ids = _village_ids(factory, plan)
    told = _lines_by_reader(outbox, village_ids)
    secrets = _private_lines(outbox, village_ids)
    with transaction(factory) as session:
        game = session.scalars(select(Game).where(Game.name == plan.name)).one()
        tokens = {p.email: page_token(SECRET, game.id, p.id) for p in game_players(session, game)}
    for address, token in tokens.items():
        page = fetch(f"{root}/p/{token}")
        data = json.loads(fetch(f"{root}/p/{token}.json").body)
        assert page.status == 200 and data["state"] == "running"
        others = secrets - told.get(address, set())
        shown = _told(page)
        leaked = [line for line in others if line in shown]
        assert not leaked, (plan.name, address, leaked)
        for player in data["players"]:
            assert player["role"] is None or not player["alive"], (plan.name, address, player)


def _village_ids(factory: sessionmaker[Session], plan: BotGame) -> set[str]:
    """The Message-IDs of the village's story mails (not the private ones)."""
    with transaction(factory) as session:
        game = session.scalars(select(Game).where(Game.name == plan.name)).one()
        players = game_players(session, game)
        domain = domain_of(NARRATOR)
        ids = set()
        for number in ("start", *range(1, game.step_number + 1)):
            for player in players:
                identity = f"story/{game.id}/{number}/{player.id}/{player.email}"
                ids.add(make_message_id(domain, identity))
        return ids


def _scan(
    factory: sessionmaker[Session], outbox: _Outbox, plan: BotGame, root: str, *, over: bool
) -> None:
    """Every public page and JSON of the game holds none of its secrets."""
    page = fetch(f"{root}/games/{plan.name}")
    data_page = fetch(f"{root}/games/{plan.name}.json")
    index = fetch(f"{root}/")
    assert page.status == data_page.status == index.status == 200
    data = json.loads(data_page.body)
    addresses = [address_of(name).lower() for name, _ in plan.players]
    for answer in (page, data_page, index):
        for address in addresses:
            assert address not in answer.body.lower(), (plan.name, address)
    if over:
        return
    living = {name for name, _ in plan.players}
    if data["state"] != "signup":
        living = {seat.name for seat in game_view(factory).players if seat.alive}
    for player in data["players"]:
        if player["name"] in living:
            assert player["role"] is None, (plan.name, player)
    for name in living:  # a living player's roster line names nobody's role
        assert f"<li>{escape(name)} (" not in page.body, (plan.name, name)
    shown = _told(page)
    secrets = _private_lines(outbox, _village_ids(factory, plan))
    leaked = [line for line in secrets if line in shown]
    assert not leaked, (plan.name, leaked)


def _told(page: Page) -> str:
    """The page's text, each line as the mails write it (collapsed spaces)."""
    return re.sub(r"\s+", " ", page.text)


@pytest.mark.parametrize("plan", GAMES, ids=[plan.ruleset for plan in GAMES])
def test_no_public_page_of_a_whole_game_holds_a_secret(
    factory: sessionmaker[Session], plan: BotGame
) -> None:
    table = Table(factory, language=plan.language)
    site = replace(site_of(factory, ruleset=plan.ruleset, language=plan.language), secret=SECRET)
    outbox = _Outbox(factory)
    with serving(site) as root:
        plan.open(table)
        _scan(factory, outbox, plan, root, over=False)
        plan.start(table)
        _scan(factory, outbox, plan, root, over=False)
        _scan_own_pages(factory, outbox, plan, root)
        steps = 0
        for _ in plan.steps(table):
            steps += 1
            over = game_view(factory).over
            _scan(factory, outbox, plan, root, over=over)
            if not over:
                _scan_own_pages(factory, outbox, plan, root)
        assert steps >= 2 and game_view(factory).over
        data = json.loads(fetch(f"{root}/games/{plan.name}.json").body)
        assert data["state"] == "ended" and data["winners"]
        assert all(player["role"] is not None for player in data["players"])
