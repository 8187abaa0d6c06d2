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
