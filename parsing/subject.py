"""Subjects: reply/forward prefixes removed, the game named, the ``Help`` subject recognised."""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from parsing.names import fold

# Re/Fwd in the languages players' clients use: English, Dutch (Antw, Doorst), German (AW, WG),
# French (TR, RE), Italian (R, I, RIF), Scandinavian (SV, VS), Spanish (RV, RES), and others.
_PREFIX = re.compile(
    r"""^\s*(?:
        (?:re|r|aw|wg|fw|fwd|fwrd|antw|antwoord|doorst|tr|trans|sv|vs|vb|vl|i|rif|enc|res|rv
           |odp|pd|ynt|ilt|ref|tr|atb|vá|tl|ant)
        \s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\^\d{1,4})?\s*[:：]
      | \[(?:re|fwd?|aw|wg)\s*[:：]\s*(?P<inner>[^\]]*)\]\s*$
      | \*\*\s*(?:spam|junk)\s*\*\*
    )\s*""",
    re.IGNORECASE | re.VERBOSE,
)
_BRACKETED = re.compile(r"^\s*\[([^\[\]]+)\]\s*$")
_WORD = re.compile(r"[^\W_]+")


def strip_subject_prefixes(subject: str) -> str:
    """Remove reply/forward prefixes, repeated and bracketed (``Re: AW: [Fwd: WW5]`` → ``WW5``)."""
    subject = " ".join(subject.split())[:1000]
    for _ in range(20):
        match = _PREFIX.match(subject)
        if match is None or match.end() == 0:
            break
        inner = match.group("inner")
        subject = inner.strip() if inner is not None else subject[match.end() :]
    bracketed = _BRACKETED.match(subject)
    if bracketed:
        subject = bracketed.group(1).strip()
    return subject.strip()


def is_help_subject(subject: str, help_words: AbstractSet[str]) -> bool:
    """True when the (prefix-stripped) subject asks for help: its first word is one of
    ``help_words`` (folded: the Help words of the languages the narrator speaks, which the
    caller passes; the parser knows none)."""
    words = _WORD.findall(fold(subject))
    return bool(words) and words[0] in help_words


def find_game(subject: str, game_names: Iterable[str]) -> str | None:
    """The game the subject names, case- and accent-insensitively, or ``None``.

    The subject may be exactly the game name, or contain it as whole words (``WW5 - Nacht 2``,
    ``Stem WW5``); when several games fit, the longest name wins, then the leftmost.
    """
    # Both are their folded words joined by one space: the name is in the subject as whole
    # words where it is found between spaces (or an end), the subject padded with one each.
    padded_subject = f" {' '.join(_WORD.findall(fold(subject)))} "
    best: tuple[int, int, str] | None = None
    for name in game_names:
        folded_name = fold(name)
        if not folded_name.isalnum():
            # (A name of one word, "WW5", is that word: `_WORD` takes runs of the characters
            # isalnum() takes; no need to look for them.)
            folded_name = " ".join(_WORD.findall(folded_name))
        if not folded_name:
            continue
        start = padded_subject.find(f" {folded_name} ")
        if start < 0:
            continue
        key = (-len(folded_name), start, name)
        if best is None or key < best:
            best = key
    return best[2] if best else None


def subject_words(subject: str) -> list[str]:
    """The folded words of the subject (for the keywords a vote may carry there)."""
    return _WORD.findall(fold(subject))
