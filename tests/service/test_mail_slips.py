"""Slips the mails once made (issue #12, item 9), each with the test that catches it."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game as GameRow
from narrator.service import games as service
from narrator.service.inbox import InboxSettings
from narrator.service.limits import Limits
from narrator.service.work import unit_of_work
from rules import ruleset_ids
from stories import Game, Player, StoryKey
from stories.lexicon import explainer_for
from stories.words import languages_of
from tests.security.security_support import NARRATOR, Narrator, mail, players
from tests.support.bymail import above_roster
from tests.support.shipped import SHIPPED_RENDERER, shipped_mailer

PACKS = [(lang, theme) for lang in ("nl", "en") for theme in ("wakkerdam", "haven")]
PLAYERS = (
    Player("Anna", "vrouw"),
    Player("Bram", "man"),
    Player("Carla", "vrouw"),
    Player("Dirk", "man", alive=False),
)
SEEDS = range(8)  # enough draws to meet every variant of these packs


def _mails(lang: str, theme: str, mail_kind: str, context: dict[str, Any]) -> list[str]:
    renderer = SHIPPED_RENDERER
    key = StoryKey("wakkerdam", lang, theme, mail_kind)
    return [renderer.render_mail(key, context, f"s{n}").text for n in SEEDS]


def _events(lang: str, theme: str, event: dict[str, Any], context: dict[str, Any]) -> list[str]:
    renderer = SHIPPED_RENDERER
    key = StoryKey("wakkerdam", lang, theme, event["type"])
    return [renderer.render_event(key, context, event, f"s{n}") for n in SEEDS]


def _game(lang: str, theme: str, step: str | None, **more: Any) -> Game:
    return Game(name="WW5", language=lang, theme=theme, step=step, **more)


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_no_subject_repeats_its_moment(lang: str, theme: str) -> None:
    for step, phase, night in (
        ("cupido", "start", 0),
        ("nacht", "night", 1),
        ("doden", "night", 3),
    ):
        context = {
            "game": _game(lang, theme, step, phase=phase, night=night, day=night - 1),
            "players": PLAYERS,
            "recipient": None,
            "stories": ["Iets."],
        }
        renderer = SHIPPED_RENDERER
        for n in SEEDS:
            subject = renderer.render_mail(
                StoryKey("wakkerdam", lang, theme, "night_result"), context, f"s{n}"
            ).subject
            words = [w.strip(":,").lower() for w in subject.split()]
            assert len(words) == len(set(words)), subject  # "Het begin: het begin"


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_no_good_night_at_dawn(lang: str, theme: str) -> None:
    context = {
        "game": _game(lang, theme, "ochtend", phase="night", night=3, day=2),
        "players": PLAYERS,
        "recipient": None,
        "stories": ["Iets."],
    }
    for text in _mails(lang, theme, "night_result", context):
        assert "Slaap zacht" not in text and "Sleep well" not in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_a_signup_is_not_told_he_shares_the_village_with_himself(lang: str, theme: str) -> None:
    context = {
        "game": _game(lang, theme, None),
        "players": (),
        "recipient": "Anna",
        "player": Player("Anna", "vrouw"),
        "signups": ["Anna"],
    }
    for text in _mails(lang, theme, "signup_confirmed", context):
        assert "delen met Anna" not in text and "village with Anna" not in text, text


@pytest.mark.parametrize("theme", ["wakkerdam", "haven"])
def test_the_testament_takes_no_pronoun_from_the_heir(theme: str) -> None:
    event = {"type": "mayor", "player": "Anna", "via": "testament", "audience": "public"}
    context = {"game": _game("nl", theme, "doden"), "players": PLAYERS, "recipient": None}
    for text in _events("nl", theme, event, context):
        assert " hem " not in text and "hem opvolgt" not in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_an_ordinary_wolf_is_not_told_the_white_wolfs_secret(lang: str, theme: str) -> None:
    context = {
        "game": _game(lang, theme, "nacht"),
        "players": PLAYERS,
        "recipient": "Anna",
        "player": "Anna",
        "role": "weerwolf",
        "team": "weerwolven",
        "mates": ["Bram"],
    }
    for text in _mails(lang, theme, "role", context):
        assert "gewone Weerwolf" not in text and "ordinary Werewolf" not in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_one_missed_vote_is_not_one_time_in_a_row(lang: str, theme: str) -> None:
    event = {"type": "inactive", "player": "Anna", "missed": 1, "audience": "Anna"}
    game = _game(lang, theme, "nacht", strictness=3)
    texts = _events(lang, theme, event, {"game": game, "players": PLAYERS, "recipient": "Anna"})
    action = {"kind": "ziener", "choices": ["Bram", "Carla"], "min": 1, "max": 1, "blanco": True}
    texts += _mails(
        lang,
        theme,
        "reminder",
        {
            "game": game,
            "players": PLAYERS,
            "recipient": "Anna",
            "player": "Anna",
            "actions": [action],
            "missed": 1,
        },
    )
    for text in texts:
        for slip in (
            "één keer op rij",
            "één stemming op rij",
            "one time in a row",
            "one vote in a row",
        ):
            assert slip not in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_one_name_is_not_exactly_one_name(lang: str, theme: str) -> None:
    action = {"kind": "ziener", "choices": ["Bram", "Carla"], "min": 1, "max": 1, "blanco": False}
    game = _game(lang, theme, "nacht")
    texts = _mails(
        lang,
        theme,
        "step",
        {
            "game": game,
            "players": PLAYERS,
            "recipient": "Anna",
            "player": "Anna",
            "actions": [action],
        },
    )
    texts += _mails(
        lang,
        theme,
        "error",
        {
            "game": game,
            "players": PLAYERS,
            "recipient": "Anna",
            "player": "Anna",
            "code": "target-dead",
            "action": action,
            "choices": ["Bram", "Carla"],
        },
    )
    for text in texts:
        assert "precies één" not in text and "exactly one" not in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_the_dead_are_not_asked_to_try_again(lang: str, theme: str) -> None:
    context = {
        "game": _game(lang, theme, "nacht"),
        "players": PLAYERS,
        "recipient": "Dirk",
        "player": "Dirk",
        "code": "not-asked",
    }
    for text in _mails(lang, theme, "error", context):
        assert "nog eens" not in text and "Try again" not in text, text
        assert "dood" in text or "dead" in text, text


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_a_signup_error_mentions_no_previous_vote(lang: str, theme: str) -> None:
    for code in ("bad-signup", "bad-gender", "bad-name", "name-taken"):
        context = {"game": _game(lang, theme, None), "players": (), "recipient": None, "code": code}
        for text in _mails(lang, theme, "error", context):
            assert "vorige stem" not in text and "previous vote" not in text, (code, text)


@pytest.mark.parametrize(("lang", "theme"), PACKS)
def test_the_narrator_speaks_as_i_and_signs_every_mail(lang: str, theme: str) -> None:
    signature = {
        "nl": {"wakkerdam": "De Verteller", "haven": "De Havenmeester"},
        "en": {"wakkerdam": "The Narrator", "haven": "The Harbour Master"},
    }[lang][theme]
    game = _game(lang, theme, "brandstapel", phase="day", night=1, day=1)
    contexts = {
        "receipt": {"player": "Anna", "action": {"kind": "brandstapel"}, "targets": ["Bram"]},
        "reminder": {"player": "Anna", "actions": [{"kind": "brandstapel", "choices": ["Bram"]}]},
        "day_result": {"stories": ["Iets."]},
        "game_over": {"winners": ["Anna"], "teams": ["burgers"], "roles": {"Anna": "burger"}},
        "signup_confirmed": {"player": Player("Anna", "vrouw"), "signups": ["Anna"]},
    }
    for kind, fields in contexts.items():
        context = {"game": game, "players": PLAYERS, "recipient": "Anna", **fields}
        for text in _mails(lang, theme, kind, context):
            lines = [line for line in above_roster(text).strip().splitlines() if line.strip()]
            assert lines[-1] == signature, (kind, text)  # signed
            assert lines[0].startswith(("Beste", "Dear", "Welkom", "Welcome")), (
                kind,
                text,
            )  # greeted
            body = "\n".join(lines[:-1])
            assert signature + " heeft" not in body and signature + " has" not in body, text


@pytest.mark.parametrize(
    ("lang", "theme", "name"),
    [
        ("nl", "wakkerdam", "De Verteller"),
        ("nl", "haven", "De Havenmeester"),
        ("en", "wakkerdam", "The Narrator"),
        ("en", "haven", "The Harbour Master"),
    ],
)
def test_the_from_name_is_the_packs(lang: str, theme: str, name: str) -> None:
    game = GameRow(name="WW5", ruleset="wakkerdam", language=lang, theme=theme)
    mailer = shipped_mailer(NARRATOR)
    assert mailer.sender_name(game) == name
    # A rendered mail of the game carries the same name (the post office signs with it).
    context = {"game": None, "players": PLAYERS, "recipient": None, "player": None}
    mail = mailer.render(mailer.key(game, "help_received"), context, "s")
    assert mail.narrator == name


def test_an_error_lists_the_valid_choices_once(sessions: sessionmaker[Session]) -> None:
    narrator = Narrator(
        sessions,
        shipped_mailer(NARRATOR),
        InboxSettings(address=NARRATOR, admins=("beheer@example.org",), limits=Limits()),
    )
    narrator.add_game()
    cast = players(5)
    narrator.sign_up("WW5", cast)
    narrator.start()
    with unit_of_work(sessions) as work:
        game = work.session.scalars(select(GameRow)).one()
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        name = rs.asked(state)[0]
        valid = list(rs.choices(state, name).actions[0].targets)
    address = dict(cast)[name]
    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail(address, "WW5", "Gandalf"))
    assert outcome.what.startswith("error: no-name"), outcome
    (error,) = [m for m in narrator.outbox(after=before) if m.kind == "error"]
    text = error.message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    for choice in valid:
        assert text.count(choice) == 1 or (choice == name), (choice, text)
    everybody = [n for n, _ in cast]
    for other in everybody:
        if other not in valid and other != name:
            assert other not in text, (other, text)


def test_the_inbox_settings_word_every_packs_errors_as_the_pack_does() -> None:
    """The parser's error wording of every shipped pack is made once, with the settings; each is
    the pack's (``explainer_for``), and a game in a language without a pack still gets one."""
    settings = InboxSettings(address=NARRATOR)
    params = {"written": "Bram", "choices": ("Anna",)}
    for ruleset in ruleset_ids():
        for language in languages_of(ruleset):
            assert (ruleset, language) in settings.explainers
            made = settings.explainer(ruleset, language)("unknown-name", params)
            assert made == explainer_for(ruleset, language)("unknown-name", params)
    assert settings.explainer("wakkerdam", "xx")("no-game", {"games": ()})
