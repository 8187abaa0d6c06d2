"""The words the parser reads for one ruleset in one language: keywords, blank, genders, Help.

A :class:`Lexicon` holds every ruleset- or language-specific word the parser uses, folded
(case and accents ignored, see :func:`parsing.fold`):

- ``keywords``: written word (or phrase of several words, joined by one space) -> keyword id,
  e.g. ``{"witte": "witte", "mayor": "burgemeester"}``; ``keyword_order`` is the order in which
  a vote reports the ids it found;
- ``blanco_words``: the words of a blank vote (``blanco``, ``nessuno``, ``пропуск``);
- ``genders``: signup word -> canonical gender (``uomo`` -> ``man``, ``женщина`` -> ``vrouw``);
- ``help_words``: a subject whose first word is one of these goes to the admins;
- ``stop_words``: ordinary words, never understood as a misspelt player name;
- ``reserved_names``: more words that may not be a player's name (the keyword, blank, gender
  and Help words never may).

The narrator builds one per ruleset and language with :meth:`Lexicon.from_words` from the words
of the story layer (the language's shared words and the ruleset's pack, ``words.toml``).  The
parser writes no word of any language: :data:`DEFAULT_LEXICON` is empty (no keyword, blank,
gender, Help or stop word).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TypeVar

from parsing.names import fold, letter_words


class Gender(StrEnum):
    """Gender as stored for the stories (Dutch ids, as in the scenario files)."""

    MAN = "man"
    VROUW = "vrouw"


def phrase_key(text: str) -> str:
    """The folded words of ``text`` joined by one space: how a keyword or phrase is looked up
    (``'No  Insurance'`` -> ``'no insurance'``)."""
    return " ".join(letter_words(fold(text)))


@dataclass(frozen=True)
class Lexicon:
    """The parser's words for one ruleset and language (see the module's documentation).

    Build it with :meth:`from_words`; the fields hold folded words.  Pure and immutable: build
    one per ruleset and language and share it across mails.
    """

    keywords: Mapping[str, str] = field(default_factory=dict)
    keyword_order: tuple[str, ...] = ()
    blanco_words: frozenset[str] = frozenset()
    genders: Mapping[str, Gender] = field(default_factory=dict)
    help_words: frozenset[str] = frozenset()
    stop_words: frozenset[str] = frozenset()
    reserved_names: frozenset[str] = frozenset()

    @classmethod
    def from_words(
        cls,
        words: Mapping[str, object],
        keyword_ids: Iterable[str] = (),
        base: Lexicon | None = None,
    ) -> Lexicon:
        """Build a lexicon from the plain mapping of a story pack's ``words.toml``.

        Read keys (others, such as ``errors`` or ``roles``, are ignored)::

            [keywords]            # keyword id -> the words (or phrases) that select it
            witte = ["witte"]
            burgemeester = ["burgemeester", "mayor"]
            blanco = ["blanco", "abstain"]
            help = ["hulp"]       # the Help words (added to the base's)
            stop_words = ["..."]  # the stop words (added to the base's)
            reserved = ["..."]    # optional: more words that may not be a name
            [genders]             # canonical gender (man | vrouw) -> words
            man = ["man", "uomo"]

        ``keyword_ids`` (the ruleset's ids, in its order) give ``keyword_order``, and each id
        is also accepted as written; when given, ``[keywords]`` may name no other id (without
        them the table's ids, in its order).  A gender id (``man``, ``vrouw``) is accepted as
        written too.
        ``base`` (default :data:`DEFAULT_LEXICON`, empty) gives Help, stop and reserved words
        merged in.
        Raises ``ValueError`` when a key has the wrong shape, a word is empty, a keyword id is
        not the ruleset's, or one word would mean two keyword ids or two genders.
        """
        base = DEFAULT_LEXICON if base is None else base
        table = _table(words, "keywords")
        known = tuple(keyword_ids)
        unknown = [keyword for keyword in table if known and keyword not in known]
        if unknown:
            raise ValueError(f"keywords: {', '.join(unknown)} not among the ruleset's {known}")
        order = tuple(dict.fromkeys([*known, *table]))
        keywords: dict[str, str] = {}
        for keyword in order:
            _add(keywords, keyword, keyword, "keyword")
        for keyword, written in table.items():
            for word in _word_list(written, f"keywords.{keyword}"):
                _add(keywords, word, keyword, "keyword")
        genders: dict[str, Gender] = {}
        for gender_id, written in _table(words, "genders").items():
            try:
                gender = Gender(gender_id)
            except ValueError:
                raise ValueError(f"genders: unknown gender {gender_id!r} (man, vrouw)") from None
            for word in (gender_id, *_word_list(written, f"genders.{gender_id}")):
                _add(genders, word, gender, "gender")
        return cls(
            keywords=keywords,
            keyword_order=order,
            blanco_words=_folded(words, "blanco"),
            genders=genders,
            help_words=base.help_words | _folded(words, "help"),
            stop_words=base.stop_words | _folded(words, "stop_words"),
            reserved_names=base.reserved_names | _folded(words, "reserved"),
        )

    @cached_property
    def name_stop_words(self) -> frozenset[str]:
        """The words never understood as a misspelt name: the stop words, and every word of
        the keywords and blank words."""
        written = {
            word for phrase in (*self.keywords, *self.blanco_words) for word in phrase.split()
        }
        return self.stop_words | written

    @cached_property
    def reserved(self) -> frozenset[str]:
        """The folded words that may not be a player's name: keyword ids and words, blank,
        gender and Help words, and ``reserved_names``."""
        return frozenset(
            {
                *self.keywords,
                *map(phrase_key, self.keyword_order),
                *self.blanco_words,
                *self.genders,
                *self.help_words,
                *self.reserved_names,
            }
        )

    @cached_property
    def _phrases(self) -> Mapping[str, tuple[tuple[tuple[str, ...], str], ...]]:
        """First word -> (the phrase's words, keyword id), longest phrase first."""
        index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for phrase, keyword in self.keywords.items():
            parts = tuple(phrase.split())
            index.setdefault(parts[0], []).append((parts, keyword))
        return {
            first: tuple(sorted(found, key=lambda item: -len(item[0])))
            for first, found in index.items()
        }

    def find_keywords(self, folded_words: Iterable[str]) -> tuple[str, ...]:
        """The keyword ids that ``folded_words`` (in order) write, each once, in
        ``keyword_order``; a phrase of several words wins over a shorter one it starts with."""
        words = list(folded_words)
        found: set[str] = set()
        position = 0
        while position < len(words):
            step = 1
            for parts, keyword in self._phrases.get(words[position], ()):
                if tuple(words[position : position + len(parts)]) == parts:
                    found.add(keyword)
                    step = len(parts)
                    break
            position += step
        return tuple(keyword for keyword in self.keyword_order if keyword in found)

    def is_blanco(self, folded_words: Iterable[str]) -> bool:
        """Whether ``folded_words`` (in order) hold a blank word or phrase."""
        words = list(folded_words)
        if any(word in self.blanco_words for word in words):
            return True
        phrases = [phrase for phrase in self.blanco_words if " " in phrase]
        joined = f" {' '.join(words)} " if phrases else ""
        return any(f" {phrase} " in joined for phrase in phrases)


DEFAULT_LEXICON = Lexicon()
"""No word at all (the parser spells none): a game's lexicon comes from the story layer, its
language's shared words and its pack's."""


def _table(words: Mapping[str, object], key: str) -> Mapping[str, object]:
    value = words.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(name, str) for name in value):
        raise ValueError(f"{key}: expected a table of word lists")
    return value


def _word_list(value: object, key: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{key}: expected a list of words")
    if not all(isinstance(word, str) for word in value):
        raise ValueError(f"{key}: expected a list of words")
    return tuple(value)


def _folded(words: Mapping[str, object], key: str) -> frozenset[str]:
    result = set()
    for word in _word_list(words.get(key, ()), key):
        folded = phrase_key(word)
        if not folded:
            raise ValueError(f"{key}: {word!r} has no letters")
        result.add(folded)
    return frozenset(result)


_Meaning = TypeVar("_Meaning", bound=str)


def _add(table: dict[str, _Meaning], word: str, meaning: _Meaning, what: str) -> None:
    folded = phrase_key(word)
    if not folded:
        raise ValueError(f"{what} word {word!r} has no letters")
    if table.get(folded, meaning) != meaning:
        raise ValueError(f"{what} word {word!r} means both {table[folded]!r} and {meaning!r}")
    table[folded] = meaning
