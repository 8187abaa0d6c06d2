"""A player's own page, read-only: opened by a signed token, it shows his role card, what he
may do now, his votes of this step and his private news as his mails told them; a wrong
token, a token of another key, or no key at all is a plain 404, and no token is logged."""

from __future__ import annotations

import email
import json
import logging
from collections.abc import Callable
from dataclasses import replace

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, InboxMessage, OutboxMessage, Vote, game_players
from narrator.outbound.compose import domain_of, make_message_id
from narrator.service import games as service
from narrator.service.inbox import process_pending
from narrator.service.work import unit_of_work
from narrator.web.tokens import page_token, read_token
from narrator.web.vote import Envelope
from stories.render import story_markup
from stories.words import load_words
from tests.narrator.fixtures import CliResult
from tests.support.botgame import BotGame, ballots
from tests.support.bymail import NARRATOR, Table, above_roster, game_view, text_of
from tests.support.web import fetch, post_form, serving, site_of

SECRET = "the key of the personal links"
GAME = BotGame(
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


def test_a_token_opens_one_seat_and_nothing_else() -> None:
    token = page_token(SECRET, 3, 17)
    seat = read_token(SECRET, token)
    assert seat is not None and (seat.game_id, seat.player_id) == (3, 17)
    game_id, player_id, generation, signature = token.split(".")
    assert (seat.generation, generation) == (0, "0")
    assert len(signature) == 43  # 256 bits
    assert read_token("another key", token) is None
    assert read_token(SECRET, f"{game_id}.18.0.{signature}") is None  # another seat
    assert read_token(SECRET, f"{game_id}.{player_id}.1.{signature}") is None  # generation
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    assert read_token(SECRET, f"{game_id}.{player_id}.0.{flipped}") is None
    later = read_token(SECRET, page_token(SECRET, 3, 17, 2))
    assert later is not None and later.generation == 2
    for bad in (
        "",
        "3.17",
        f"3.17.{signature}",  # no generation
        f"3.17.0.{signature}.x",
        f"03.17.0.{signature}",
        f"3.17.00.{signature}",
        "3.17.0.!" * 9,
    ):
        assert read_token(SECRET, bad) is None


def _tokens(factory: sessionmaker[Session]) -> dict[str, str]:
    with transaction(factory) as session:
        game = session.scalars(select(Game).where(Game.name == GAME.name)).one()
        return {p.name: page_token(SECRET, game.id, p.id) for p in game_players(session, game)}


def _private_stories(factory: sessionmaker[Session]) -> dict[str, list[str]]:
    """Player -> the texts of his private story mails (above the roster), in order."""
    with transaction(factory) as session:
        game = session.scalars(select(Game).where(Game.name == GAME.name)).one()
        players = game_players(session, game)
        rows = session.scalars(
            select(OutboxMessage).where(OutboxMessage.kind == "story").order_by(OutboxMessage.id)
        ).all()
        by_id = {row.message_id: row.raw for row in rows}
        told: dict[str, list[str]] = {p.name: [] for p in players}
        for number in ("start", *range(1, game.step_number + 1)):
            for p in players:
                identity = f"story/{game.id}/{number}/{p.id}/private/{p.email}"
                raw = by_id.get(make_message_id(domain_of(NARRATOR), identity))
                if raw is not None:
                    text = above_roster(text_of(email.message_from_bytes(raw))).strip()
                    told[p.name].append(text)
        return told


def test_each_player_reads_his_own_page_through_a_game(
    factory: sessionmaker[Session], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    table = Table(factory, language="nl")
    words = load_words("wakkerdam", "nl")
    site = replace(site_of(factory), secret=SECRET)
    with serving(site) as root:
        GAME.open(table)
        GAME.start(table)
        tokens = _tokens(factory)
        roles = table.roles()
        for name, token in tokens.items():
            page = fetch(f"{root}/p/{token}")
            assert page.status == 200, name
            data = json.loads(fetch(f"{root}/p/{token}.json").body)
            told = data["role"]
            assert data["player"] == name and told is not None
            # His role as his role mail told it (the Dwaas is told he is the Ziener).
            assert told == roles[name] or (roles[name], told) == ("dwaas", "ziener")
            assert f"Je rol: {words.roles[told].name}" in page.text
            assert "stuur het adres niet door" in page.text
            assert data["asked"] == bool(data["choices"])
            # The public part is the public page's: nobody else's role.
            assert all(p["role"] is None for p in data["players"])
            if data["asked"]:
                assert "Er wordt nu niets van je gevraagd." not in page.text
        steps = 0
        for _ in GAME.steps(table):
            steps += 1
            if steps > 3:
                continue  # the story so far: checked over three steps
            private = _private_stories(factory)
            view = game_view(factory)
            for name, token in tokens.items():
                page = fetch(f"{root}/p/{token}")
                for text in private[name]:  # his private news, as they were mailed
                    assert str(story_markup(text)) in page.body, (name, text)
                for other, texts in private.items():  # and nobody else's
                    for text in texts:
                        if other != name and text not in private[name]:
                            assert str(story_markup(text)) not in page.body, (name, other)
                if not view.over and name in view.alive:
                    data = json.loads(fetch(f"{root}/p/{token}.json").body)
                    assert data["state"] == "running"
        assert any(private.values()), "somebody was told something alone"
        assert steps >= 2
    for token in tokens.values():
        assert token not in caplog.text  # never logged
        assert token.rsplit(".", 1)[1] not in caplog.text


def test_a_wrong_token_or_no_key_is_a_plain_404(factory: sessionmaker[Session]) -> None:
    table = Table(factory, language="nl")
    GAME.open(table)
    tokens = _tokens(factory)
    token = tokens["Anna"]
    game_id, player_id, generation, signature = token.split(".")
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    with serving(replace(site_of(factory), secret=SECRET)) as root:
        assert fetch(f"{root}/p/{token}").status == 200
        for bad in (
            f"{game_id}.{player_id}.{generation}.{flipped}",
            page_token(SECRET, int(game_id), int(player_id), 1),  # not (yet) his generation
            page_token("another key", int(game_id), int(player_id)),
            page_token(SECRET, int(game_id) + 1, int(player_id)),  # no such game
            page_token(SECRET, int(game_id), 999),  # no such player
            "nonsense",
        ):
            for suffix in ("", ".json"):
                answer = fetch(f"{root}/p/{bad}{suffix}")
                assert (answer.status, answer.body) == (404, "Not Found"), bad
    with serving(site_of(factory)) as root:  # no key configured: no personal pages
        assert fetch(f"{root}/p/{token}").status == 404


def test_the_cli_prints_a_players_link(
    run_cli: Callable[..., CliResult],
    sessions: sessionmaker[Session],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_cli("game", "create", "WW5")
    result = run_cli("game", "link", "WW5", "Anna")
    assert result.status == 2 and "NARRATOR_WEB_SECRET is not set" in result.err
    monkeypatch.setenv("NARRATOR_WEB_SECRET", SECRET)
    table = Table(sessions, language="nl")
    assert table.write("Anna", "Anna, vrouw", "WW5") == "signup: Anna"
    result = run_cli("game", "link", "WW5", "anna")
    assert result.status == 0, result.err
    link = result.out.strip()
    assert link.startswith("http://127.0.0.1:8080/p/")
    seat = read_token(SECRET, link.rsplit("/", 1)[1])
    with transaction(sessions) as session:
        [anna] = game_players(session, session.scalars(select(Game)).one())
        assert seat is not None and seat.player_id == anna.id
    assert run_cli("game", "link", "WW5", "Zoe").status == 2


def _form_choice(choices: list[dict[str, object]], order: list[str]) -> list[tuple[str, str]]:
    """The bots' rule (tests.support.bymail.ballot) as his page's form sends it: his plain
    vote, the first names of the shared order it offers, its keyword word; the blank word
    where it takes no name he can give."""
    words = load_words("wakkerdam", "nl")
    action = next((c for c in choices if c["keyword"] is None), choices[0])
    offered = action["choices"]
    assert isinstance(offered, list)
    count = max(int(str(action["min"])), 1) if action["max"] else 0
    names = [name for name in order if name in offered][:count]
    fields = [("name", name) for name in names]
    if not names and action["blanco"]:
        fields.append(("blank", words.blanco[0]))
    if action["keyword"]:
        fields.append(("keyword", words.keywords[str(action["keyword"])][0]))
    return fields


def test_half_the_village_votes_on_its_pages_the_way_of_a_mail(
    factory: sessionmaker[Session],
) -> None:
    """A whole game: the even seats vote in their page's form, the odd by mail; each form vote
    is read like a mail (same parser, rules, receipt mail and stored vote)."""
    table = Table(factory, language="nl")
    site = replace(site_of(factory), secret=SECRET, envelope=Envelope(NARRATOR))
    order = [name for name, _ in GAME.players]
    with serving(site) as root:
        GAME.open(table)
        GAME.start(table)
        tokens = _tokens(factory)
        by_form = set(order[1::2])
        receipts_before = 0
        for _ in range(40):
            with unit_of_work(factory) as work:
                game = work.session.scalars(select(Game)).one()
                if game.status != "running":
                    break
                asked = list(service.ruleset_of(game).asked(work.state(game)))
            form_votes = 0
            for name in asked:
                if name not in by_form:
                    continue
                data = json.loads(fetch(f"{root}/p/{tokens[name]}.json").body)
                page = post_form(f"{root}/p/{tokens[name]}", _form_choice(data["choices"], order))
                assert page.status == 200 and "Je stem is onderweg" in page.text, name
                form_votes += 1
            outcomes = process_pending(factory, table.mailer, table.settings, table.clock)
            assert [o.what for o in outcomes] == ["vote accepted"] * form_votes, outcomes
            receipts = [to for to, kind, _ in table.mails() if kind == "receipt"]
            assert len(receipts) == receipts_before + form_votes
            bot = dict(ballots(factory, GAME, order, load_words("wakkerdam", "nl")) or [])
            for name in asked:  # the others vote by mail
                if name not in by_form:
                    assert table.write(name, bot[name], GAME.name) == "vote accepted", name
            receipts_before = len([kind for _, kind, _ in table.mails() if kind == "receipt"])
            table.deadline()
        assert game.status == "ended"
        with transaction(factory) as session:
            inbox = session.scalars(select(InboxMessage)).all()
            via_pages = [
                m for m in inbox if m.message_id and m.message_id.strip("<>").startswith("web.")
            ]
            assert via_pages and all(m.state == "done" for m in via_pages)
            # the form's votes have their own inbox source; the mails remain ``inject``
            sources = {m.source for m in via_pages}
            assert sources == {"web"}
            assert {m.source for m in inbox if m not in via_pages} == {"inject"}
            voters = set(session.scalars(select(Vote.player_id)))
        assert len(voters) == len(GAME.players)


def test_a_form_vote_is_judged_like_a_mail_and_a_stale_one_like_a_late_mail(
    factory: sessionmaker[Session],
) -> None:
    """The page checks nothing but the words' shape: a name it did not offer, or a form of a
    step that has closed, is mailed as written and answered as such a mail is."""
    table = Table(factory, language="nl")
    site = replace(site_of(factory), secret=SECRET, envelope=Envelope(NARRATOR))
    with serving(site) as root:
        GAME.open(table)
        GAME.start(table)
        tokens = _tokens(factory)
        asked = [n for n in tokens if json.loads(fetch(f"{root}/p/{tokens[n]}.json").body)["asked"]]
        name = asked[0]
        page = post_form(f"{root}/p/{tokens[name]}", [("name", "Nobody")])
        assert page.status == 200 and "Je stem is onderweg" in page.text
        [outcome] = process_pending(factory, table.mailer, table.settings, table.clock)
        assert outcome.what.startswith("error: no-name"), outcome.what
        errors = [to for to, kind, _ in table.mails() if kind == "error"]
        assert errors == [f"{name.lower()}@example.org"]
        # Words no form writes are not mailed at all.
        for fields in ([("name", "Anna Bram")], [("name", "x" * 65)], [("name", "A\x00")]):
            assert post_form(f"{root}/p/{tokens[name]}", fields).status == 404, fields
        assert post_form(f"{root}/p/1.1.{'A' * 43}", [("name", "Anna")]).status == 404
        # A villager who is asked nothing at night sends the form anyway: a late mail's answer.
        idle = next(n for n in tokens if n not in asked)
        assert post_form(f"{root}/p/{tokens[idle]}", [("name", name)]).status == 200
        [outcome] = process_pending(factory, table.mailer, table.settings, table.clock)
        assert table.write(idle, name, GAME.name) == outcome.what  # the same as his mail
        assert "not-asked" in outcome.what, outcome.what
    with serving(replace(site, envelope=None)) as root:  # pages without a form
        page = fetch(f"{root}/p/{tokens[name]}")
        assert "<form" not in page.body
        assert post_form(f"{root}/p/{tokens[name]}", [("name", "Anna")]).status == 404
    assert process_pending(factory, table.mailer, table.settings, table.clock) == []
