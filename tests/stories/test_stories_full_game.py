"""A full simulated game, told as a story in every shipped language and theme."""

from __future__ import annotations

from typing import Any

import pytest

from rules.scenario import run_scenario
from stories import Game, Player, StoryKey
from tests.support.shipped import SHIPPED_RENDERER

SCENARIO: dict[str, Any] = {
    "ruleset": "wakkerdam",
    "seed": 11,
    "mayor": True,
    "strictness": 3,
    "players": {
        "Anna": "weerwolf, vrouw",
        "Bram": "ziener, man",
        "Carla": "heks, vrouw",
        "Dirk": "jager, man",
        "Eva": "cupido, vrouw",
        "Frank": "onschuldige_meisje, vrouw",
        "Gert": "priester, man",
        "Hanna": "burger, vrouw",
    },
    "steps": [
        {"step": "cupido", "votes": {"Eva": ["Bram", "Carla"]}},
        {"step": "nacht", "votes": {"Anna": ["Dirk"], "Bram": ["Anna"], "Gert": ["Anna"]}},
    ],
}


@pytest.fixture(scope="module")
def transcript() -> tuple[dict[str, Any], ...]:
    lines = run_scenario(SCENARIO, until_end=True).lines
    assert lines[-1]["end"] is True
    return lines


def _players(line: dict[str, Any], dead: set[str]) -> tuple[Player, ...]:
    genders = {name: spec.split(", ")[1] for name, spec in SCENARIO["players"].items()}
    return tuple(Player(n, g, alive=n not in dead) for n, g in genders.items())


@pytest.mark.parametrize("language", ["nl", "en"])
@pytest.mark.parametrize("theme", ["wakkerdam", "haven"])
def test_every_event_of_a_full_game_is_told(
    transcript: tuple[dict[str, Any], ...], language: str, theme: str
) -> None:
    renderer = SHIPPED_RENDERER
    key = StoryKey("wakkerdam", language, theme, "night_result")
    dead: set[str] = set()
    told = 0
    for number, line in enumerate(transcript[:-1]):
        game = Game(
            name="WW7",
            language=language,
            theme=theme,
            step=line["step"],
            night=line["night"],
            day=line["day"],
        )
        players = _players(line, dead)
        for event in line["events"]:
            subject = event.get("player") or (event.get("players") or [None])[0]
            for recipient in (None, subject):
                context = {"game": game, "players": players, "recipient": recipient}
                text = renderer.render_event(key, context, event, f"{number}")
                assert text.strip(), (event, recipient)
                told += 1
        public = [{**event, "audience": "public"} for event in line["events"]]
        mail = renderer.render_story(
            key, {"game": game, "players": players, "recipient": None}, public, number
        )
        if public:
            assert mail is not None and mail.subject.startswith("WW7 — ")
        dead |= {e["player"] for e in line["events"] if e["type"] == "death"}
    end = transcript[-1]
    over = renderer.render_mail(
        key.with_event("game_over"),
        {
            "game": Game(name="WW7", language=language, theme=theme),
            "players": _players(end, dead),
            "winners": end["winners"],
            "teams": end["teams"],
            "roles": end["roles"],
            "alive": end["alive"],
            "mayor": end["mayor"],
        },
        1,
    )
    assert "Anna" in over.text and told > 10
