"""The running roster of the narrator's mails: the dead's roles when the game reveals them, no
living player's role and no reader's own secret, in the text and the HTML of every reader."""

from __future__ import annotations

from dataclasses import replace

import pytest

from narrator.models import Game, Player
from narrator.service import story_context
from rules import get_ruleset
from rules.core import Seat, Settings
from stories import StoryKey
from tests.support.shipped import SHIPPED_RENDERER

RULES = get_ruleset("wakkerdam")
NAMES = ["Anna", "Bram", "Carla", "Dirk", "Eva", "Frank"]
ROLES = ["weerwolf", "dwaas", "ziener", "heks", "burger", "jager"]
SHOWN = {"weerwolf": "Weerwolf", "ziener": "Ziener", "heks": "Heks", "burger": "Burger"}


def _game(*, reveal_roles: bool) -> Game:
    return Game(
        name="G1",
        ruleset="wakkerdam",
        language="nl",
        theme="wakkerdam",
        speed=86400,
        strictness=2,
        reveal_roles=reveal_roles,
        step="nacht",
        timezone="Europe/Amsterdam",
    )


def _players() -> list[Player]:
    return [
        Player(seat=n + 1, email=f"{name.lower()}@example.org", name=name, gender="man")
        for n, name in enumerate(NAMES)
    ]


def _state(dead: tuple[str, ...]):  # type: ignore[no-untyped-def]
    seats = [Seat(name, role, "man") for name, role in zip(NAMES, ROLES, strict=True)]
    state = RULES.new_game(seats, Settings(seed=1, reveal_roles=True))
    players = tuple(replace(p, alive=p.name not in dead) for p in state.players)
    return replace(state, players=players)


def _roster(text: str) -> str:
    return text.partition("\n-- \n")[2]


@pytest.mark.parametrize("reveal_roles", [True, False])
def test_every_reader_gets_the_villages_roster(reveal_roles: bool) -> None:
    game, players = _game(reveal_roles=reveal_roles), _players()
    state = _state(dead=("Dirk", "Eva"))
    cast = story_context.story_cast(game, players, state)
    renderer = SHIPPED_RENDERER
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    dead = "Dirk (Heks) en Eva (Burger)" if reveal_roles else "Dirk en Eva"
    for name in NAMES:  # the dead Dirk too: his own role is his, not the village's
        context = story_context.mail_context(game, cast, state, name)
        context.update({"stories": ["Het verhaal."], "events": []})
        mail = renderer.render_mail(key, context, "seed")
        roster = _roster(mail.text)
        assert roster == f"Nog in leven (4): Anna, Bram, Carla en Frank\nDood (2): {dead}\n"
        assert f"<strong>Dood (2):</strong> {dead}</p>" in mail.html
        for living in ("Anna", "Bram", "Carla", "Frank"):
            assert f"{living} (" not in roster and f"{living} (" not in mail.html, name


def test_a_step_mail_shows_the_deadline_in_the_games_zone() -> None:
    from datetime import UTC, datetime

    game, players = _game(reveal_roles=True), _players()
    game.deadline = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)
    state = _state(dead=())
    cast = story_context.story_cast(game, players, state)
    context = story_context.mail_context(game, cast, state, "Carla")
    context.update({"player": "Carla", "actions": story_context.actions_of(RULES, state, "Carla")})
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "step")
    mail = SHIPPED_RENDERER.render_mail(key, context, "seed")
    when = "woensdag 18 november om 10:00 (Europe/Amsterdam)"
    # In the action box: the story's own line with the deadline (the deadline told once).
    box = mail.html.split('id="deadline"', 1)[1].split("</p>", 1)[0]
    assert f"Je hebt tot {when};" in box
    assert when in mail.text
    assert "Carla (" not in mail.html and "Carla (" not in _roster(mail.text)
