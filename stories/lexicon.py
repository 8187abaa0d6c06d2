"""The parser's words and error wording of a game: its language's shared words and its pack's.

A language's shared words (``stories/_lang/<lang>/words.toml``) and a ruleset's pack over them
(``stories/<ruleset>/<lang>/words.toml``, :func:`stories.words.load_words`) hold the words the
parser accepts (``[keywords]``, ``blanco``, ``[genders]``, ``help``, ``stop_words``) and the
wording of every error code (``[errors]``); :func:`lexicon_for`, :func:`language_lexicon`,
:func:`help_words` and :func:`explainer_for` hand them to :mod:`parsing`, which spells no word
of any ruleset or language itself.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from parsing import ErrorParams, Explain, Lexicon
from parsing.lexicon import phrase_key
from rules.core.registry import UnknownRuleset, get_ruleset, ruleset_ids
from stories.words import (
    Words,
    WordsError,
    languages_of,
    load_shared,
    load_words,
    spoken_languages,
)


@functools.cache  # a lexicon is immutable, and the pack's words are read once per process
def lexicon_for(ruleset: str, language: str) -> Lexicon:
    """The parser's words for games of ``ruleset`` in ``language``: the pack's over the
    language's, with the ruleset's keyword ids accepted as written.  Without a pack (an unknown
    ruleset, or a language the ruleset has no pack in) the language's shared words alone."""
    try:
        keyword_ids = get_ruleset(ruleset).keywords
        words = load_words(ruleset, language)
    except (UnknownRuleset, WordsError):
        return language_lexicon(language)
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


@functools.cache
def language_lexicon(language: str) -> Lexicon:
    """The parser's words that ``language`` shares across rulesets (blank, gender, Help and
    stop words; no keyword): how mail that belongs to no game is read.  A language without
    shared words gives an empty lexicon."""
    shared = load_shared(language)
    return Lexicon.from_words(
        {key: shared[key] for key in ("blanco", "genders", "help", "stop_words") if key in shared}
    )


@functools.cache
def help_words() -> frozenset[str]:
    """The Help subject words of every language the narrator speaks (folded): a mail is routed
    before its game, hence its language, is known."""
    found: set[str] = set()
    for language in spoken_languages():
        written: Any = load_shared(language).get("help", [])
        found.update(phrase_key(word) for word in written)
    return frozenset(found)


def explainer_for(ruleset: str, language: str) -> Explain:
    """The wording of the parser's errors for games of ``ruleset`` in ``language``: the pack's
    ``[errors]`` (a language the ruleset has no pack in gets its first pack's).  Raises
    WordsError for a ruleset without any pack."""
    words = _words_or_fallback(ruleset, language)

    def explain(code: str, params: ErrorParams) -> str:
        return words.error_text(code, dict(params))

    return explain


def explainers() -> dict[tuple[str, str], Explain]:
    """(ruleset, language) -> :func:`explainer_for` it, for every story pack shipped."""
    return {
        (ruleset, language): explainer_for(ruleset, language)
        for ruleset in ruleset_ids()
        for language in languages_of(ruleset)
    }


# A language named as a pack's directory is (no path, nothing hidden).
_LANGUAGE_NAME = re.compile(r"[A-Za-z0-9_-]+")


def _words_or_fallback(ruleset: str, language: str) -> Words:
    """The words of `ruleset`'s pack in `language`, else of its first pack."""
    if _LANGUAGE_NAME.fullmatch(language):
        # Its pack, read once per process (load_words): found there without asking which
        # packs there are, a glob of the pack's directory (40 us, each error reply).
        try:
            return load_words(ruleset, language)
        except WordsError:
            if language in languages_of(ruleset):
                raise  # its pack is there, and broken
    elif language in languages_of(ruleset):
        return load_words(ruleset, language)
    packs = languages_of(ruleset)
    if not packs:
        raise WordsError(f"the {ruleset} ruleset has no story pack")
    return load_words(ruleset, packs[0])


def choice_words_for(ruleset: str, language: str, choice: str) -> tuple[str, ...]:
    """The words that name ``choice``, a choice that is no player's name (a role or team id),
    in the pack of ``ruleset`` and ``language``: the id itself, the role's names
    (bare, with articles, plural), the team's name (also without a leading ordinary word, such
    as an article).  Without a pack: the id alone."""
    try:
        words = load_words(ruleset, language)
    except WordsError:
        return (choice,)
    found: list[str] = [choice]
    role = words.roles.get(choice)
    if role is not None:
        found += [role.name, role.definite, role.indefinite, role.plural, role.definite_plural]
    team = words.teams.get(choice)
    if team is not None:
        found.append(team)
        first, _, rest = team.partition(" ")
        if rest and first.casefold() in words.stop_words:
            found.append(rest)
    return tuple(dict.fromkeys(word for word in found if word.strip()))


def number_words_for(ruleset: str, language: str) -> dict[str, tuple[str, ...]]:
    """The numbers the pack of ``ruleset`` and ``language`` spells (``numbers``, from one up):
    ``"2"`` -> ``("two",)``.  Without a pack: none."""
    try:
        words = load_words(ruleset, language)
    except WordsError:
        return {}
    return {str(n): (word,) for n, word in enumerate(words.numbers) if n > 0 and word.strip()}


def choice_label(ruleset: str, language: str, choice: str) -> str:
    """How a reply lists ``choice`` (a role or team id): its name in the pack, else the id."""
    try:
        words = load_words(ruleset, language)
    except WordsError:
        return choice
    role = words.roles.get(choice)
    if role is not None:
        return role.name
    return words.teams.get(choice, choice)
