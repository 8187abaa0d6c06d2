"""A plain From (a display name of words and one address in brackets, or the address alone) is
read by the parser's own expression exactly as the email package's address parser reads it."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing import parse_mail
from parsing.mime import _PLAIN_FIELD, _addresses, _first_address


def _by_the_email_package(value: str) -> tuple[str, str]:
    """The first address of the field `value` as the email package reads it (what
    ``_first_address`` gives for any field not plain)."""
    return next(((name, address) for name, address in _addresses([value]) if address), ("", ""))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(_PLAIN_FIELD, fullmatch=True))
def test_a_plain_field_is_read_as_the_email_package_reads_it(value: str) -> None:
    assert _first_address({"from": [value]}, "from") == _by_the_email_package(value)


def test_fields_the_expression_takes_and_those_it_leaves_to_the_email_package() -> None:
    plain = [
        "Anna Bakker <Anna.Bakker+ww5@Example.NET>",
        "anna@example.net",
        "Anna <anna@example.net>",
        "<anna@example.net>",
        "Anna 2 <a_b-c@mail-1.example.net>",
    ]
    for value in plain:
        assert _PLAIN_FIELD.fullmatch(value), value
        assert _first_address({"from": [value]}, "from") == _by_the_email_package(value)
    # Quoted, encoded, commented, doubly spaced, two addresses, accents, dots astray: the email
    # package reads them (as before).
    others = [
        '"Bakker, Anna" <anna@example.net>',
        "=?utf-8?q?Zo=C3=AB?= <zoe@example.net>",
        "anna@example.net (Anna)",
        "Anna  Bakker <anna@example.net>",
        " Anna <anna@example.net>",
        "Anna <anna@example.net>, Bram <bram@example.net>",
        "Zoë <zoe@example.net>",
        "anna.@example.net",
        "anna@example..net",
        "Anna <anna@example.net",
        "frits@sec.test <mallory@evil.test>",
    ]
    for value in others:
        assert not _PLAIN_FIELD.fullmatch(value), value
    mail = b"From: A <a@x.test>\r\nFrom: Bram <bram@example.net>\r\nSubject: WW5\r\n\r\nhi\r\n"
    joined = "A <a@x.test>, Bram <bram@example.net>"  # two From fields: read together
    assert parse_mail(mail).sender == _by_the_email_package(joined)[1]


def test_a_long_field_that_is_almost_plain_is_read_in_linear_time() -> None:
    """The expression never backtracks much: a field of 8,192 characters (the most a header
    keeps) that fails at its end costs it no more than a millisecond or so."""
    for value in ("Anna " * 1638 + "<", "a." * 4095 + "@", "a" * 8191 + "@"):
        start = time.thread_time()
        assert _PLAIN_FIELD.fullmatch(value) is None
        assert time.thread_time() - start < 0.05
