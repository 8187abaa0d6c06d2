"""A plain From (a name of letters, digits and spaces and one address in angle brackets, or the
address alone) is told from the others without reading it as an address list, and that changes
no ruling: what the full reading finds of such a From is never a problem, and every From it
could find one in is read in full."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from narrator.service.authenticity import _PLAIN_FROM, _one_from_problem, from_problem

AMBIGUOUS = [
    ("frits@sec.test <mallory@evil.test>", "several addresses in From"),
    ("Anna <anna@example.net>, Bram <bram@example.net>", "several addresses in From"),
    ("anna@example.net, bram@example.net", "several addresses in From"),
    ("anna, bram", "several addresses in From"),
    ("Anna <anna@example.net> bram@evil.test", "several addresses in From"),
    ('"frits@sec.test" frits@sec.test <mallory@evil.test>', "several addresses in From"),
    ("Anna (bram@evil.test) <anna@example.net>", "an address outside the angle brackets"),
]


@given(st.from_regex(_PLAIN_FROM, fullmatch=True))
def test_the_full_reading_of_a_plain_from_finds_no_problem(value: str) -> None:
    assert _one_from_problem(value) is None
    assert from_problem([("from", value)]) is None


@pytest.mark.parametrize(("value", "problem"), AMBIGUOUS)
def test_an_ambiguous_from_is_read_in_full(value: str, problem: str) -> None:
    assert not _PLAIN_FROM.fullmatch(value)
    assert from_problem([("subject", "WW5"), ("from", value)]) == problem


@pytest.mark.parametrize(
    "value",
    [
        "Anna <anna@example.net>",
        "<anna@example.net>",
        "anna@example.net",
        "Anna de Vries 2 <anna.de-vries+ww5@mail.example.net>",
        '"anna@example.net" <anna@example.net>',  # quoted: read in full, and fine
        "=?utf-8?q?Ren=C3=A9?= <rene@example.net>",
    ],
)
def test_one_sender_is_no_problem(value: str) -> None:
    assert from_problem([("from", value)]) is None
    assert from_problem([("from", value), ("from", value)]) == "two From fields"
