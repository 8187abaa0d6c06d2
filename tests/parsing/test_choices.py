"""Choices that are no player's name in a vote: a role, a team, a number (``MailContext``'s
``choice_words`` and ``number_keywords``), read in the words of the game's pack."""

from __future__ import annotations

import pytest

from parsing import ErrorCode, GameInfo, MailContext, ParsedMail, ParseError, Vote, read_command
from stories.lexicon import choice_words_for, lexicon_for, number_words_for

PLAYERS = ("Anna", "Bram", "Doctor", "Вера")
GAME = GameInfo(name="MF1", players=PLAYERS)


def _context(language: str) -> MailContext:
    roles = ("doctor", "commissar", "active_citizen")
    teams = ("red", "black")
    return MailContext(
        lexicon=lexicon_for("mafia", language),
        name_counts={"request": (1, 1), "buy": (1, 1), "side": (1, 1)},
        choice_words={
            "request": {r: choice_words_for("mafia", language, r) for r in roles},
            "side": {
                **{t: choice_words_for("mafia", language, t) for t in teams},
            },
            "buy": number_words_for("mafia", language),
        },
        number_keywords=frozenset({"buy"}),
    )


def _read(body: str, language: str = "en") -> Vote | ParseError:
    result = read_command(
        ParsedMail(sender="x@example.org", subject="MF1", body=body), GAME, _context(language)
    )
    assert isinstance(result, Vote | ParseError)
    return result


@pytest.mark.parametrize(
    ("body", "language", "targets", "keyword"),
    [
        ("request doctor", "en", ("doctor",), "request"),
        ("request Doctor", "en", ("doctor",), "request"),
        ("request the Doctor please", "en", ("doctor",), "request"),
        ("request Active Citizen", "en", ("active_citizen",), "request"),
        ("request active_citizen", "en", ("active_citizen",), "request"),
        ("запрос доктор", "ru", ("doctor",), "request"),
        ("Запрос: Доктор", "ru", ("doctor",), "request"),
        ("запрос doctor", "ru", ("doctor",), "request"),
        ("buy 2", "en", ("2",), "buy"),
        ("buy 1.5", "en", ("1.5",), "buy"),
        ("купить 1,5", "ru", ("1.5",), "buy"),
        ("buy two", "en", ("2",), "buy"),
        ("купить два", "ru", ("2",), "buy"),
        ("side red", "en", ("red",), "side"),
        ("side: the reds", "en", ("red",), "side"),
        ("side reds", "en", ("red",), "side"),
        ("сторона красные", "ru", ("red",), "side"),
        ("сторона черные", "ru", ("black",), "side"),
    ],
)
def test_a_choice_is_read_by_its_words(
    body: str, language: str, targets: tuple[str, ...], keyword: str
) -> None:
    vote = _read(body, language)
    assert isinstance(vote, Vote), vote
    assert vote.targets == targets
    assert vote.keywords[:1] == (keyword,)


def test_names_still_work_beside_choices() -> None:
    vote = _read("side Anna")
    assert isinstance(vote, Vote) and vote.targets == ("Anna",)
    vote = _read("I vote for Bram")  # the plain vote offers no choices
    assert isinstance(vote, Vote) and vote.targets == ("Bram",)


def test_a_choice_word_is_the_choice_where_the_vote_offers_it_and_a_name_elsewhere() -> None:
    vote = _read("request Doctor")  # a player called Doctor: the request's choice wins
    assert isinstance(vote, Vote) and vote.targets == ("doctor",)
    vote = _read("Doctor")  # a plain vote: the player
    assert isinstance(vote, Vote) and vote.targets == ("Doctor",)


def test_numbers_count_only_where_the_vote_takes_one() -> None:
    vote = _read("Anna 2")
    assert isinstance(vote, Vote) and vote.targets == ("Anna",)
    error = _read("buy 1 2")
    assert isinstance(error, ParseError) and error.code is ErrorCode.TOO_MANY_NAMES


def test_an_unknown_choice_is_no_name() -> None:
    error = _read("request Dentist")
    assert isinstance(error, ParseError) and error.code is ErrorCode.NO_NAME
    error = _read("buy lots")
    assert isinstance(error, ParseError) and error.code is ErrorCode.NO_NAME


def test_a_plain_vote_written_with_its_keyword_offers_its_choices() -> None:
    """The Drug dealer's ``buy`` is his plain vote in the pre-vote: ``buy 1`` and ``1`` alike."""
    context = MailContext(
        lexicon=lexicon_for("mafia", "en"),
        name_counts={"": (1, 1), "hunt": (0, 0)},
        choice_words={"": number_words_for("mafia", "en")},
        number_keywords=frozenset({""}),
    )

    def read(body: str) -> Vote | ParseError:
        mail = ParsedMail(sender="x@example.org", subject="MF1", body=body)
        result = read_command(mail, GAME, context)
        assert isinstance(result, Vote | ParseError)
        return result

    for body in ("buy 1", "1", "buy one"):
        vote = read(body)
        assert isinstance(vote, Vote) and vote.targets == ("1",), body
    # Another vote of his (the hunt's approval) offers no numbers.
    vote = read("hunt, and buy 1 later")
    assert isinstance(vote, Vote) and vote.targets == () and vote.keywords[:1] == ("hunt",)


def test_a_role_word_that_is_also_a_keyword_is_the_role() -> None:
    """`drug` is the Drug dealer's keyword and a word of his role's name."""
    context = MailContext(
        lexicon=lexicon_for("mafia", "en"),
        name_counts={"request": (1, 1), "drug": (1, 2)},
        choice_words={"request": {"drug_dealer": choice_words_for("mafia", "en", "drug_dealer")}},
    )
    for body in ("request Drug Dealer", "request drug_dealer", "request the drug dealer"):
        mail = ParsedMail(sender="x@example.org", subject="MF1", body=body)
        vote = read_command(mail, GAME, context)
        assert isinstance(vote, Vote), (body, vote)
        assert vote.targets == ("drug_dealer",) and vote.keywords == ("request",), body
