"""Leftovers of issue #22 read by mail on the real database: the same list of choices printed
once in an English Mafia step mail and reminder, and several moves in one mail taught wherever
a player is asked two or more."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, RoleDistribution
from narrator.service import games as service
from narrator.service.work import unit_of_work
from tests.service.test_mafia_mails_read import _open
from tests.support.bymail import Table, address_of, game_view, text_of


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


VAMPIRI_ROLES = ["re", "lamia", "regina", "vampiro", "vampiro", "monaco", "esploratore",
                 "cacciatore", "leader", "vampiro"]  # fmt: skip
VAMPIRI_NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Hugo", "Ilaria",
                 "Luca")  # fmt: skip


def _vampiri_day(factory: sessionmaker[Session], language: str) -> tuple[Table, str]:
    """A Vampiri game at its first day step; the Monaco (a hunter: he blocks and hunts)."""
    table = Table(factory, language=language)
    table.open_game(
        name="Borgo", ruleset="vampiri", language=language, theme="vampiri", speed=86400,
        strictness=9,
    )  # fmt: skip
    man, woman = ("uomo", "donna") if language == "it" else ("man", "woman")
    for name in VAMPIRI_NAMES:
        gender = woman if name[-1] == "a" else man
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        work.session.add(
            RoleDistribution(
                ruleset="vampiri", key="test", players=10, roles=VAMPIRI_ROLES, options={}
            )
        )
        work.session.flush()
        service.start_game(
            work, table.mailer, game, now=table.clock(), seed=3, distribution_id="test"
        )
    table.deadline()  # the night's vote passes with no votes
    assert game_view(factory).step == "giorno"
    monaco = next(name for name, role in table.roles().items() if role == "monaco")
    return table, monaco


@pytest.mark.parametrize(
    ("language", "teach"),
    [
        ("en", "You may send all your votes in one mail, one a line"),
        ("it", "Puoi mandare tutti i voti in una sola mail, uno per riga"),
    ],
)
def test_a_vampiri_player_with_two_votes_is_taught_one_mail_and_it_works(
    factory: sessionmaker[Session], language: str, teach: str
) -> None:
    table, monaco = _vampiri_day(factory, language)
    steps = [
        text_of(m) for to, kind, m in table.mails() if kind == "step" and to == address_of(monaco)
    ]
    step = steps[-1]
    assert teach in step, step
    assert "separate mails" not in step and "mail separate" not in step, step
    example = step.replace("\r\n", "\n").split(teach, 1)[1].split("\n\n")[1]
    [reminder] = [text for to, text in _reminders(table) if to == address_of(monaco)]
    assert teach in reminder and example in reminder.replace("\r\n", "\n"), reminder
    # The example, sent as it is, is two votes.
    assert table.write(monaco, example).startswith("moves:"), example


TEACH = {
    ("mafia", "en"): "You may send them all in one mail, one move a line",
    ("mafia", "ru"): "Их можно прислать одним письмом, по ходу на строку",
    ("wakkerdam", "nl"): "Je mag al je stemmen in één mail sturen, één per regel",
    ("wakkerdam", "en"): "You may send all your votes in one mail, one a line",
    ("lupus", "it"): "Puoi mandare tutti i voti in una sola mail, uno per riga",
    ("lupus", "en"): "You may send all your votes in one mail, one a line",
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_mafia_reminder_teaches_several_moves_in_one_mail(
    factory: sessionmaker[Session], language: str
) -> None:
    table = _open(factory, language, mayor=False)
    teach = TEACH["mafia", language]
    taught = {to for to, kind, m in table.mails() if kind == "step" and teach in text_of(m)}
    reminders = dict(_reminders(table))
    assert taught, "no step mail teaches it"
    for to in taught:
        assert teach in reminders[to], reminders[to]


@pytest.mark.parametrize("language", ["nl", "en"])
def test_the_white_werewolfs_reminder_teaches_both_votes_in_one_mail(
    factory: sessionmaker[Session], language: str
) -> None:
    from tests.service.test_mail_third_pass import _white_wolf_at_night_two, _who

    table = _white_wolf_at_night_two(factory, language)
    white = _who(table)["witte_weerwolf"][0]
    reminders = dict(_reminders(table))
    assert TEACH["wakkerdam", language] in reminders[address_of(white)], reminders
    one_vote = [text for to, text in reminders.items() if to != address_of(white)]
    assert one_vote and not [t for t in one_vote if TEACH["wakkerdam", language] in t]


@pytest.mark.parametrize("language", ["it", "en"])
def test_the_sindacos_reminder_teaches_both_votes_in_one_mail(
    factory: sessionmaker[Session], language: str
) -> None:
    from tests.service.test_moves_by_mail import _lupus_day

    table, mayor = _lupus_day(factory, language)
    reminders = dict(_reminders(table))
    reminder = reminders[address_of(mayor)]
    assert TEACH["lupus", language] in reminder, reminder
    assert "one mail, one vote" not in reminder and "una mail è un voto" not in reminder
