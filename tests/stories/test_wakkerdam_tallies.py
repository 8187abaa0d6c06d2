"""The village's tallies are told in every Wakkerdam pack: who voted for whom for Mayor, and
why the stake took whom it took (the Raven's marks, a tie broken by the Mayor, the Zondebok)."""

from __future__ import annotations

from typing import Any

import pytest

from stories import Game, Player, StoryKey
from tests.support.shipped import SHIPPED_RENDERER

PLAYERS = tuple(
    Player(name, gender)
    for name, gender in (("Anna", "vrouw"), ("Bram", "man"), ("Carla", "vrouw"), ("Frank", "man"))
)
PACKS = [(lang, theme) for lang in ("nl", "en") for theme in ("wakkerdam", "haven")]
WORDS = {
    "nl": {"raven": "Raaf", "tie": "gelijk", "goat": "Zondebok", "mayor": "Burgemeester"},
    "en": {"raven": "Raven", "tie": "tied", "goat": "Scapegoat", "mayor": "Mayor"},
}


def _told(lang: str, theme: str, event: dict[str, Any], step: str) -> list[str]:
    renderer = SHIPPED_RENDERER
    game = Game(name="WW5", language=lang, theme=theme, step=step, night=1, day=1)
    key = StoryKey("wakkerdam", lang, theme, event["type"])
    context = {"game": game, "players": PLAYERS, "recipient": None}
    # a dozen seeds draw every variant of these packs
    return [
        renderer.render_event(key, context, {**event, "audience": "public"}, f"seed{n}")
        for n in range(12)
    ]


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_the_mayor_election_lists_every_voter(lang: str, theme: str) -> None:
    event = {
        "type": "mayor",
        "player": "Anna",
        "via": "election",
        "votes": {"Bram": ["Anna"], "Carla": ["Anna"], "Anna": ["Frank"], "Frank": []},
    }
    for text in _told(lang, theme, event, "burgemeesterverkiezing"):
        assert "Bram" in text and "Carla" in text and "Frank" in text, text
        assert "Bram en Carla" in text or "Bram and Carla" in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_a_failed_election_lists_the_tie(lang: str, theme: str) -> None:
    event = {"type": "no_mayor", "votes": {"Bram": ["Anna"], "Anna": ["Bram"]}}
    for text in _told(lang, theme, event, "burgemeesterverkiezing"):
        assert "Anna" in text and "Bram" in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_the_lynch_explains_the_raven_the_mayor_and_the_zondebok(lang: str, theme: str) -> None:
    words = WORDS[lang]
    marked = {
        "type": "lynch",
        "player": "Carla",
        "totals": {"Carla": 3, "Anna": 1},
        "votes": {"Anna": ["Carla"], "Bram": ["Anna"]},
        "marked": ["Carla"],
        "mayor": None,
    }
    for text in _told(lang, theme, marked, "brandstapel"):
        assert words["raven"] in text, text
    mayor = {
        "type": "lynch",
        "player": "Anna",
        "totals": {"Anna": 1.5, "Carla": 1.5},
        "votes": {"Bram": ["Anna"], "Frank": ["Carla"], "Carla": ["Carla"]},
        "marked": [],
        "mayor": "Bram",
    }
    for text in _told(lang, theme, mayor, "brandstapel"):
        assert words["tie"] in text and words["mayor"] in text, text
    goat = {
        "type": "lynch",
        "player": "Frank",
        "totals": {},
        "votes": {"Anna": [], "Bram": []},
        "marked": [],
        "mayor": None,
    }
    for text in _told(lang, theme, goat, "brandstapel"):
        assert words["goat"] in text and "Frank" in text, text


def _private(lang: str, theme: str, event: dict[str, Any]) -> list[str]:
    renderer = SHIPPED_RENDERER
    game = Game(name="WW5", language=lang, theme=theme, step="nacht", night=2, day=1)
    key = StoryKey("wakkerdam", lang, theme, event["type"])
    context = {"game": game, "players": PLAYERS, "recipient": event["player"]}
    data = {**event, "audience": event["player"]}
    return [renderer.render_event(key, context, data, f"seed{n}") for n in range(12)]


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_a_promoted_welp_is_told_his_pack(lang: str, theme: str) -> None:
    event = {
        "type": "role_change",
        "player": "Bram",
        "role": "weerwolf",
        "previous": "welp",
        "mates": ["Anna", "Carla"],
    }
    for text in _private(lang, theme, event):
        assert "Anna" in text and "Carla" in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_the_elder_is_told_her_extra_life_is_spent(lang: str, theme: str) -> None:
    spent = {"type": "saved", "player": "Anna", "extra_life": True}
    for text in _private(lang, theme, spent):
        assert ("extra leven" if lang == "nl" else "extra life") in text, text
    plain = {"type": "saved", "player": "Anna", "extra_life": False}
    for text in _private(lang, theme, plain):
        assert "extra" not in text, text
