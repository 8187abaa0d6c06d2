"""Leftovers of issue #22 read by mail on the real database: the same list of choices printed
once in an English Mafia step mail and reminder, and several moves in one mail taught wherever
a player is asked two or more."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game
from narrator.service import games as service
from narrator.service.work import unit_of_work
from tests.service.test_mafia_mails_read import _open
from tests.support.bymail import Table, text_of


def _reminders(table: Table) -> list[tuple[str, str]]:
    """Send the current step's reminders; (recipient, text) of each."""
    before = len(table.mails())
    with unit_of_work(table.factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.send_reminders(work, table.mailer, game, now=table.clock())
    return [(to, text_of(m)) for to, kind, m in table.mails()[before:] if kind == "reminder"]


def test_an_english_mafia_mail_lists_the_same_choices_once(
    factory: sessionmaker[Session],
) -> None:
    table = _open(factory, "en", mayor=False)
    steps = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "step"]
    mails = steps + _reminders(table)
    several = 0
    for to, text in mails:
        lists = Counter(line for line in text.splitlines() if line.startswith("Choose from:"))
        assert all(n == 1 for n in lists.values()), (to, text)
        several += sum(lists.values()) > 1
    # The family's members have several moves with lists (kill, insure, rumour…).
    assert several >= 2, mails
