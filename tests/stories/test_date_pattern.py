"""A date pattern made ready once (stories.vocab.DatePattern) writes every moment as Babel does
(stories.vocab.when): the words' own patterns, and any pattern of CLDR fields and text."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from stories import vocab
from stories.words import languages_of, load_words

LOCALES = ("nl", "en", "en_GB", "it", "ru", "de", "fr", "ar", "ja")
ZONES = (None, dt.UTC, ZoneInfo("Europe/Amsterdam"), ZoneInfo("America/St_Johns"))
#: The pieces a pattern is made of: the fields written without Babel, others left to it,
#: lengths Babel has no names for, and text (quoted, with quotes and percent signs).
PIECES = (
    *(c * n for c in "EMdHm" for n in range(1, 8)),
    "yyyy", "yy", "s", "a", "h", "LLLL", "c", "z", "G", "e",
    " ", ", ", ":", "%", "%d", "'om'", "'at'", "''", "'it''s'", "'%s'", "'",
)  # fmt: skip


def _moments() -> st.SearchStrategy[dt.datetime]:
    naive = st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1))
    return st.builds(
        lambda moment, zone, fold: moment.replace(tzinfo=zone, fold=fold),
        naive,
        st.sampled_from(ZONES),
        st.sampled_from((0, 1)),
    )


def _written(pattern: str, locale: str, moment: dt.datetime) -> tuple[str, str]:
    """What Babel writes (:func:`vocab.when`, its error's type) and what the made-ready
    pattern writes: the pattern is made ready first, as the words make it at their load."""
    ready = vocab.DatePattern.of(pattern, locale)
    try:
        expected = vocab.when(moment, pattern, locale)
    except Exception as error:  # the same error either way
        with pytest.raises(type(error)):
            ready.format(moment)
        return "", ""
    return expected, ready.format(moment)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.sampled_from(LOCALES),
    _moments(),
)
@example("EEEE d MMMM 'om' HH:mm", "nl", dt.datetime(2026, 3, 29, 2, 30, tzinfo=ZONES[2]))
@example("d MMMM, EEEE, HH:mm", "ru", dt.datetime(2026, 10, 25, 2, 30, fold=1, tzinfo=ZONES[2]))
@example("full", "nl", dt.datetime(2026, 11, 18, 9, 0))
@example("long", "en", dt.datetime(2026, 11, 18, 9, 0))
@example("medium", "it", dt.datetime(2026, 11, 18, 9, 0))
@example("short", "ru", dt.datetime(2026, 11, 18, 9, 0))
@example("", "en", dt.datetime(2026, 11, 18, 9, 0))
def test_a_pattern_made_ready_writes_what_babel_writes(
    pattern: str, locale: str, moment: dt.datetime
) -> None:
    expected, written = _written(pattern, locale, moment)
    assert written == expected


@settings(max_examples=200, deadline=None)
@given(_moments())
def test_the_words_patterns_write_what_babel_writes(moment: dt.datetime) -> None:
    for ruleset in ("wakkerdam", "lupus", "mafia", "vampiri", "example"):
        for language in languages_of(ruleset):
            words = load_words(ruleset, language)
            assert words.when_pattern.template is not None  # (written without Babel)
            expected = vocab.when(moment, words.when, words.cldr)
            assert words.when_pattern.format(moment) == expected
