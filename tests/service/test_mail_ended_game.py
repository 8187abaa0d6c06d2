"""Mail to a game that has ended (issue #22): a late vote is told the game is over, in the
game's language, not that there is no such game; a Help mail about it is forwarded naming it,
and its acknowledgement does not teach voting.  Played by mail on the real database."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, GameStatus
from narrator.service.work import unit_of_work
from stories.words import load_words
from tests.support.bymail import Table, address_of, game_view, text_of
from tests.support.shipped import SHIPPED_RENDERER

GENDERS = {"nl": "man", "en": "man", "it": "uomo", "ru": "мужчина"}
# (ruleset, language, the Help word): every pack the project ships.
PACKS = [
    ("wakkerdam", "nl", "Help"),
    ("wakkerdam", "en", "Help"),
    ("lupus", "it", "aiuto"),
    ("lupus", "en", "help"),
    ("vampiri", "it", "Aiuto"),
    ("vampiri", "en", "Help"),
    ("mafia", "ru", "помощь"),
    ("mafia", "en", "help"),
]
# Words a reply about an ended game must not say: how to vote again, or that no game is known.
TEACHING = {
    "nl": ("Probeer het nog eens", "wil je stemmen", "Ik weet niet voor welk spel"),
    "en": ("Try again", "To vote", "want to vote", "which game your mail is"),
    "it": ("Riprova", "per votare", "Se vuoi votare", "Non so a quale partita"),
    "ru": ("Попробуйте ещё раз", "Чтобы сделать ход", "Не понимаю, к какой партии"),
}


def _ended(factory: sessionmaker[Session], ruleset: str, language: str) -> Table:
    """A game Borgo of ``ruleset`` in ``language`` with players Anna and Bram, then ended."""
    table = Table(factory, language="en")  # the admins' language (Help forwards)
    table.settings = replace(table.settings, admins=("beheer@example.org",))
    table.open_game(
        name="Borgo", ruleset=ruleset, language=language, theme=ruleset, speed=86400, strictness=3
    )
    for name in ("Anna", "Bram"):
        assert table.write(name, f"{name}, {GENDERS[language]}") == f"signup: {name}"
    with unit_of_work(factory) as work:
        work.session.scalars(select(Game)).one().status = GameStatus.ENDED.value
    return table


@pytest.mark.parametrize(("ruleset", "language", "help_word"), PACKS)
def test_a_vote_after_the_end_is_told_the_game_is_over(
    factory: sessionmaker[Session], ruleset: str, language: str, help_word: str
) -> None:
    table = _ended(factory, ruleset, language)
    assert table.write("Anna", "Bram") == "error: game-over"
    to, kind, mail = table.mails()[-1]
    text = text_of(mail)
    over = load_words(ruleset, language).error_text("game-over", {"game": "Borgo"})
    assert (to, kind) == (address_of("Anna"), "error")
    assert over.casefold() in text.casefold(), text  # "la partita…" after "Caro Anna,"
    assert not [words for words in TEACHING[language] if words in text], text


@pytest.mark.parametrize(("ruleset", "language", "help_word"), [*PACKS, ("example", "it", "aiuto")])
def test_the_game_over_reply_opens_with_its_own_words(
    factory: sessionmaker[Session], ruleset: str, language: str, help_word: str
) -> None:
    """Issue 22: the reply opened with the error mails' generic sentence ("I could not use your
    last mail.") and only then said the game was over: it opens with the game being over."""
    table = _ended(factory, ruleset, language)
    assert table.write("Anna", "Bram") == "error: game-over"
    text = text_of(table.mails()[-1][2]).replace("\r\n", "\n")
    over = load_words(ruleset, language).error_text("game-over", {"game": "Borgo"})
    greeting, opening = text.split("\n\n")[:2]
    assert "Anna" in greeting and opening.casefold().startswith(over.casefold()), text


@pytest.mark.parametrize(("ruleset", "language", "help_word"), PACKS)
def test_help_about_an_ended_game_names_it_and_does_not_teach_voting(
    factory: sessionmaker[Session], ruleset: str, language: str, help_word: str
) -> None:
    table = _ended(factory, ruleset, language)
    # Named in the subject, or not (his last game): either way the game is named back to him.
    for subject in (help_word, f"{help_word} Borgo"):
        acknowledgement = text_of(table.ask_help("Anna", "Who won?", subject))
        forward = text_of(table.mails()[-2][2])
        assert "Borgo" in forward and "Borgo" in acknowledgement, acknowledgement
        # Without a game in the subject the acknowledgement is in the admins' language.
        words = [w for language_words in TEACHING.values() for w in language_words]
        taught = [w for w in words if w.casefold() in acknowledgement.casefold()]
        assert not taught, acknowledgement


def test_an_open_game_of_the_same_name_comes_first(factory: sessionmaker[Session]) -> None:
    """A name used again: the mail goes to the game that is open, not to the ended one."""
    table = _ended(factory, "wakkerdam", "nl")
    with unit_of_work(factory) as work:
        work.session.scalars(select(Game)).one().name_key = "borgo-1"
    table.open_game(
        name="Borgo",
        ruleset="wakkerdam",
        language="nl",
        theme="wakkerdam",
        speed=86400,
        strictness=3,
    )
    assert table.write("Carla", "Carla, vrouw") == "signup: Carla"


def test_the_game_over_reply_links_the_games_public_page(factory: sessionmaker[Session]) -> None:
    """With the pages configured, the reply says where the whole story is read."""
    from narrator.web.tokens import PageLinks

    table = _ended(factory, "wakkerdam", "en")
    pages = PageLinks("k" * 32, "https://narrator.example.org")
    table.mailer = replace(table.mailer, pages=pages, shared=SHIPPED_RENDERER)
    assert table.write("Anna", "Bram") == "error: game-over"
    text = text_of(table.mails()[-1][2])
    assert "The whole story: https://narrator.example.org/games/Borgo" in text, text


def test_a_vote_after_a_game_played_to_its_end_names_the_winners(
    factory: sessionmaker[Session],
) -> None:
    from tests.service.test_mafia_mails_read import GAME, _lynch_the_blacks, _open

    table = _open(factory, "en", mayor=False)
    _lynch_the_blacks(table, factory)
    view = game_view(factory)
    assert view.over and view.winners
    assert table.write("Vito", "Rosa", GAME) == "error: game-over"
    text = text_of(table.mails()[-1][2])
    assert f"The winners: {', '.join(view.winners)}." in text, text
