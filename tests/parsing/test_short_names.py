"""A three-letter word is a four-letter name with one letter missing when only one player fits."""

from __future__ import annotations

import itertools
import random
import string
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsing import (
    Correction,
    ErrorCode,
    GameInfo,
    NameMatcher,
    ParseError,
    Vote,
    fold,
    parse_mail,
)
from parsing.names import MAX_TOKENS
from tests.parsing.reading import read_mail

RUSSIAN = ("Иван", "Олег", "Нина", "Инна", "Егор", "Кирилл")
DUTCH = ("Anna", "Bram", "Dirk", "Dick", "Carla")
ITALIAN = ("Nico", "Rita", "Rina", "Luca", "Lucia", "Matteo")


def _vote(body: str, players: tuple[str, ...], ruleset: str, language: str) -> object:
    raw = f"From: P <p@example.org>\nSubject: G1\n\n{body}\n".encode()
    game = GameInfo("G1", players=players)
    return read_mail(parse_mail(raw), (game,), language=language, ruleset=ruleset)


@pytest.mark.parametrize(
    ("body", "players", "ruleset", "language", "player"),
    [
        ("Ива", RUSSIAN, "mafia", "ru", "Иван"),  # the last letter missing
        ("голосую за олг", RUSSIAN, "mafia", "ru", "Олег"),  # one inside
        ("Drk", DUTCH, "wakkerdam", "nl", "Dirk"),
        ("ik stem op brm", DUTCH, "wakkerdam", "nl", "Bram"),
        ("Nco", ITALIAN, "lupus", "it", "Nico"),
    ],
)
def test_a_four_letter_name_missing_one_letter_is_that_player(
    body: str, players: tuple[str, ...], ruleset: str, language: str, player: str
) -> None:
    command = _vote(body, players, ruleset, language)
    written = body.split()[-1]
    assert command == Vote("G1", (player,), False, (), (Correction(written, player),))


@pytest.mark.parametrize(
    ("body", "players", "ruleset", "language", "candidates"),
    [
        ("Ина", RUSSIAN, "mafia", "ru", ["Инна", "Нина"]),
        ("Dik", DUTCH, "wakkerdam", "nl", ["Dick", "Dirk"]),
        ("Ria", ITALIAN, "lupus", "it", ["Rina", "Rita"]),
        ("Luc", ITALIAN, "lupus", "it", ["Luca", "Lucia"]),  # Luca shortened, or Lucia begun
    ],
)
def test_two_players_that_close_are_ambiguous(
    body: str, players: tuple[str, ...], ruleset: str, language: str, candidates: list[str]
) -> None:
    command = _vote(body, players, ruleset, language)
    assert isinstance(command, ParseError), command
    assert command.code is ErrorCode.AMBIGUOUS_NAME
    assert list(command.params["candidates"]) == candidates


def test_an_ordinary_word_is_no_shortened_name() -> None:
    # «его» is Егор without its last letter, and the pronoun: a stop word is never a name.
    command = _vote("Кирилла, его надо убрать", RUSSIAN, "mafia", "ru")
    assert command == Vote("G1", ("Кирилл",), False, (), (Correction("Кирилла", "Кирилл"),))


def test_three_letters_fitting_two_do_not_spoil_a_clear_name() -> None:
    command = _vote("Иван. Ина пока молчит.", RUSSIAN, "mafia", "ru")
    assert command == Vote("G1", ("Иван",), False, (), ())


def test_only_three_letters_for_four_the_rest_is_unchanged() -> None:
    matcher = NameMatcher(["Jan", "Janneke", "Anna", "Eva", "Evert"])

    def found(text: str) -> list[str | None]:
        return [hit.player for hit in matcher.find(text.split())]

    assert found("Jan") == ["Jan"]  # a whole name
    assert found("Jne") == []  # Janneke is no four-letter name: three letters stay exact
    assert found("Jaan") == []  # no letter is added to a three-letter name
    assert found("An") == []  # two letters are never a name
    assert found("Ana") == ["Anna"]
    assert found("Eve") == []  # the start of one longer name alone is no vote


def test_every_three_letters_fit_exactly_the_four_letter_names_they_shorten() -> None:
    # The four-letter names are compared with a three-letter word when one is read (nothing
    # is prepared with the matcher): each word fits exactly the players whose folded name it
    # is with one letter left out, whatever the other names, accents and case.
    players = ["Anna", "Anne", "Ånna", "Dirk", "Dick", "Rita", "Rina", "Olga", "Jan", "Janneke"]
    matcher = NameMatcher(players)
    folded = {"Anna": "anna", "Anne": "anne", "Dirk": "dirk", "Dick": "dick"}
    folded |= {"Rita": "rita", "Rina": "rina", "Olga": "olga"}  # Ånna folds as Anna: one seat
    words = {name[:cut] + name[cut + 1 :] for name in folded.values() for cut in range(4)}
    for word in sorted(words | {"xyz", "jan", "ann"}):
        expected = sorted(
            p for p, f in folded.items() if word in {f[:c] + f[c + 1 :] for c in range(4)}
        )
        starts = sorted(p for p in players if p.lower().startswith(word) and len(p) > 3)
        hits = matcher.find([word.upper()])
        if word == "jan":
            assert [hit.player for hit in hits] == ["Jan"]  # a whole name first
            continue
        candidates = sorted(set(expected) | set(starts))
        if len(candidates) >= 2:
            assert [hit.candidates for hit in hits] == [tuple(candidates)], word
        elif expected:
            assert [(hit.player, hit.exact) for hit in hits] == [(expected[0], False)], word
        else:
            assert hits == [], word


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="abcéñЖ", min_size=3, max_size=5), max_size=12),
    st.text(alphabet="abcéñЖ", min_size=3, max_size=3),
)
def test_three_letters_fit_the_names_they_are_with_one_left_out(
    names: list[str], word: str
) -> None:
    matcher = NameMatcher(names)
    seats = {fold(name): name for name in reversed(names)}  # the first of a folded name
    expected = sorted(
        name
        for key, name in seats.items()
        if len(key) == 4 and fold(word) in {key[:cut] + key[cut + 1 :] for cut in range(4)}
    )
    assert matcher._one_letter_short(fold(word)) == tuple(expected)


def test_many_three_letter_words_in_a_big_game_cost_little() -> None:
    # Each is compared with the four-letter names in one pass of rapidfuzz's (as the longer
    # words with the names of their length): a mail of as many words as are read, in a game
    # of 1,000 players, takes a fraction of the parser's time bound for a mail (2 s): a word
    # compared with each name in Python instead took 2.3 s.
    rng = random.Random(1)
    letters = string.ascii_lowercase
    players = {
        "".join(rng.choice(letters) for _ in range(rng.choice([4, 4, 5, 6]))).capitalize()
        for _ in range(1000)
    }
    matcher = NameMatcher(sorted(players))
    words = ["".join(t) for t in itertools.product("bcdfghklmnprstaei", repeat=3)]
    assert len(set(words)) == 4913 <= MAX_TOKENS  # every one new, none a name
    start = time.thread_time()
    matcher.find(words)
    assert time.thread_time() - start < 1.0
