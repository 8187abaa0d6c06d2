"""The layout escapes a mail's lines and names as plain strs (stories.layout.escaped): as
markupsafe escapes a str."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from stories.layout import escaped, inline_choices


@settings(max_examples=500, deadline=None)
@given(st.text() | st.text(alphabet=st.sampled_from("&<>'\"a é;#")))
@example("<a href=\"x\">Tom & 'Jerry'</a>")
@example("&amp; already")
def test_a_text_is_escaped_as_markupsafe_escapes_it(text: str) -> None:
    assert escaped(text) == str(escape(text))
    assert type(escaped(text)) is str


@given(st.lists(st.text(alphabet=st.sampled_from("&<>'\"aé "), max_size=6), max_size=4))
def test_the_choices_are_escaped_name_by_name(names: list[str]) -> None:
    spans = [f'<span style="white-space:nowrap;">{escape(name)}</span>' for name in names]
    assert inline_choices(tuple(names)) == " · ".join(spans)
