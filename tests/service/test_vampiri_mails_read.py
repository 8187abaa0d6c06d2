"""Vampiri's mails read as the players read them (issue 22): whole games by mail in Italian and
English, each mail checked for what a game master would not sign — a private mail that
contradicts the public one, advice meant for the living sent to the dead, a receipt that drops
what it recorded, a secret vote never explained.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from email.message import Message

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory, transaction
from narrator.models import Game
from tests.support.botgame import BotGame
from tests.support.bymail import Table, address_of, game_view, text_of

pytestmark = pytest.mark.slow  # whole games by mail

EIGHT = (("Lea", "vrouw"), ("Vera", "vrouw"), ("Carlo", "man"), ("Dina", "vrouw"),
         ("Ezio", "man"), ("Bruno", "man"), ("Gina", "vrouw"), ("Ugo", "man"))  # fmt: skip
GAMES = [
    BotGame("vampiri", "it", "Notte", EIGHT, seed=1),
    BotGame("vampiri", "en", "Night", EIGHT, seed=1),
]
#: What a story mail says when nobody died (every variant of every theme).
NOBODY_FELL = re.compile(r"nessuno è caduto|nobody has fallen", re.IGNORECASE)

#: The whole games the checks below read, on each database: (backend, game).
PLAYED = [
    pytest.param((backend, plan), id=f"{backend}-{plan.language}", marks=marks)
    for backend, marks in (("sqlite", ()), ("postgresql", (pytest.mark.postgres,)))
    for plan in GAMES
]


@pytest.fixture(scope="module", params=PLAYED)
def whole_game(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[tuple[str, str, Message]]]:
    """The mails of one whole game of `GAMES` played by the bots, (recipient, kind, message):
    played once for every check that reads it (each check played the same game for itself)."""
    backend, plan = request.param
    if backend == "sqlite":
        path = tmp_path_factory.mktemp(f"vampiri-{plan.language}") / "narrator.db"
        shutil.copyfile(request.getfixturevalue("_sqlite_template"), path)
        url, give_back = f"sqlite:///{path}", None
    else:
        pool = request.getfixturevalue("_postgres_pool")
        name = pool.take()
        url, give_back = pool.server.url_of(name), lambda: pool.give_back(name)
    engine = make_engine(url)
    try:
        table = Table(session_factory(engine), language=plan.language)
        plan.open(table)
        plan.start(table)
        for _ in plan.steps(table, limit=40):
            pass
        yield table.mails()
    finally:
        engine.dispose()
        if give_back is not None:
            give_back()


def test_no_private_mail_says_nobody_fell_when_the_village_is_told_a_death(
    whole_game: list[tuple[str, str, Message]],
) -> None:
    """Issue 22.1: the private nightfall mails (a hunter's quarry, an investigation) said
    "Stasera nessuno è caduto" on the evening the public mail told a death, to the dead too."""
    batches: list[list[str]] = [[]]  # the story mails of one step follow each other
    for _to, kind, message in whole_game:
        if kind == "story":
            batches[-1].append(text_of(message))
        elif batches[-1]:
            batches.append([])
    with_private = 0
    for texts in batches:
        public = [t for t in texts if t.startswith(("A tutta", "To all"))]
        private = [t for t in texts if t not in public]
        with_private += bool(private)
        if not any(NOBODY_FELL.search(t) for t in public):
            for text in private:
                assert not NOBODY_FELL.search(text), text
        for text in private:  # for the reader alone: no public opening, no public closing
            assert "questo è soltanto per te:" in text or "this is for you alone:" in text, text
    assert with_private


@pytest.mark.parametrize("plan", GAMES, ids=lambda p: p.language)
def test_a_player_out_of_the_game_gets_no_advice_for_staying_in(
    factory: sessionmaker[Session], plan: BotGame
) -> None:
    """Issue 22.7: a player dead of inactivity was told "Basta un «nessuno» per restare fra i
    vivi"; his next mail got "Riprova…" / "Try again…" and the deadline. He is told he is out,
    and how to stop the game's mails (the admins remove him: `narrator game unsubscribe`)."""
    table = Table(factory, language=plan.language)
    plan.open(table)
    with transaction(factory) as session:
        session.scalars(select(Game)).one().strictness = 1
    plan.start(table)
    silent, *others = (name for name, _ in EIGHT)
    blank = "nessuno" if plan.language == "it" else "nobody"
    for name in others:
        assert table.write(name, blank, plan.name) == "vote accepted"
    before = len(table.mails())
    table.deadline()
    [seat] = [s for s in game_view(factory).players if s.name == silent]
    assert not seat.alive
    told = [text_of(m) for to, k, m in table.mails()[before:] if to == address_of(silent)]
    mine = [t for t in told if "soltanto per te" in t or "for you alone" in t]
    assert mine, told
    for text in mine:
        assert "«nessuno»" not in text and "“nobody”" not in text, text
        assert f"Aiuto {plan.name}" in text or f"Help {plan.name}" in text, text
    assert table.write(silent, others[0], plan.name).startswith("vote rejected: not-asked")
    error = text_of(table.mails()[-1][2])
    for advice in ("Riprova", "resta valido", "Try again", "still stands"):
        assert advice not in error, error
    assert f"Aiuto {plan.name}" in error or f"Help {plan.name}" in error, error


@pytest.mark.parametrize("language", ["it", "en"])
def test_the_secret_vote_is_explained_where_the_vote_is_asked(
    factory: sessionmaker[Session], language: str
) -> None:
    """Issue 22.6: in the Vampire Masquerade (`secret_vote`) the night's results give totals
    only; the step mails never said so, and a player could not tell why his vote went unnamed."""
    table = Table(factory, language=language)
    for secret in (False, True):
        plan = BotGame("vampiri", language, f"Notte{int(secret)}", EIGHT, seed=1)
        plan.open(table)
        with transaction(factory) as session:
            game = session.scalars(select(Game).where(Game.name == plan.name)).one()
            game.options = {"secret_vote": secret}
        before = len(table.mails())
        plan.start(table)
        steps = [text_of(m) for _to, kind, m in table.mails()[before:] if kind == "step"]
        assert len(steps) == len(EIGHT)
        said = {"it": "Il voto è segreto", "en": "The vote is secret"}[language]
        assert all((said in text) == secret for text in steps), steps[0]


def test_a_receipt_says_which_move_it_recorded(
    whole_game: list[tuple[str, str, Message]],
) -> None:
    """Issue 22.10: a role's power was confirmed as "la tua scelta è arrivata: Gina." /
    "Your choice has arrived: Gina.": the receipt says what the move will do."""
    receipts = [text_of(m) for _to, kind, m in whole_game if kind == "receipt"]
    orders = [t for t in receipts if "ordine è arrivato" in t or "order has arrived" in t]
    assert orders, receipts
    for text in receipts:
        assert "scelta è arrivata" not in text and "choice has arrived" not in text, text
        assert "cambiarlo" not in text, text  # the order, the vote: "cambiare idea"


def test_italian_mails_agree_with_the_player(factory: sessionmaker[Session]) -> None:
    """Issue 22.9: a woman's role mail said "sei un Vampiro"; one player's blank vote was told
    "«Nessuno», hanno scritto Ilaria"."""
    table = Table(factory, language="it")
    women = {address_of(name) for name, gender in EIGHT if gender == "vrouw"}
    blank_told = []
    for number in range(6):
        plan = BotGame("vampiri", "it", f"Notte{number}", EIGHT, seed=number)
        plan.open(table)
        before = len(table.mails())
        plan.start(table)
        for to, kind, message in table.mails()[before:]:
            if kind == "role" and to in women:
                text = text_of(message)
                assert "sei un " not in text and "la tua carta è" in text, text
        first, second, blank, *rest = (name for name, _ in EIGHT)
        ballots = {first: second, second: first, blank: "nessuno"}
        ballots.update({name: f"{first} {second}" for name in rest})
        for name, body in ballots.items():
            table.write(name, body, plan.name)
        before = len(table.mails())
        table.deadline()
        for _to, kind, message in table.mails()[before:]:
            text = text_of(message)
            if kind == "story" and "«Nessuno»," in text:
                blank_told.append(text)
                assert f"«Nessuno», ha scritto {blank}." in text, text
    assert blank_told
