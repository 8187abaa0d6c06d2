"""words.toml: the words of a ruleset per language, checked on load; Babel's language rules."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import tomllib
from pathlib import Path

import pytest

from rules.core.registry import get_ruleset
from stories import StoryKey, vocab
from stories.context import Player
from stories.helpers import Helpers
from stories.words import (
    WordsError,
    languages_of,
    load_shared,
    load_words,
    read_words,
    words_path,
)

RULESET = get_ruleset("wakkerdam")


@pytest.mark.parametrize("language", ["nl", "en"])
def test_every_id_of_the_ruleset_has_its_words(language: str) -> None:
    words = load_words("wakkerdam", language)
    assert set(RULESET.roles) <= set(words.roles)
    assert set(RULESET.teams) <= set(words.teams)
    assert set(RULESET.causes) <= set(words.causes)
    assert set(RULESET.steps) <= set(words.steps)
    assert set(RULESET.keywords) == set(words.keywords)
    assert set(words.genders) == {"man", "vrouw"}


def test_the_shipped_languages() -> None:
    assert languages_of("wakkerdam") == ("en", "nl")


def test_english_accepts_every_word_its_mails_ask_for() -> None:
    words = load_words("wakkerdam", "en")
    assert words.keyword_of() == {
        "witte": "witte",
        "white": "witte",
        "burgemeester": "burgemeester",
        "mayor": "burgemeester",
    }
    assert {"blank", "blanco", "abstain"} <= set(words.blanco)
    assert "vrouw" in words.genders["vrouw"] and "man" in words.genders["man"]
    assert load_words("wakkerdam", "nl").blanco == ("blanco",)


def test_error_text_fills_and_drops_its_parameters() -> None:
    nl = load_words("wakkerdam", "nl")
    assert nl.error_text("no-game", {"games": ("WW5", "WW6")}).endswith("Spellen: WW5, WW6.")
    assert "Spellen" not in nl.error_text("no-game")
    assert nl.error_text("no-game", {"games": ()}) == nl.error_text("no-game")
    assert nl.error_text("target-dead") == "Die speler is al dood."
    assert nl.error_text("brand-new") == "Er ging iets mis (brand-new)."
    en = load_words("wakkerdam", "en")
    text = en.error_text("too-many-names", {"names": ["Anna", "Bram"], "expected": 1})
    assert text.startswith("Your mail names too many players (Anna, Bram); I expect 1.")


@pytest.mark.parametrize("language", ["nl", "en"])
def test_names_may_have_accents_in_the_error_wording(language: str) -> None:
    """parsing/names.py folds accents when matching: names may have them."""
    text = load_words("wakkerdam", language).error_text("bad-name", {"written": "X1"})
    assert "zonder accenten" not in text and "without accents" not in text
    assert "accenten mogen" in text or "accents are fine" in text


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "words.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_broken_file_is_named_with_its_key(tmp_path: Path) -> None:
    shipped = words_path("wakkerdam", "nl").read_text(encoding="utf-8")
    path = _write(tmp_path, shipped.replace('plural = "Zieners"\n', ""))
    with pytest.raises(WordsError, match=r"words\.toml: \[roles\.ziener\] plural: must be"):
        read_words(path, "wakkerdam", "nl")
    path = _write(tmp_path, shipped.replace("gif = ", "poison = "))
    with pytest.raises(WordsError, match=r"\[causes\]: no words for gif"):
        read_words(path, "wakkerdam", "nl")
    path = _write(tmp_path, 'locale = "xx_nowhere"\n' + shipped)  # overrides the language's
    with pytest.raises(WordsError, match="locale: 'xx_nowhere' is not a Babel"):
        read_words(path, "wakkerdam", "nl")
    with pytest.raises(WordsError, match="no words for ruleset 'wakkerdam' in 'xx'"):
        load_words("wakkerdam", "xx")


def test_cldr_plurals_include_russian_three_forms() -> None:
    forms = ("голос", "голоса", "голосов")
    assert [vocab.plural(n, "ru", forms) for n in (1, 2, 5, 11, 21, 22, 1.5)] == [
        "голос",
        "голоса",
        "голосов",
        "голосов",
        "голос",
        "голоса",
        "голосов",  # fractions are CLDR's `other`: the last form given
    ]
    assert [vocab.plural(n, "nl", ("stem", "stemmen")) for n in (0, 1, 1.0, 1.5, 2)] == [
        "stemmen",
        "stem",
        "stem",
        "stemmen",
        "stemmen",
    ]


def test_numbers_dates_and_durations_follow_the_locale() -> None:
    assert vocab.number(1.5, "nl") == "1,5" and vocab.number(1.5, "en_GB") == "1.5"
    assert vocab.number(1000, "nl") == "1000"
    moment = dt.datetime(2026, 11, 18, 9, 0, tzinfo=dt.UTC)
    assert vocab.when(moment, "EEEE d MMMM 'om' HH:mm", "nl") == "woensdag 18 november om 09:00"
    assert vocab.when(moment, "EEEE d MMMM", "ru") == "среда 18 ноября"
    assert vocab.duration_unit(5, "duration-day", "ru") == "5 дней"
    assert vocab.duration_unit(2, "duration-day", "nl", "twee") == "twee dagen"
    assert vocab.join(["Anna", "Bram", "Cas"], "it") == "Anna, Bram e Cas"
    # The d eufonica before an e: "ed Ezio", but "Ezio e Dina" and the other languages as CLDR.
    assert vocab.join(["Lea", "Dina", "Ezio"], "it") == "Lea, Dina ed Ezio"
    assert vocab.join(["Dina", "Elena"], "it") == "Dina ed Elena"
    assert vocab.join(["Ezio", "Dina"], "it") == "Ezio e Dina"
    assert vocab.join(["Anna", "Eva"], "nl") == "Anna en Eva"


def test_the_helpers_use_the_words_and_babel() -> None:
    players = (Player("Anna", "vrouw"), Player("Bram", "man"))
    nl = Helpers(load_words("wakkerdam", "nl"), players, random.Random(1))
    en = Helpers(load_words("wakkerdam", "en"), players, random.Random(1))
    assert nl.when("2026-11-18T09:00:00+00:00") == "woensdag 18 november om 09:00"
    assert en.when(dt.datetime(2026, 11, 18, 9, 0, tzinfo=dt.UTC)) == (
        "Wednesday 18 November at 09:00"
    )
    assert nl.cause_name("gif") == "door het gif van de Heks"
    assert en.step_name("brandstapel") == "the Stake"
    assert en.error_text("target-dead") == "That player is already dead."
    assert en.duration("2d") == "two days" and nl.duration("1h") == "één uur"
    assert en.role_team("welp") == "weerwolven"
    assert "hij" not in en.as_dict() and "he" in en.as_dict()


def test_every_shipped_pack_words_the_game_pages_in_its_language_s_words() -> None:
    from rules.core.registry import ruleset_ids

    for ruleset in ruleset_ids():
        for language in languages_of(ruleset):
            web = load_words(ruleset, language).web
            assert "{address}" in web.sign_up and "{game}" in web.sign_up
            # One source per language: stories/_lang/<lang>/words.toml, no pack repeats it.
            assert dict(load_shared(language)["web"]) == {
                field.name: getattr(web, field.name) for field in dataclasses.fields(web)
            }, (ruleset, language)
            pack = tomllib.loads(words_path(ruleset, language).read_text(encoding="utf-8"))
            assert "web" not in pack, (ruleset, language)


def _without_label(label: str, **extra: str) -> dict[str, object]:
    """The Dutch shared words without the page label `label` (and with `extra` labels)."""
    shared = dict(load_shared("nl"))
    labels = {key: value for key, value in shared["web"].items() if key != label}
    shared["web"] = {**labels, **extra}
    return shared


@pytest.mark.parametrize(
    ("label", "extra", "problem"),
    [
        ("open", {}, "[web] open: must be a non-empty string"),
        ("", {"bogus": "x"}, "[web]: unknown key(s) bogus"),
        ("sign_up", {"sign_up": "Mail ons"}, "[web] sign_up: must contain {address}"),
    ],
)
def test_a_language_without_every_page_label_is_refused(
    label: str, extra: dict[str, str], problem: str
) -> None:
    shared = _without_label(label, **extra)
    with pytest.raises(WordsError) as error:
        read_words(words_path("wakkerdam", "nl"), "wakkerdam", "nl", shared)
    assert problem in str(error.value)


def test_a_pack_may_word_a_page_label_its_own_way(tmp_path: Path) -> None:
    source = words_path("wakkerdam", "nl").read_text(encoding="utf-8")
    path = tmp_path / "words.toml"
    path.write_text(f'{source}\n[web]\nback = "Terug naar het dorp"\n', encoding="utf-8")
    web = read_words(path, "wakkerdam", "nl").web
    shared = load_words("wakkerdam", "nl").web
    assert web.back == "Terug naar het dorp"
    assert web.games == shared.games and web.sign_up == shared.sign_up  # the rest: shared
    path.write_text(f'{source}\n[web]\nsign_up = "Mail ons"\n', encoding="utf-8")
    with pytest.raises(WordsError, match=r"\[web\] sign_up: must contain \{address\}"):
        read_words(path, "wakkerdam", "nl")


def test_stories_check_names_a_language_without_a_page_label(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stories import FileStore, check_store
    from stories import words as words_module
    from stories.store import MemoryStore

    shipped = FileStore()
    role_mail = [
        s for s in shipped.all() if s.key == StoryKey("wakkerdam", "nl", "wakkerdam", "role")
    ]
    shared = _without_label("back")
    others = words_module.load_shared
    monkeypatch.setattr(
        words_module,
        "load_shared",
        lambda language: shared if language == "nl" else others(language),
    )
    load_words.cache_clear()
    try:
        report = check_store(MemoryStore(role_mail), languages=("nl",))
    finally:
        monkeypatch.undo()
        load_words.cache_clear()
    assert not report.ok
    assert any("[web] back: must be a non-empty string" in p for p in report.problems)
