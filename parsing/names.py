"""Player names in free text: folding, exact and fuzzy matching (rapidfuzz), stop words.

Names are compared *folded*: Unicode-decomposed, accents dropped, case-folded (``Zoë`` and
``zoe`` are the same player).  A word that is not exactly a player's name may still be
understood as one when it is a misspelling within a small edit distance (optimal string
alignment, so a swapped pair of letters costs 1) and fits exactly one player.  Ordinary words
never are: fuzzy matching skips stop words (the game's lexicon gives them: its language's and
its pack's words and its keywords; the parser spells no word of any language) and names
shorter than four letters (so ``van`` is never ``Jan``).  A word of three letters is a
misspelling only as a four-letter name with one letter left out (``Ива`` for Иван, ``Drk`` for
Dirk), the one typo a game master reads in so short a word.  A player whose name is itself an
ordinary word (``Ben``, ``Will``) counts only when written with a capital.
A word that fits several players is *ambiguous*, never silently given to one of them: several
misspellings within the tolerance (not only the closest), or the start of two or more names
(``Ann`` when Anna and Anne play; at least three letters, not a stop word).  Such a start, and
a three-letter word that fits several, is reported only when the mail names nobody outright,
so a stray word does not spoil a clear vote.  The start of one name alone is not taken for
it (``Jan`` is not Janneke) unless it lacks a single letter (``Ива``, Иван).
Exact matching is a dictionary lookup and fuzzy candidates are pre-filtered by length, so the
cost grows slowly with the number of players.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from rapidfuzz.distance import OSA
from rapidfuzz.process import extract

MIN_FUZZY_LENGTH = 4
MIN_PREFIX_LENGTH = 3
MAX_TOKENS = 5000

_LETTERS = re.compile(r"[^\W\d_]+")
# Letters that NFKD does not decompose into a base letter plus accents.
_SPECIAL_LETTERS = str.maketrans(
    {
        "ß": "ss",
        "ø": "o",
        "Ø": "o",
        "æ": "ae",
        "Æ": "ae",
        "œ": "oe",
        "Œ": "oe",
        "ł": "l",
        "Ł": "l",
        "đ": "d",
        "Đ": "d",
        "ð": "d",
        "þ": "th",
        "ı": "i",
    }
)


def fold(text: str) -> str:
    """Case-fold and strip accents: ``'Zoë Ångström'`` → ``'zoe angstrom'``."""
    if text.isascii():  # nothing to decompose or replace (the common case, cheaply)
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_SPECIAL_LETTERS))
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    return stripped.casefold().translate(_SPECIAL_LETTERS)


# --- look-alike names (Unicode confusables, UTS #39) -----------------------------------------


@functools.cache  # the Unicode consortium's table, read once: data, not state
def _homoglyphs() -> dict[str, frozenset[str]]:
    """Each character of Unicode's confusables table with the characters it can pass for."""
    # Imported here, where the table is read: its module also imports urllib.request (for
    # downloading a newer table, which nothing here does), a cost to every start otherwise.
    from confusable_homoglyphs import utils as confusable_utils

    table: dict[str, list[dict[str, str]]] = confusable_utils.load("confusables.json")
    return {char: frozenset(entry["c"] for entry in entries) for char, entries in table.items()}


def scripts_of(name: str) -> frozenset[str]:
    """The scripts (``LATIN``, ``CYRILLIC``, ``GREEK``…) of the letters of `name`."""
    found = set()
    for char in unicodedata.normalize("NFD", name):
        if unicodedata.combining(char) or not char.isalpha():
            continue
        script = unicodedata.name(char, "").split(" ", 1)[0]
        if script:
            found.add(script)
    return frozenset(found)


def is_mixed_script(name: str) -> bool:
    """Whether `name` mixes letters of several scripts (Latin ``A`` + Cyrillic ``нна``…)."""
    return len(scripts_of(name)) > 1


def looks_like(name: str, other: str) -> bool:
    """Whether `name` can pass for `other` on screen: letter by letter equal once case and
    accents are folded, or one of Unicode's confusables of the other (Cyrillic ``А`` for
    Latin ``A``, Greek ``ο`` for ``o``, ``I`` for ``l``)."""
    if fold(name) == fold(other):
        return True
    a, b = _without_accents(name), _without_accents(other)
    if len(a) != len(b):
        return False
    table = _homoglyphs()
    for x, y in zip(a, b, strict=True):
        # Some look-alikes are capitals only (Cyrillic Н, Latin H), some small letters only:
        # a name's letters are compared in every case (names ignore case anyway).
        xs, ys = {x, x.lower(), x.upper()}, {y, y.lower(), y.upper()}
        if xs & ys or any(table.get(c, frozenset()) & ys for c in xs):
            continue
        if any(table.get(c, frozenset()) & xs for c in ys):
            continue
        return False
    return True


def _without_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def letter_words(text: str) -> list[str]:
    """The words of ``text`` made of letters only, in order (at most ``MAX_TOKENS``)."""
    words: list[str] = []
    for match in _LETTERS.finditer(text):
        words.append(match.group(0))
        if len(words) >= MAX_TOKENS:
            break
    return words


def max_distance(length: int) -> int:
    """Edit distance tolerated for a word of ``length`` letters (0 below the fuzzy minimum)."""
    if length < MIN_FUZZY_LENGTH:
        return 0
    return 1 if length < 8 else 2


@dataclass(frozen=True)
class NameHit:
    """One name found in the text: the ``written`` word and the ``player`` it means.

    ``candidates`` holds more than one player when the word fits several (ambiguous);
    ``exact`` is false when the name was understood from a misspelling.
    """

    written: str
    player: str | None
    candidates: tuple[str, ...]
    exact: bool


class NameMatcher:
    """Finds the players of one game in free text; build once per game, reuse per mail."""

    def __init__(self, players: Iterable[str]) -> None:
        # Only the exact index is made here: a matcher is made for each batch of mails, and
        # most votes name their players exactly (a vote names one or two of fifty). The
        # indexes of the fuzzy and prefix look-ups (`_by_length`, `_sorted`) are made when a
        # word first needs them.
        exact: dict[str, str] = {}
        for player in players:
            key = fold(player)
            if key and key not in exact:
                exact[key] = player
        self._exact = exact
        self._folded: list[str] = list(exact)  # (a dict keeps the order of its keys)
        self._canonical: list[str] = list(exact.values())
        self._lengths: dict[int, list[int]] | None = None
        self._sorted_keys: list[str] | None = None

    @property
    def _by_length(self) -> dict[int, list[int]]:
        """The indexes of the folded names by their length (made at the first ask)."""
        if self._lengths is None:
            by_length: dict[int, list[int]] = {}
            for index, key in enumerate(self._folded):
                by_length.setdefault(len(key), []).append(index)
            self._lengths = by_length
        return self._lengths

    @property
    def _sorted(self) -> list[str]:
        """The folded names, sorted (made at the first ask)."""
        if self._sorted_keys is None:
            self._sorted_keys = sorted(self._folded)
        return self._sorted_keys

    @property
    def players(self) -> tuple[str, ...]:
        """The canonical player names, in the order given."""
        return tuple(self._canonical)

    def lookup(self, word: str) -> str | None:
        """The player whose folded name is exactly ``word`` folded, or ``None``."""
        return self._exact.get(fold(word))

    def find(
        self, words: Sequence[str], stop_words: AbstractSet[str] = frozenset()
    ) -> list[NameHit]:
        """Every word of ``words`` that names a player (exactly or by a unique misspelling),
        or that could name several players; in order, each word once per occurrence.

        ``stop_words`` (folded) are never misspelt names, and name a player whose name is one
        of them only when written with a capital (a game passes its lexicon's words; the parser
        knows none of its own)."""
        hits: list[NameHit] = []
        prefix_only: list[NameHit] = []  # ambiguous on weak evidence: a start, three letters
        fuzzy_cache: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        for word in words:
            key = fold(word)
            player = self._exact.get(key)
            if player is not None and key in stop_words and word[:1].islower():
                # "ik ben voor Bram": a player called Ben is named with a capital letter.
                continue
            if player is not None:
                hits.append(NameHit(word, player, (player,), True))
                continue
            if key in stop_words or len(key) < MIN_PREFIX_LENGTH:
                continue
            if key not in fuzzy_cache:
                fuzzy_cache[key] = (self._fuzzy(key), self._starting_with(key))
            fuzzy, starts = fuzzy_cache[key]
            candidates = tuple(sorted(set(fuzzy) | set(starts)))
            if len(candidates) >= 2:
                hit = NameHit(word, None, candidates, False)
                hits.append(hit)
                if not fuzzy or len(key) < MIN_FUZZY_LENGTH:
                    prefix_only.append(hit)
            elif fuzzy:
                hits.append(NameHit(word, fuzzy[0], fuzzy, False))
        if prefix_only and any(hit.player is not None for hit in hits):
            return [hit for hit in hits if hit not in prefix_only]
        return hits

    def _starting_with(self, key: str) -> tuple[str, ...]:
        """The players whose folded name starts with ``key`` and is longer."""
        found = []
        index = bisect.bisect_right(self._sorted, key)
        while index < len(self._sorted) and self._sorted[index].startswith(key):
            found.append(self._exact[self._sorted[index]])
            index += 1
        return tuple(found)

    def _one_letter_short(self, key: str) -> tuple[str, ...]:
        """The players of a four-letter name that ``key`` (three letters) is with one letter
        left out, sorted: those one edit away (a length apart, the edit is that letter)."""
        indexes = self._by_length.get(MIN_FUZZY_LENGTH, [])
        if not indexes:
            return ()
        choices = [self._folded[index] for index in indexes]
        found = extract(
            key, choices, scorer=OSA.distance, score_cutoff=1, limit=None, processor=None
        )
        return tuple(sorted(self._canonical[indexes[position]] for _, _, position in found))

    def _fuzzy(self, key: str) -> tuple[str, ...]:
        """The players whose name ``key`` may be a misspelling of (see the module docstring)."""
        limit = max_distance(len(key))
        if len(key) == MIN_FUZZY_LENGTH - 1:
            return self._one_letter_short(key)
        if limit == 0:
            return ()
        indexes = [
            index
            for length in range(len(key) - limit, len(key) + limit + 1)
            for index in self._by_length.get(length, ())
            if length >= MIN_FUZZY_LENGTH
        ]
        if not indexes:
            return ()
        choices = [self._folded[index] for index in indexes]
        found = extract(
            key, choices, scorer=OSA.distance, score_cutoff=limit, limit=None, processor=None
        )
        if not found:
            return ()
        # Every name within the tolerance counts (two fit: ambiguous, even at unequal
        # distances); a player's name must tolerate the distance too (4 letters allow 1).
        return tuple(
            sorted(
                self._canonical[indexes[position]]
                for choice, distance, position in found
                if distance <= max_distance(len(choice))
            )
        )
