"""A game's error wording is its pack's, else its ruleset's first pack's: found without asking
which packs there are when the language names its pack's directory."""

from __future__ import annotations

import pytest

from rules.core.registry import ruleset_ids
from stories.lexicon import _words_or_fallback, explainer_for
from stories.words import Words, WordsError, languages_of, load_words, spoken_languages


def _by_listing(ruleset: str, language: str) -> Words:
    """The words as found by listing the ruleset's packs first (as before)."""
    if language in languages_of(ruleset):
        return load_words(ruleset, language)
    packs = languages_of(ruleset)
    if not packs:
        raise WordsError(f"the {ruleset} ruleset has no story pack")
    return load_words(ruleset, packs[0])


LANGUAGES = [*spoken_languages(), "xx", "", ".", "..", "nl/", "../nl", "_lang", "NL", "nl-BE"]


@pytest.mark.parametrize("ruleset", [*ruleset_ids(), "no-such-ruleset", "_lang", ".."])
def test_the_words_are_those_found_by_listing_the_packs(ruleset: str) -> None:
    for language in LANGUAGES:
        try:
            expected: Words | type[Exception] = _by_listing(ruleset, language)
        except (WordsError, OSError) as error:
            expected = type(error)
        if isinstance(expected, Words):
            assert _words_or_fallback(ruleset, language) is expected, language
        else:
            with pytest.raises(expected):
                _words_or_fallback(ruleset, language)


def test_a_language_without_a_pack_is_worded_by_the_first_pack() -> None:
    first = languages_of("wakkerdam")[0]
    assert explainer_for("wakkerdam", "xx")("no-name", {}) == explainer_for("wakkerdam", first)(
        "no-name", {}
    )
