"""Rendering: helpers, gender and plural cases, HTML escaping, audiences, reproducible draws."""

from __future__ import annotations

import random
import re

import pytest

from stories import (
    ContextError,
    Event,
    FileStore,
    Game,
    MemoryStore,
    Player,
    Renderer,
    StoryKey,
    StorySource,
)
from stories.context import clean_text
from stories.helpers import Helpers
from stories.words import load_words
from tests.support.shipped import SHIPPED_RENDERER

PLAYERS = (Player("Anna", "vrouw"), Player("Bram", "man"), Player("Cas", "man"))


def helpers(language: str) -> Helpers:
    return Helpers(load_words("wakkerdam", language), PLAYERS, random.Random(1))


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


def game(language: str = "nl", **changes: object) -> Game:
    fields: dict = {"name": "WW5", "language": language, "step": "nacht", "night": 3, "day": 2}
    fields.update(changes)
    return Game(**fields)


def test_name_lists_join_naturally() -> None:
    assert helpers("nl").names(["Anna", "Bram", "Cas"]) == "Anna, Bram en Cas"
    assert helpers("en").names(["Anna", "Bram", "Cas"]) == "Anna, Bram and Cas"
    assert helpers("nl").names(["Anna", "Bram"], "or") == "Anna of Bram"
    assert helpers("nl").names(["Anna"]) == "Anna"
    assert helpers("nl").names([]) == "niemand"
    assert helpers("en").names([]) == "nobody"


def test_gendered_words_follow_the_player() -> None:
    nl, en = helpers("nl"), helpers("en")
    assert [nl.pronoun(w)("Anna") for w in ("hij", "hem", "zijn")] == ["zij", "haar", "haar"]
    assert [nl.pronoun(w)("Bram") for w in ("hij", "hem", "zijn")] == ["hij", "hem", "zijn"]
    assert [en.pronoun(w)("Anna") for w in ("he", "him", "his")] == ["she", "her", "her"]
    assert [en.pronoun(w)("bram") for w in ("he", "him", "his")] == ["he", "him", "his"]
    assert nl.gendered("Anna", "koning", "koningin") == "koningin"
    assert nl.as_dict()["Hij"]("Anna") == "Zij"


def test_role_names_have_articles_and_plurals() -> None:
    nl, en = helpers("nl"), helpers("en")
    assert nl.the_role("ziener") == "de Ziener"
    assert nl.the_role("onschuldige_meisje") == "het Onschuldige Meisje"
    assert nl.a_role("onschuldige_meisje") == "een Onschuldig Meisje"
    assert nl.role_name("weerwolf", 3) == "Weerwolven"
    assert nl.roles_count("raaf", 2) == "twee Raven"
    assert nl.roles_count("weerwolf", 1) == "één Weerwolf"
    assert en.the_role("ziener") == "the Seer"
    assert en.roles_count("heks", 2) == "two Witches"
    assert en.team_name("weerwolven") == "the Werewolves"


def test_plurals_and_numbers() -> None:
    nl, en = helpers("nl"), helpers("en")
    assert nl.count(1, "stem", "stemmen") == "één stem"
    assert nl.count(0, "stem", "stemmen") == "nul stemmen"
    assert nl.count(1.5, "stem", "stemmen") == "1,5 stemmen"
    assert en.count(2.5, "vote", "votes") == "2.5 votes"
    assert en.count(14, "vote", "votes") == "14 votes"
    assert nl.duration("2d") == "twee dagen"
    assert en.duration("1h") == "one hour"
    assert nl.duration("90s") == "90 seconden"


def test_a_duration_in_digits_agrees_with_its_unit_in_russian() -> None:
    """The pack's number words have no gender: "один минута" would be wrong; digits are not."""
    ru = Helpers(load_words("mafia", "ru"), PLAYERS, random.Random(1))
    assert ru.duration("1m", words=False) == "1 минута"
    assert ru.duration("3m", words=False) == "3 минуты"
    assert ru.duration("2d", words=False) == "2 дня"
    assert ru.duration("1h") == "один час"


def test_unknown_context_fields_are_refused(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "receipt")
    with pytest.raises(ContextError, match="unknown fields"):
        renderer.render_mail(key, {"game": game(), "player": "Anna", "nonsense": 1}, 1)


HOSTILE = "<script>alert(1)</script>&\r\nBcc: x@evil.example"


@pytest.mark.parametrize("language", ["nl", "en"])
def test_hostile_names_are_escaped_in_html_and_never_break_lines(
    renderer: Renderer, language: str
) -> None:
    players = (Player(HOSTILE, "vrouw"), Player("Bram", "man"))
    key = StoryKey("wakkerdam", language, "wakkerdam", "signup_confirmed")
    context = {
        "game": Game(name="WW5\r\nBcc: x@evil.example", language=language),
        "players": players,
        "player": players[0],
        "signups": [HOSTILE, "Bram"],
    }
    mail = renderer.render_mail(key, context, "seed")
    assert "\r" not in mail.subject and "\n" not in mail.subject
    assert "<script>" not in mail.html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in mail.html
    assert "\r" not in mail.text
    assert all(not line.startswith("Bcc:") for line in mail.text.splitlines())
    assert "<script>alert(1)</script>&" in mail.text  # plain text is not HTML


def test_hostile_names_in_events_are_escaped(renderer: Renderer) -> None:
    players = (Player(HOSTILE, "man"), Player("Bram", "man"))
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    events = [{"type": "death", "player": HOSTILE, "cause": "weerwolven", "audience": "public"}]
    mail = renderer.render_story(key, {"game": game(), "players": players}, events, 1)
    assert mail is not None
    assert "<script>" not in mail.html and "&lt;script&gt;" in mail.html


def test_html_has_paragraphs_and_lists(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "en", "wakkerdam", "step")
    context = {
        "game": game("en"),
        "players": PLAYERS,
        "player": "Anna",
        "actions": [{"kind": "ziener", "choices": ["Bram", "Cas"]}],
    }
    mail = renderer.render_mail(key, context, 3)
    assert mail.subject == "WW5 — Night 3: your turn"  # no role on a lock screen (issue 12)
    # A step's list of choices is its move's (one line of names); paragraphs stay paragraphs.
    assert re.search(r">Bram</span> · <span[^>]*>Cas</span>", mail.html)
    assert re.search(r"<p[^>]*>Dear Anna,</p>", mail.html)
    assert mail.html.startswith("<!DOCTYPE html>")
    story = renderer.render_mail(
        StoryKey("wakkerdam", "en", "wakkerdam", "night_result"),
        {"game": game("en"), "players": PLAYERS, "stories": ["Who voted:\n- Bram\n- Cas"]},
        3,
    )
    assert re.search(r"<ul[^>]*>\n<li>Bram</li>\n<li>Cas</li>\n</ul>", story.html)


def test_the_variant_draw_is_reproducible_for_a_seed() -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "no_mayor")
    sources = [StorySource(key, n, f"variant {n}") for n in (1, 2, 3)]
    renderer = Renderer(MemoryStore(sources))
    context = {"game": game(step="burgemeesterverkiezing"), "players": PLAYERS}
    event = {"type": "no_mayor"}
    draws = [renderer.render_event(key, context, event, seed) for seed in range(40)]
    again = [Renderer(MemoryStore(sources)).render_event(key, context, event, s) for s in range(40)]
    assert draws == again
    assert set(draws) == {"variant 1", "variant 2", "variant 3"}


def test_pick_inside_a_template_is_reproducible(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    context = {"game": game(), "players": PLAYERS, "recipient": "Anna"}
    events = [{"type": "death", "player": "Bram", "cause": "weerwolven"}]
    first = [renderer.render_story(key, context, events, s) for s in range(10)]
    second = [Renderer(FileStore()).render_story(key, context, events, s) for s in range(10)]
    assert first == second
    assert len({m.text for m in first if m}) > 1


def test_private_events_reach_only_their_audience(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    events = [
        {"type": "seen", "player": "Bram", "target": "Anna", "role": "weerwolf",
         "audience": "Bram"},
        {"type": "tally", "player": "Cas", "pack": "weerwolven", "counts": {"Bram": 2},
         "audience": ["Cas"]},
        {"type": "death", "player": "Cas", "cause": "vampiers", "audience": "public"},
    ]  # fmt: skip
    context = {"game": game(), "players": PLAYERS}
    for_bram = renderer.render_story(key, {**context, "recipient": "Bram"}, events, 5)
    for_anna = renderer.render_story(key, {**context, "recipient": "Anna"}, events, 5)
    assert for_bram is not None and for_anna is not None
    assert "Weerwolf" in for_bram.text
    assert "Weerwolf" not in for_anna.text and "Cas" in for_anna.text
    only_private = events[:1]
    assert renderer.render_story(key, {**context, "recipient": "Anna"}, only_private, 5) is None
    wolves = [{**events[1], "audience": "weerwolven"}]
    pack = renderer.render_story(
        key, {**context, "recipient": "Anna"}, wolves, 5, groups=frozenset({"weerwolven"})
    )
    assert pack is not None


def test_day_steps_get_the_day_mail(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "en", "wakkerdam", "night_result")
    events = [{"type": "lynch", "player": None, "totals": {}}]
    day = game("en", step="brandstapel", phase="day", day=2)
    mail = renderer.render_story(key, {"game": day}, events, 1)
    assert mail is not None and mail.key.event == "day_result"
    assert mail.subject.startswith("WW5 — Day 2")
    # The mayor's election counts to the night in the rules, but is told at dawn (words.toml).
    election = game("en", step="burgemeesterverkiezing", phase="night", night=3, day=2)
    mail = renderer.render_story(key, {"game": election}, [{"type": "no_mayor"}], 1)
    assert mail is not None and mail.key.event == "day_result"
    assert mail.subject.startswith("WW5 — Day 3")
    night = game("nl", step="heks", phase="night")
    mail = renderer.render_story(key.with_event("death"), {"game": night}, events, 1)
    assert mail is not None and mail.key.event == "night_result"


def test_the_moment_without_a_phase_follows_the_counters() -> None:
    from stories.render import moment_of

    words = load_words("wakkerdam", "nl")
    assert moment_of(game(step=None, night=0, day=0), words) == "Het begin"
    assert moment_of(game(step=None, night=3, day=3), words) == "Dag 3"
    assert moment_of(game(step=None, night=3, day=2), words) == "Nacht 3"
    assert moment_of(game(step="dief", phase="start", night=0, day=0), words) == "Het begin"


@pytest.mark.parametrize("language", ["nl", "en"])
def test_the_fool_is_told_he_is_a_seer(renderer: Renderer, language: str) -> None:
    """The narrator passes the role as told (the ruleset's told_role): the stories tell it."""
    key = StoryKey("wakkerdam", language, "wakkerdam", "role")
    context = {"game": game(language), "players": PLAYERS, "player": "Bram", "role": "ziener"}
    mail = renderer.render_mail(key, context, 1)
    assert ("Ziener" if language == "nl" else "Seer") in mail.text
    assert "Ziener" not in mail.subject and "Seer" not in mail.subject  # lock screens show it
    assert "Dwaas" not in mail.text and "Fool" not in mail.text


def test_dutch_gender_in_a_rendered_story(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "saved")
    src = renderer.store.variants(key)[1]
    context = {"game": game(), "players": PLAYERS, "recipient": None}
    from stories import Event

    anna = renderer.render_source_event(
        src, context, Event.from_dict({"type": "saved", "player": "Anna"}), random.Random(0)
    )
    bram = renderer.render_source_event(
        src, context, Event.from_dict({"type": "saved", "player": "Bram"}), random.Random(0)
    )
    assert "Zij is gered" in anna and "Hij is gered" in bram


def test_a_lynch_is_tallied_once_for_all_its_readers() -> None:
    """Every player reads the same lynch: who voted whom, and who voted blanco, in vote order;
    what one render is handed cannot change what the next one gets."""
    votes = {"Anna": ["Bram"], "Bram": [], "Carla": ["Bram"], "Dirk": ["Anna"]}
    event = Event.from_dict(
        {"type": "lynch", "player": "Bram", "totals": {"Bram": 2, "Anna": 1}, "votes": votes}
    )
    first = event.as_context()
    assert first["voters"] == {"Bram": ("Anna", "Carla"), "Anna": ("Dirk",)}
    assert first["blanco"] == ("Bram",)
    first["voters"] = {}
    first["player"] = "somebody else"
    again = event.as_context()
    assert again is not first
    assert (again["player"], again["voters"]["Bram"]) == ("Bram", ("Anna", "Carla"))


def test_no_helper_shares_its_name_with_a_mail_s_field() -> None:
    """A template sees the helpers and the mail's fields side by side: a field named like a
    helper (the error mail's ``choices``) would hide it, and a call would fail at render."""
    from stories.context import COMMON_NAMES, MAIL_FIELDS
    from stories.helpers import helper_names
    from stories.words import load_words as words_of

    fields = set(COMMON_NAMES).union(*(set(f) for f in MAIL_FIELDS.values()))
    # Known and documented: a mail's `player` is its reader; the `player()` helper is the
    # event templates' (docs/stories.md).
    fields.discard("player")
    for ruleset, language in (("wakkerdam", "nl"), ("mafia", "ru"), ("lupus", "it")):
        assert not helper_names(words_of(ruleset, language)) & fields, (ruleset, language)


@pytest.mark.parametrize(
    "text",
    [
        "Anna",
        "  Anna de Vries ",
        "Anna\nBram",
        "Anna\r\n\tBram\x00",
        "Anna\x7fBram",
        "Anna\u2028Bram\u2029",
        "Anna\u00a0Bram",  # a no-break space: not printable to Python, no control character
        "\u200bAnna\u200e",
        "Zoë ✓ 🐺",
        "\n",
        "",
    ],
)
def test_a_text_is_made_one_line_as_the_control_pattern_says(text: str) -> None:
    expected = re.sub(r"[\x00-\x1f\x7f\u2028\u2029]+", " ", text).strip()
    assert clean_text(text) == expected
    assert Player(text, "vrouw").name == expected


@pytest.mark.parametrize(
    ("given", "gender"), [("man", "man"), ("vrouw", "vrouw"), (" Vrouw ", "vrouw"), ("M", "man")]
)
def test_a_player_s_gender_is_read_in_any_of_its_spellings(given: str, gender: str) -> None:
    assert Player.from_any({"name": "Anna", "gender": given}).gender == gender
    with pytest.raises(ContextError, match="gender must be"):
        Player.from_any({"name": "Anna", "gender": "Man?"})
    with pytest.raises(ContextError, match=r"unknown player fields \['age'\]"):
        Player.from_any({"name": "Anna", "age": 3})
