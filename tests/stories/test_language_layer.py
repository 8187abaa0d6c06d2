"""One language layer: each language's shared words live once (`stories/_lang/<lang>/`), a
pack adds to or overrides them, and no word of any language is written in `parsing/` or
`narrator/` (the story layer hands every word to the parser)."""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from parsing import GameInfo, MailContext, Vote, parse_mail, read_command
from parsing.lexicon import phrase_key
from rules.core.registry import get_ruleset, ruleset_ids
from stories.lexicon import help_words, language_lexicon, lexicon_for
from stories.words import (
    ADDED_LISTS,
    MERGED_TABLES,
    SHARED_VALUES,
    WordsError,
    language_path,
    languages_of,
    load_shared,
    load_words,
    read_words,
    spoken_languages,
    words_path,
)

ROOT = Path(__file__).resolve().parent.parent.parent


def _packs(language: str) -> dict[str, dict[str, Any]]:
    """ruleset -> its pack's words.toml in `language`, as written (not merged)."""
    return {
        ruleset: tomllib.loads(words_path(ruleset, language).read_text(encoding="utf-8"))
        for ruleset in ruleset_ids()
        if language in languages_of(ruleset)
    }


def _pack_languages() -> list[str]:
    return sorted({language for ruleset in ruleset_ids() for language in languages_of(ruleset)})


def _word_lists(words: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    """(name, words) of every word list a words.toml holds: blanco, help, stop_words and
    each gender's."""
    for key in ADDED_LISTS:
        yield key, list(words.get(key, []))
    for gender, written in words.get("genders", {}).items():
        yield f"genders.{gender}", list(written)


def _spoken(language: str) -> set[str]:
    """The words some ruleset of `language` reads as a keyword, a blank vote or a role id: a
    stop word among them is never shared (it would become a stop word of that ruleset), so
    the packs that have it keep it."""
    found: set[str] = set()
    for ruleset in ruleset_ids():
        if language in languages_of(ruleset):
            words = load_words(ruleset, language)
            found.update(w for ws in words.keywords.values() for w in ws)
            found.update(words.keywords, words.blanco, get_ruleset(ruleset).roles)
    return found


def _foreign(language: str) -> set[str]:
    """Every word of the other languages' shared lists (a pack may borrow them: the English
    packs of the Italian rulesets accept "aiuto", "nessuno")."""
    found: set[str] = set()
    for other in spoken_languages():
        if other != language:
            for _name, written in _word_lists(dict(load_shared(other))):
                found.update(written)
    return found


@pytest.mark.parametrize("language", _pack_languages())
def test_every_pack_language_has_shared_words(language: str) -> None:
    shared = load_shared(language)
    for key in (*SHARED_VALUES, *ADDED_LISTS, "genders", *MERGED_TABLES):
        assert key in shared, f"{language_path(language)}: no {key}"


@pytest.mark.parametrize("language", _pack_languages())
def test_no_shared_stop_word_is_a_keyword_or_blank_word(language: str) -> None:
    """A shared stop word is one in every ruleset of the language: none of them may read it as
    a keyword or a blank vote (the packs keep such words of their own)."""
    shared = {phrase_key(word) for word in load_shared(language)["stop_words"]}
    for ruleset in ruleset_ids():
        if language in languages_of(ruleset):
            words = load_words(ruleset, language)
            spoken = {w for ws in words.keywords.values() for w in ws} | set(words.blanco)
            assert not {phrase_key(word) for word in spoken} & shared, ruleset


@pytest.mark.parametrize("language", _pack_languages())
def test_each_languages_shared_words_exist_once(language: str) -> None:
    """No pack restates a shared value or word, and no two packs of one language repeat a value
    or a word that the language does not share (it belongs in stories/_lang/)."""
    shared = dict(load_shared(language))
    packs = _packs(language)
    problems: list[str] = []
    for ruleset, words in packs.items():
        for key in SHARED_VALUES:
            if key in words and words[key] == shared.get(key):
                problems.append(f"{ruleset}: {key} restates the language's")
        for table in MERGED_TABLES:
            for entry, value in words.get(table, {}).items():
                if shared.get(table, {}).get(entry) == value:
                    problems.append(f"{ruleset}: [{table}] {entry} restates the language's")
        have = dict(_word_lists(shared))
        for name, written in _word_lists(words):
            lead = written[:1] if name in ("blanco", "help") else []  # leads the mails' word
            again = [w for w in written if w in have.get(name, []) and w not in lead]
            if again:
                problems.append(f"{ruleset}: {name} repeats the language's {again}")
    foreign = _foreign(language) | _spoken(language)
    for (first, one), (second, other) in combinations(packs.items(), 2):
        for key in SHARED_VALUES:
            if key in one and one[key] == other.get(key):
                problems.append(f"{first} and {second}: the same {key}")
        for table in MERGED_TABLES:
            for entry, value in one.get(table, {}).items():
                if other.get(table, {}).get(entry) == value:
                    problems.append(f"{first} and {second}: the same [{table}] {entry}")
        others = dict(_word_lists(other))
        for name, written in _word_lists(one):
            both = sorted(set(written) & set(others.get(name, [])) - foreign)
            if both:
                problems.append(f"{first} and {second}: both add {name} {both}")
    assert problems == [], "\n".join(problems)


def test_the_parser_reads_italian_alike_in_every_italian_ruleset() -> None:
    """A word one Italian pack had as an ordinary word ("credi", once only in Lupus) is one in
    every Italian game: "credi" is no misspelt Fredi in a Vampiri game either."""
    shared = language_lexicon("it").stop_words
    assert "credi" in shared
    for ruleset in ("lupus", "vampiri", "example"):
        assert shared <= lexicon_for(ruleset, "it").stop_words, ruleset
    mail = parse_mail(
        b"From: p@example.org\r\nTo: n@example.org\r\nSubject: VA1\r\n\r\ncredi che sia Anna?\r\n"
    )
    game = GameInfo("VA1", players=("Anna", "Fredi"))
    context = MailContext(lexicon=lexicon_for("vampiri", "it"))
    assert read_command(mail, game, context) == Vote("VA1", ("Anna",), False, (), ())


def test_help_words_are_every_spoken_languages() -> None:
    expected = {
        phrase_key(word)
        for language in spoken_languages()
        for word in load_shared(language).get("help", [])
    }
    assert help_words() == frozenset(expected)
    assert {"help", "hulp", "aiuto", "помощь"} <= help_words()


def test_a_pack_adds_leads_takes_out_and_overrides(tmp_path: Path) -> None:
    shipped = words_path("wakkerdam", "nl").read_text(encoding="utf-8")
    path = tmp_path / "words.toml"
    path.write_text(
        shipped.replace(
            "\n[keywords]\n", '\nblanco = ["leeg", "niemand"]\n\n[keywords]\n', 1
        ).replace("\n[errors]\n", '\n[errors]\n"no-name" = "Geen naam."\n', 1)
        + '\n[without]\nstop_words = ["aan"]\n',
        encoding="utf-8",
    )
    shared = {**load_shared("nl"), "blanco": ["blanco", "niemand"]}
    words = read_words(path, "wakkerdam", "nl", shared)
    assert words.blanco == ("blanco", "niemand", "leeg")  # the language's first, then the pack's
    assert words.errors["no-name"] == "Geen naam."  # overridden
    assert words.errors["no-game"] == load_shared("nl")["errors"]["no-game"]  # shared
    assert "aan" not in words.stop_words and "achter" in words.stop_words  # taken out
    assert {"the", "und"} <= set(words.stop_words)  # stop_words_from = ["en", "de"]
    lead = tmp_path / "lead.toml"
    lead.write_text(path.read_text().replace('["leeg", "niemand"]', '["niemand", "leeg"]'))
    assert read_words(lead, "wakkerdam", "nl", shared).blanco == ("niemand", "blanco", "leeg")
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace('stop_words = ["aan"]', 'stop_words = ["xyz"]'))
    with pytest.raises(WordsError, match=r"\[without\] stop_words"):
        read_words(bad, "wakkerdam", "nl", shared)


def test_shared_words_hold_no_ruleset_words(tmp_path: Path) -> None:
    from stories.words import read_shared

    path = tmp_path / "words.toml"
    path.write_text('stop_words = ["de"]\n[roles.ziener]\nname = "Ziener"\n', encoding="utf-8")
    with pytest.raises(WordsError, match="roles: a ruleset's words"):
        read_shared(path)


def test_every_pack_over_its_language_loads() -> None:
    for ruleset in ruleset_ids():
        for language in languages_of(ruleset):
            words = load_words(ruleset, language)
            assert words.stop_words and words.errors and words.numbers, (ruleset, language)


# --------------------------------------------------------------------------- no words in code

#: Where no word of any language may be written: the parser and the daemon.
#: What mail programs write around a reply ("От: … Отправлено: …", "Il giorno … ha scritto:")
#: is the programs' format, read before any game (and so any language) is known: a table of
#: formats per program in parsing/clients.py, not words of a game's language (a ruling).
MAIL_PROGRAM_FORMATS = ROOT / "parsing" / "clients.py"
CODE = tuple(
    path
    for path in (
        *sorted((ROOT / "parsing").rglob("*.py")),
        *sorted((ROOT / "narrator").rglob("*.py")),
    )
    if path != MAIL_PROGRAM_FORMATS
)


def _identifiers() -> frozenset[str]:
    """Every name the code itself uses (variables, attributes, arguments, functions, classes):
    a field called ``game`` or ``blanco`` is the code's word, not a language's."""
    found: set[str] = set()
    for path in (*CODE, *sorted((ROOT / "rules").rglob("*.py"))):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif isinstance(node, ast.arg | ast.keyword) and node.arg:
                found.add(node.arg)
            elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
                found.add(node.name)
    return frozenset(name.lower() for name in found)


def _shared_words() -> frozenset[str]:
    """Every word of every language's shared lists (stop, blank, Help, gender, number words),
    folded, but single letters and the code's own identifiers."""
    found: set[str] = set()
    for language in spoken_languages():
        shared = dict(load_shared(language))
        for _name, written in _word_lists(shared):
            found.update(phrase_key(word) for word in written)
        found.update(phrase_key(word) for word in shared.get("numbers", []))
    return frozenset(word for word in found if len(word) > 1) - _identifiers()


def _word_lists_in(path: Path, words: frozenset[str]) -> list[str]:
    """The collections of string literals in `path` (a list, tuple, set, dict's keys, or a
    string that is split) holding three or more words of some language."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            texts = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        elif isinstance(node, ast.Dict):
            texts = [k.value for k in node.keys if isinstance(k, ast.Constant)]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "split"
            and isinstance(node.func.value, ast.Constant)
        ):
            texts = str(node.func.value.value).split()
        hits = sorted({phrase_key(t) for t in texts if isinstance(t, str)} & words)
        if len(hits) >= 3:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found.append(f"{where}:{getattr(node, 'lineno', '?')}: {hits}")
    return found


def test_no_word_list_in_parsing_or_narrator() -> None:
    words = _shared_words()
    assert {"de", "the", "il", "не", "hulp", "aiuto"} <= words  # the check sees every language
    offenders = [hit for path in CODE for hit in _word_lists_in(path, words)]
    assert offenders == [], (
        "word lists of a language in code (they belong in stories/_lang/):\n"
        + ("\n".join(offenders))
    )


def test_the_check_finds_a_word_list(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    code = 'HELP = frozenset({"hulp", "aiuto", "помощь"})\nSTOP = "de het een".split()\n'
    path.write_text(code, encoding="utf-8")
    assert len(_word_lists_in(path, _shared_words())) == 2


# --------------------------------------------------------------------------- package data


def test_package_data_ships_every_words_file() -> None:
    """A fresh install ships every language's and pack's words.toml (pyproject package-data)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["stories"]
    stories = ROOT / "stories"
    files = sorted(stories.rglob("*.toml"))
    assert any("_lang" in f.parts for f in files)
    missing = []
    for file in files:
        parts = file.relative_to(stories).parts
        if not any(
            len(parts) == len(pattern.split("/"))
            and all(
                fnmatch.fnmatchcase(p, q) for p, q in zip(parts, pattern.split("/"), strict=True)
            )
            for pattern in patterns
        ):
            missing.append(str(file.relative_to(ROOT)))
    assert missing == [], f"not in pyproject's package-data: {missing}"


def _matches(parts: tuple[str, ...], pattern: list[str]) -> bool:
    """Whether a path's parts match a package-data glob, part for part (as setuptools globs)."""
    return len(parts) == len(pattern) and all(
        fnmatch.fnmatchcase(part, glob) for part, glob in zip(parts, pattern, strict=True)
    )
