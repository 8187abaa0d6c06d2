"""The shipped packs: `stories check` passes, and every event and mail has stories in nl and en."""

from __future__ import annotations

import pytest

from stories import CheckReport, FileStore, Renderer, StoryKey, check_store
from stories.keys import events_of, keys_of
from stories.words import languages_of

LANGUAGES = languages_of("wakkerdam")
WAKKERDAM_KEYS = keys_of("wakkerdam")

THEMES = ("wakkerdam", "haven")


@pytest.fixture(scope="module")
def store() -> FileStore:
    return FileStore()


def test_stories_check_passes_on_the_shipped_packs(shipped_check: CheckReport) -> None:
    """Each ruleset in the languages it has a words.toml for (example: Italian only)."""
    report = shipped_check
    assert report.problems == []
    assert report.templates >= 2 * len(WAKKERDAM_KEYS) * len(THEMES)
    assert report.renders > 5000


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("theme", THEMES)
def test_every_event_and_mail_has_a_story(store: FileStore, language: str, theme: str) -> None:
    """In the theme itself, or in the language's shared `_base` (error.j2 is written once)."""
    renderer = Renderer(store)
    missing = [
        event
        for event in WAKKERDAM_KEYS
        if not store.variants(StoryKey("wakkerdam", language, theme, event))
        and not store.variants(StoryKey("wakkerdam", language, "_base", event))
    ]
    assert missing == []
    assert renderer.variants(StoryKey("wakkerdam", language, theme, "error"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_event_has_two_variants_in_the_main_theme(store: FileStore, language: str) -> None:
    few = [
        event
        for event in events_of("wakkerdam")
        if len(store.variants(StoryKey("wakkerdam", language, "wakkerdam", event))) < 2
    ]
    assert few == []


def test_check_reports_a_missing_event(store: FileStore) -> None:
    from stories import MemoryStore

    wakkerdam = (s for s in store.all() if s.key.ruleset == "wakkerdam")
    partial = MemoryStore(s for s in wakkerdam if s.key.event != "death")
    report = check_store(partial, LANGUAGES)
    assert "wakkerdam/nl/wakkerdam/death: no template (every event needs one)" in report.problems
    assert "wakkerdam/en/wakkerdam/death: no template (every event needs one)" in report.problems
