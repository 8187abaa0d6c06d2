"""One shared cast serves a whole batch of mails, and each recipient sees only his own role."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from narrator.models import Game, Player
from narrator.service import story_context
from rules import get_ruleset
from rules.core import Seat, Settings
from stories import MemoryStore, Renderer, StoryKey, StorySource

RULES = get_ruleset("wakkerdam")
ROLES = ["weerwolf", "dwaas", "ziener", "heks", "burger", "weerwolf", "jager", "burger"]
NAMES = ["Anna", "Bram", "Carla", "Dirk", "Eva", "Frank", "Greet", "Hans"]
ROLES_SHOWN = (
    "{% for p in players %}{% if p.role %}{{ p.name }}={{ p.role }};{% endif %}{% endfor %}"
)


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
    )


def _players() -> list[Player]:
    return [
        Player(seat=n + 1, email=f"{name.lower()}@example.org", name=name, gender="man")
        for n, name in enumerate(NAMES)
    ]


def _state(dead: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    seats = [Seat(name, role, "man") for name, role in zip(NAMES, ROLES, strict=True)]
    state = RULES.new_game(seats, Settings(seed=1, reveal_roles=True))
    players = tuple(replace(p, alive=p.name not in dead) for p in state.players)
    return replace(state, players=players)


def _shown(context: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {p.name: p.role for p in context["players"] if p.role is not None}


@pytest.mark.parametrize("reveal_roles", [True, False])
def test_each_recipient_sees_his_own_role_and_no_other_living_role(reveal_roles: bool) -> None:
    game, players = _game(reveal_roles=reveal_roles), _players()
    state = _state(dead=("Dirk",))
    cast = story_context.story_cast(game, players, state)
    dead_roles = {"Dirk": "heks"} if reveal_roles else {}
    for _ in range(2):  # the shared cast is reused, twice over, in both orders
        for name in NAMES + NAMES[::-1]:
            context = story_context.mail_context(game, cast, state, name)
            told = {"dwaas": "ziener"}.get(ROLES[NAMES.index(name)], ROLES[NAMES.index(name)])
            expected = {**dead_roles, name: told} if name not in dead_roles else dead_roles
            if name == "Dirk" and not reveal_roles:
                expected = {"Dirk": "heks"}  # the dead still know their own role
            assert _shown(context) == expected
            # The same roles as the per-recipient construction it replaces.
            old = story_context.story_players(
                RULES, players, state, reveal_to=name, reveal_dead=reveal_roles
            )
            assert {p["name"]: p["role"] for p in old if p["role"]} == expected
    # The shared cast itself never gained anybody's role.
    assert {p.name: p.role for p in cast if p.role} == dead_roles


def test_a_render_sees_only_the_recipients_role_through_players_and_helpers() -> None:
    game, players = _game(reveal_roles=False), _players()
    state = _state()
    cast = story_context.story_cast(game, players, state)
    source = (
        "{% block subject %}x{% endblock %}{% block body %}"
        + ROLES_SHOWN
        + "|{% for n in names_ %}{{ player(n).role }},{% endfor %}{% endblock %}"
    )
    # (A mail without a `player` field: in the others that field hides the player() helper.)
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    renderer = Renderer(MemoryStore([StorySource(key, 1, source.replace("names_", "players"))]))
    for name in NAMES:
        context = story_context.mail_context(game, cast, state, name)
        text = renderer.render_mail(key, context, random.random()).text
        told = {"dwaas": "ziener"}.get(ROLES[NAMES.index(name)], ROLES[NAMES.index(name)])
        listed, looked_up = text.partition("\n-- \n")[0].strip().split("|")  # not the roster
        assert listed == f"{name}={told};"
        assert [r for r in looked_up.split(",") if r not in ("", "None")] == [told]


def test_the_game_over_cast_shows_every_true_role() -> None:
    game, players = _game(reveal_roles=False), _players()
    state = _state()
    cast = story_context.story_cast(game, players, state, reveal_all=True)
    context = story_context.mail_context(game, cast, state, "Bram")
    assert _shown(context) == dict(zip(NAMES, ROLES, strict=True))  # the dwaas is told now


def test_the_render_shows_the_recipient_his_own_role_from_the_shared_cast() -> None:
    """The game table passes every recipient the batch's one cast (no copy per reader): the
    render itself shows him his own role, as he was told it (``Cast.seen_by``), and nobody
    else's; the village's story (no recipient) shows none."""
    game, players = _game(reveal_roles=False), _players()
    state = _state()
    cast = story_context.story_cast(game, players, state)
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    source = "{% block subject %}x{% endblock %}{% block body %}" + ROLES_SHOWN + "{% endblock %}"
    renderer = Renderer(MemoryStore([StorySource(key, 1, source)]))
    for name in NAMES:
        context = {"game": None, "players": cast, "recipient": name}
        text = renderer.render_mail(key, context, 1).text.partition("\n-- \n")[0].strip()
        told = {"dwaas": "ziener"}.get(ROLES[NAMES.index(name)], ROLES[NAMES.index(name)])
        assert text == f"{name}={told};"
    village = renderer.render_mail(key, {"game": None, "players": cast, "recipient": None}, 1)
    assert village.text.partition("\n-- \n")[0].strip() == ""
    assert cast.seen_by("Nobody") is cast
