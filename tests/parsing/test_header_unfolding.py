"""A header field is read as written (``ParsedMail.header_fields``, the decoded headers) with
its folds taken out by one expression; a field of one line, most, skips the expression: both
must give the same text for any value, folded or not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsing.mime import _FOLD, _decoded, _read_headers

# Values of header fields: any text, and text with folds (a line end, then blanks) in it.
PIECES = st.sampled_from(["a", " ", "\t", "\r", "\n", "\r\n", "\r\n ", "\n\t", "é", "=?", ":"])
VALUES = st.one_of(st.text(max_size=40), st.lists(PIECES, max_size=12).map("".join))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Subject", "From", " X-Thing "]), VALUES), max_size=6))
def test_fields_are_unfolded_as_by_the_expression_alone(items: list[tuple[str, str]]) -> None:
    headers, fields = _read_headers(items, [])
    assert fields == tuple(
        (name.strip().lower(), _FOLD.sub(" ", value).strip()) for name, value in items
    )
    for key, values in headers.items():
        assert values == [
            _FOLD.sub(" ", value).strip() if value.isascii() else _decoded(value)
            for name, value in items
            if name.strip().lower() == key
        ]
