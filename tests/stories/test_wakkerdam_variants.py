"""Every public Wakkerdam event has at least three tellings in each theme and language, and
a telling fits the time of day its mail is read (no dawn in a mail read in the night)."""

from __future__ import annotations

import random

import pytest

from stories import Event, FileStore, Game, Player, Renderer, StoryKey

PUBLIC = (
    "death",
    "marked",
    "jailed",
    "guilty",
    "mayor",
    "no_mayor",
    "fool_revealed",
    "lynch",
    "win",
)
PACKS = [(lang, theme) for lang in ("nl", "en") for theme in ("wakkerdam", "haven")]
DAWN_WORDS = {
    "nl": ("eerste licht", "zonsopgang", "krieken van de dag", "dageraad", "ochtendgloren"),
    "en": ("first light", "at dawn", "daybreak", "At dawn"),
}


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_every_public_event_has_three_tellings(lang: str, theme: str) -> None:
    store = FileStore()
    few = {
        event: len(store.variants(StoryKey("wakkerdam", lang, theme, event)))
        for event in PUBLIC
        if len(store.variants(StoryKey("wakkerdam", lang, theme, event))) < 3
    }
    assert few == {}


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_a_night_death_told_in_the_night_is_not_told_at_dawn(lang: str, theme: str) -> None:
    store = FileStore()
    renderer = Renderer(store)
    players = (Player("Anna", "vrouw"), Player("Bram", "man"))
    game = Game(name="WW5", language=lang, theme=theme, step="heks", phase="night", night=2, day=1)
    context = {"game": game, "players": players, "recipient": None}
    for cause in ("weerwolven", "witte_weerwolf", "vampiers", "gif"):
        event = Event.from_dict({"type": "death", "player": "Anna", "cause": cause}, "wakkerdam")
        for source in store.variants(StoryKey("wakkerdam", lang, theme, "death")):
            text = renderer.render_source_event(source, context, event, random.Random(0))
            for word in DAWN_WORDS[lang]:
                assert word not in text, (source.origin, cause, text)
