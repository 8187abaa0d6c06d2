"""The game a subject names: the name's folded words as whole words of the subject's.

``find_game`` compares the folded words joined by spaces (no pattern compiled per name and
mail); these tests hold it to the whole-word pattern search it replaced, on any text.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from parsing import find_game, fold

_WORD = re.compile(r"[^\W_]+")


def _by_pattern(subject: str, game_names: list[str]) -> str | None:
    """The game found by a whole-word pattern per name (the longest, then the leftmost)."""
    folded_subject = " ".join(_WORD.findall(fold(subject)))
    best: tuple[int, int, str] | None = None
    for name in game_names:
        folded_name = " ".join(_WORD.findall(fold(name)))
        if not folded_name:
            continue
        pattern = re.compile(rf"(?<![^\W_]){re.escape(folded_name)}(?![^\W_])")
        match = pattern.search(folded_subject)
        if match is not None:
            key = (-len(folded_name), match.start(), name)
            if best is None or key < best:
                best = key
    return best[2] if best else None


_PIECES = [*"ab Ab_-.:5 9éÉßœ\u0301\tİıЖж٣", "ww", "WW5", "  "]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


@settings(max_examples=600, deadline=None)
@given(_TEXT, st.lists(_TEXT, max_size=6))
def test_any_subject_and_names_as_the_whole_word_pattern(subject: str, names: list[str]) -> None:
    assert find_game(subject, names) == _by_pattern(subject, names)


def test_the_longest_name_then_the_leftmost() -> None:
    names = ["WW", "WW 5", "Zomer", "zomer ww", "ab 9"]
    assert find_game("Re: WW 5 zomer ww", names) == "zomer ww"  # the longest
    assert find_game("Re: WW 5 en ab 9", names) == "WW 5"  # as long as "ab 9": the leftmost
    assert find_game("ab 9, WW 5", names) == "ab 9"
    assert find_game("Zomer-WW_5", names) == "zomer ww"  # "_" and "-" part words
    assert find_game("WW5", names) is None
    assert find_game("Stem: Ẃẃ!", ["ww"]) == "ww"  # accents folded away
    assert find_game("", ["", "-"]) is None  # a name of no words names nothing


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(
        st.text(min_size=1, max_size=8),
        st.text(st.characters(categories=["L", "N", "M"]), min_size=1, max_size=8),
    )
)
def test_a_name_isalnum_takes_is_one_word(text: str) -> None:
    """``find_game`` takes a name of characters ``isalnum()`` takes for its one word: the
    pattern's words are runs of those very characters (any Unicode)."""
    if text.isalnum():
        assert _WORD.findall(text) == [text]
    assert find_game(text, [text, fold(text)]) == _by_pattern(text, [text, fold(text)])
