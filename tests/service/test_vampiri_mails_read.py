"""Vampiri's mails read as the players read them (issue 22): whole games by mail in Italian and
English, each mail checked for what a game master would not sign — a private mail that
contradicts the public one, advice meant for the living sent to the dead, a receipt that drops
what it recorded, a secret vote never explained.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tests.support.botgame import BotGame
from tests.support.bymail import Table, text_of

EIGHT = (("Lea", "vrouw"), ("Vera", "vrouw"), ("Carlo", "man"), ("Dina", "vrouw"),
         ("Ezio", "man"), ("Bruno", "man"), ("Gina", "vrouw"), ("Ugo", "man"))  # fmt: skip
GAMES = [
    BotGame("vampiri", "it", "Notte", EIGHT, seed=1),
    BotGame("vampiri", "en", "Night", EIGHT, seed=1),
]
#: What a story mail says when nobody died (every variant of every theme).
NOBODY_FELL = re.compile(r"nessuno è caduto|nobody has fallen", re.IGNORECASE)


@pytest.mark.parametrize("plan", GAMES, ids=lambda p: p.language)
def test_no_private_mail_says_nobody_fell_when_the_village_is_told_a_death(
    factory: sessionmaker[Session], plan: BotGame
) -> None:
    """Issue 22.1: the private nightfall mails (a hunter's quarry, an investigation) said
    "Stasera nessuno è caduto" on the evening the public mail told a death, to the dead too."""
    table = Table(factory, language=plan.language)
    plan.open(table)
    plan.start(table)
    for _ in plan.steps(table, limit=40):
        pass
    batches: list[list[str]] = [[]]  # the story mails of one step follow each other
    for _to, kind, message in table.mails():
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
