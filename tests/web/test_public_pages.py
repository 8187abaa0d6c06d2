"""The public pages of a game, served by a real server: the list of games with how to sign up,
a game's roster, current step and deadline in its time zone, the village's story as its mails
told it, the public tallies, the end with every role and the epilogue; the JSON beside it;
escaping, the Content-Security-Policy and plain 404s."""

from __future__ import annotations

import email
import json
from email.message import Message

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, OutboxMessage, game_players
from narrator.outbound.compose import domain_of, make_message_id
from rules.core.registry import ruleset_ids
from stories.render import story_markup
from stories.words import languages_of, load_words
from tests.support.botgame import BotGame
from tests.support.bymail import NARRATOR, Table, above_roster, text_of
from tests.support.web import fetch, serving, site_of

DUTCH = BotGame(
    "wakkerdam",
    "nl",
    "WW5",
    (
        ("Anna", "vrouw"),
        ("Bram", "man"),
        ("Carla", "vrouw"),
        ("Dirk", "man"),
        ("Eva", "vrouw"),
        ("Frank", "man"),
        ("Greet", "vrouw"),
        ("Hans", "man"),
    ),
    seed=7,
)


def village_stories(factory: sessionmaker[Session], name: str) -> dict[int, str]:
    """Step number -> the village's story mail of that step (the text above its roster), as
    the first player got it."""
    with transaction(factory) as session:
        game = session.scalars(select(Game).where(Game.name == name)).one()
        first = game_players(session, game)[0]
        rows = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.game_id == game.id, OutboxMessage.kind == "story"
            )
        ).all()
        by_id = {row.message_id: row.raw for row in rows}
        told = {}
        for number in range(1, game.step_number + 1):
            identity = f"story/{game.id}/{number}/{first.id}/{first.email}"
            raw = by_id.get(make_message_id(domain_of(NARRATOR), identity))
            if raw is not None:
                told[number] = above_roster(text_of(_message(raw))).strip()
        return told


def _message(raw: bytes) -> Message:
    return email.message_from_bytes(raw)


def test_a_game_followed_on_its_page_from_signup_to_the_end(
    factory: sessionmaker[Session],
) -> None:
    table = Table(factory, language="nl")
    words = load_words("wakkerdam", "nl")
    with serving(site_of(factory)) as root:
        index = fetch(f"{root}/")
        assert index.status == 200 and "Nog geen spellen." in index.text
        DUTCH.open(table)
        index = fetch(f"{root}/")
        assert "Inschrijving open" in index.text and "Ingeschreven: 8" in index.text
        assert f"Mail {NARRATOR} met als onderwerp „WW5”" in index.text
        assert 'href="/games/WW5"' in index.body

        page = fetch(f"{root}/games/WW5")
        assert page.status == 200 and "Inschrijving open" in page.text
        assert all(name in page.text for name, _ in DUTCH.players)
        assert json.loads(fetch(f"{root}/games/WW5.json").body) == {
            "name": "WW5",
            "ruleset": "wakkerdam",
            "state": "signup",
            "step": None,
            "deadline": None,
            "players": [{"name": n, "alive": True, "role": None} for n, _ in DUTCH.players],
            "winners": [],
        }

        DUTCH.start(table)
        roles = table.roles()
        page = fetch(f"{root}/games/WW5")
        data = json.loads(fetch(f"{root}/games/WW5.json").body)
        assert data["state"] == "running" and data["step"] is not None
        # The deadline, in the game's time zone (a day after the start, 10:00 in Amsterdam).
        assert data["deadline"] == "2026-11-19T10:00:00+01:00"
        assert "(Europe/Amsterdam)" in page.text and "10:00" in page.text
        assert all(p["role"] is None for p in data["players"])
        for role in set(roles.values()):
            assert f"({words.roles[role].name})" not in page.text

        steps = 0
        for _number in DUTCH.steps(table):
            steps += 1
            data = json.loads(fetch(f"{root}/games/WW5.json").body)
            page = fetch(f"{root}/games/WW5")
            for player in data["players"]:
                if player["alive"] and data["state"] == "running":
                    assert player["role"] is None, player
            # Every story the village was mailed is on the page, as it was mailed.
            for number, story in village_stories(factory, "WW5").items():
                assert str(story_markup(story)) in page.body, (number, story)
        assert steps >= 2
        data = json.loads(fetch(f"{root}/games/WW5.json").body)
        assert data["state"] == "ended" and data["step"] is None and data["deadline"] is None
        assert data["winners"]
        assert {p["name"]: p["role"] for p in data["players"]} == roles
        page = fetch(f"{root}/games/WW5")
        assert "Wie was wie" in page.text and "Winnaars" in page.text
        for name, role in roles.items():
            assert f"{name} ({words.roles[role].name})" in page.text
        assert 'id="epilogue"' in page.body
        # The public tally of a lynch, voter by voter.
        assert "Wie stemde op wie" in page.text
        index = fetch(f"{root}/")
        assert "Afgelopen" in index.text


def test_every_answer_is_escaped_and_carries_the_security_headers(
    factory: sessionmaker[Session],
) -> None:
    table = Table(factory, language="nl")
    table.open_game(
        name="<b>W&W",
        ruleset="wakkerdam",
        language="nl",
        theme="wakkerdam",
        speed=3600,
        strictness=2,
    )
    with serving(site_of(factory)) as root:
        index = fetch(f"{root}/")
        assert "<b>W" not in index.body and "&lt;b&gt;W&amp;W" in index.body
        page = fetch(f"{root}/games/%3Cb%3EW%26W")
        assert page.status == 200
        assert "<b>W" not in page.body and "&lt;b&gt;W&amp;W" in page.body
        for answer in (
            index,
            page,
            fetch(f"{root}/games/%3Cb%3EW%26W.json"),
            fetch(f"{root}/static/site.css"),
            fetch(f"{root}/games/nope"),
            fetch(f"{root}/nope"),
        ):
            policy = answer.headers["Content-Security-Policy"]
            assert "default-src 'none'" in policy and "script-src" not in policy
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
            assert "<script" not in answer.body
        missing = fetch(f"{root}/games/nope")
        assert (missing.status, missing.body) == (404, "Not Found")
        assert fetch(f"{root}/games/nope.json").status == 404


def test_signing_up_as_the_page_says_works(factory: sessionmaker[Session]) -> None:
    """The example in the page's signup line is a signup the narrator takes, in every pack."""
    table = Table(factory)
    packs = [(ruleset, language) for ruleset in ruleset_ids() for language in languages_of(ruleset)]
    assert len(packs) >= 9
    for n, (ruleset, language) in enumerate(packs):
        labels = load_words(ruleset, language).web
        assert labels is not None
        example = labels.sign_up.rsplit(":", 1)[1].strip(" .«»“”„")
        table.open_game(
            name=f"G{n}", ruleset=ruleset, language=language, theme=ruleset, speed=60, strictness=2
        )
        name = example.partition(",")[0]
        assert table.write(name if name.isascii() else "Anya", example, f"G{n}") == (
            f"signup: {name}"
        ), (ruleset, language, example)
