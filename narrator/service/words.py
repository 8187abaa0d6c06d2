"""The parser's words and error wording of a game: read from its story pack's words.toml.

A ruleset's pack (``stories/<ruleset>/<lang>/words.toml``) holds the words the parser accepts
(``[keywords]``, ``blanco``, ``[genders]``, ``help``, ``stop_words``) and the wording of every
error code (``[errors]``); :func:`lexicon_for` and :func:`explainer_for` hand them to
:mod:`parsing` (which spells no word of any ruleset or language itself).
"""

from __future__ import annotations

import functools

from parsing import ErrorParams, Explain, Lexicon
from rules.core.registry import UnknownRuleset, get_ruleset
from stories.words import Words, WordsError, languages_of, load_words


@functools.cache  # a lexicon is immutable, and the pack's words are read once per process
def lexicon_for(ruleset: str, language: str) -> Lexicon:
    """The parser's words for games of ``ruleset`` in ``language``: the pack's, with the
    ruleset's keyword ids accepted as written.  Without a pack (an unknown ruleset or
    language) only the language-generic words (Help, the common stop words)."""
    try:
        keyword_ids = get_ruleset(ruleset).keywords
        words = load_words(ruleset, language)
    except (UnknownRuleset, WordsError):
        return Lexicon.from_words({})
    return Lexicon.from_words(
        {
            "keywords": {key: list(written) for key, written in words.keywords.items()},
            "blanco": list(words.blanco),
            "genders": {key: list(written) for key, written in words.genders.items()},
            "help": list(words.help),
            "stop_words": list(words.stop_words),
        },
        keyword_ids,
    )


def explainer_for(ruleset: str, language: str) -> Explain:
    """The wording of the parser's errors for games of ``ruleset`` in ``language``: the pack's
    ``[errors]`` (a language the ruleset has no pack in gets its first pack's).  Raises
    WordsError for a ruleset without any pack."""
    words = _words_or_fallback(ruleset, language)

    def explain(code: str, params: ErrorParams) -> str:
        return words.error_text(code, dict(params))

    return explain


def _words_or_fallback(ruleset: str, language: str) -> Words:
    if language in languages_of(ruleset):
        return load_words(ruleset, language)
    packs = languages_of(ruleset)
    if not packs:
        raise WordsError(f"the {ruleset} ruleset has no story pack")
    return load_words(ruleset, packs[0])
