"""The English pack of Mafia (stories/mafia/en): `stories check` passes, every key renders with
every sample, each theme tells every public event three ways, every word a mail tells a player to
write is one the parser reads, no subject names a role or repeats itself, every mail greets and
signs, and a private event reaches nobody but its audience."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from random import Random
from typing import Any

import pytest

from parsing.lexicon import Lexicon, phrase_key
from rules import get_ruleset
from rules.scenario import run_scenario
from stories import (
    CheckReport,
    FileStore,
    Game,
    Player,
    Renderer,
    StoryKey,
)
from stories.context import Event, event_schema
from stories.keys import MAIL_TYPES, OPTIONAL_MAILS, events_of, keys_of
from stories.lexicon import lexicon_for
from stories.samples import mail_samples, sample_players
from stories.store import StorySource
from stories.words import Words, languages_of, load_words
from tests.support.packs import (
    MAFIA_PUBLIC_EVENTS,
    QUOTED,
    epilogue_lines_of,
    epilogue_of_every_event,
    not_yet,
    pack_helpers,
    pack_sources,
    parser_reads,
    players_of,
    render_every_event,
    rendered_mails,
    sample_names,
)
from tests.support.shipped import SHIPPED_RENDERER

RULESET, LANGUAGE = "mafia", "en"
THEMES = ("mafia", "express")
SIGNATURES = {"mafia": "The Narrator\nPort Carrow", "express": "The Conductor\nThe Steppe Express"}
#: The events every player may learn (docs/rules/mafia.md §13); the others are private.
#: The keywords written in two words (docs/rules/mafia.md §12).
PHRASES = ("fake red", "fake black", "fake invert", "no insurance", "no bonus")
PUBLIC = MAFIA_PUBLIC_EVENTS
#: The optional mails this pack has (stories/keys.py OPTIONAL_MAILS): required here.
OWN_OPTIONAL = ("help_received", "epilogue")


@pytest.fixture(scope="module")
def words() -> Words:
    return load_words(RULESET, LANGUAGE)


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return lexicon_for(RULESET, LANGUAGE)


@pytest.fixture(scope="module")
def sources() -> list[StorySource]:
    return pack_sources(RULESET, LANGUAGE)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


@pytest.fixture(scope="module")
def schema() -> Mapping[str, Mapping[str, Any]]:
    """The ruleset's events and their fields (`event_schema`), worked out once for the module:
    `render_event` given an event as a dict works it out for every event it renders."""
    return event_schema(RULESET)


@pytest.fixture(scope="module")
def mails(
    renderer: Renderer, sources: list[StorySource]
) -> list[tuple[StorySource, dict[str, Any], Any]]:
    """(source, sample context, RenderedMail) for every mail template and every sample."""
    return list(rendered_mails(renderer, sources))


def test_the_pack_passes_stories_check(
    shipped_check: CheckReport, sources: list[StorySource]
) -> None:
    """The check of every shipped pack (`stories check --files`, made once per run:
    tests/stories/conftest.py) covers this pack in this language, and finds no problem."""
    assert LANGUAGE in languages_of(RULESET)
    assert sources and shipped_check.templates == len(FileStore().all())
    assert shipped_check.problems == []
    assert shipped_check.renders > 5000


def test_every_key_has_a_template_and_every_public_event_three_variants() -> None:
    store = FileStore()
    for theme in THEMES:
        missing = [
            event
            for event in (*keys_of(RULESET), *OWN_OPTIONAL)  # optional, but this pack has them
            if not store.variants(StoryKey(RULESET, LANGUAGE, theme, event))
            and not store.variants(StoryKey(RULESET, LANGUAGE, "_base", event))
        ]
        assert missing == [], theme
        few = [
            event
            for event in PUBLIC
            if len(store.variants(StoryKey(RULESET, LANGUAGE, theme, event))) < 3
        ]
        assert few == [], theme
        # every mail speaks in the theme's own voice (its signature)
        own = [
            m
            for m in MAIL_TYPES
            if m not in ("help_forward", "help_digest")
            and (m not in OPTIONAL_MAILS or m in OWN_OPTIONAL)
        ]
        assert own == [m for m in own if store.variants(StoryKey(RULESET, LANGUAGE, theme, m))]
    assert set(events_of(RULESET)) > PUBLIC


def test_every_event_renders_with_every_sample(
    renderer: Renderer, sources: list[StorySource]
) -> None:
    assert render_every_event(renderer, sources) > 1000


def test_the_parser_words_are_the_rules_and_the_spec(words: Words, lexicon: Lexicon) -> None:
    """docs/rules/mafia.md §12: the English forms, and the Russian ones for a mixed group."""
    assert set(words.keywords) == set(get_ruleset(RULESET).keywords)
    for keyword in get_ruleset(RULESET).keywords:
        assert lexicon.keywords[phrase_key(keyword)] == keyword
    english = {
        "shoot": "kill",
        "insure": "insure",
        "no insurance": "noinsure",
        "rumor": "rumour",
        "heal": "heal",
        "arrest": "arrest",
        "protect": "protect",
        "check": "check",
        "verify": "verify",
        "fake red": "fake_red",
        "fake black": "fake_black",
        "fake invert": "fake_invert",
        "track": "track",
        "role": "role",
        "request": "request",
        "vertical": "vertical",
        "hunt": "hunt",
    }
    russian = {"убить": "kill", "лечу": "heal", "проверка": "check", "охота": "hunt"}
    for written, keyword in {**english, **russian}.items():
        assert lexicon.keywords[phrase_key(written)] == keyword, written
    for blank in ("blank", "skip", "abstain", "none", "пропуск", "воздерживаюсь", "никого"):
        assert phrase_key(blank) in lexicon.blanco_words
    assert lexicon.genders["man"] == "man" and lexicon.genders["woman"] == "vrouw"
    assert {"help", "помощь"} <= lexicon.help_words
    assert {"the", "sent", "iphone", "thanks", "vote"} <= lexicon.stop_words
    # no keyword, blank word or role id is a stop word ("request doctor" must find the role)
    spoken = set(lexicon.keywords) | set(lexicon.blanco_words)
    spoken |= {phrase_key(r) for r in get_ruleset(RULESET).roles}
    assert not spoken & set(lexicon.stop_words)
    # a common English first name is never a stop word
    assert not {"will", "mark", "rose", "grace", "frank"} & (
        set(map(phrase_key, words.stop_words)) - {"will"}
    )


def test_every_error_code_has_its_words(words: Words) -> None:
    """The rules' codes (§5.3), the parser's and the narrator's (no-admin included)."""
    rules_codes = {
        "not-asked",
        "keyword-required",
        "mode-required",
        "wrong-count",
        "bad-name",
        "blank-not-allowed",
        "dead",
        "self",
        "untouchable",
        "protected",
        "not-candidate",
        "not-now",
        "not-eligible",
        "repeat",
        "no-shot",
        "taken",
    }
    parser = {
        "no-game",
        "no-name",
        "too-many-names",
        "too-few-names",
        "blanco-and-name",
        "ambiguous-name",
        "bad-signup",
        "bad-gender",
        "bad-name",
        "name-taken",
    }
    narrator = {
        "game-started",
        "game-full",
        "too-many-games",
        "not-a-player",
        "not-running",
        "game-paused",
        "rate-limited",
        "too-large",
        "not-authenticated",
        "reply-address",
        "no-admin",
    }
    assert rules_codes | parser | narrator <= set(words.errors)


def test_every_quoted_word_of_a_mail_is_one_the_parser_reads(
    mails: list[tuple[StorySource, dict[str, Any], Any]], words: Words, lexicon: Lexicon
) -> None:
    """What a mail tells a player to write (quoted «so») is a keyword, blank or a name."""
    quoted: set[str] = set()
    for source, context, mail in mails:
        names = sample_names(context, RULESET, LANGUAGE)
        for phrase in QUOTED.findall(mail.text):
            assert parser_reads(lexicon, phrase, names), f"{source.origin} asks for «{phrase}»"
            for keyword in PHRASES:  # a keyword of two words first: «fake red»
                if phrase_key(phrase).startswith(keyword):
                    quoted.add(keyword)
                    phrase = phrase_key(phrase)[len(keyword) :]
            quoted.update(phrase_key(word) for word in phrase.split())
    for code, text in words.errors.items():
        for phrase in QUOTED.findall(text):
            assert parser_reads(lexicon, phrase, set()), f"[errors] {code} asks for «{phrase}»"
    assert {"blank", "kill", "insure", "arrest", "protect", "fake red", "hunt", "request"} <= quoted


def test_the_step_mail_says_exactly_what_to_write(renderer: Renderer, lexicon: Lexicon) -> None:
    helpers = pack_helpers(RULESET, LANGUAGE)
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "step")
        kinds: set[str] = set()
        for number, context in enumerate(mail_samples(key)):
            mail = renderer.render_mail(key, context, number)
            quoted = QUOTED.findall(mail.text)
            assert "Wednesday 18 November at 09:00 (UTC)" in mail.text
            # the running roster follows the signature (stories/layout.py)
            assert mail.text.partition("\n-- \n")[0].rstrip().endswith(SIGNATURES[theme])
            assert mail.text.startswith(
                ("Good evening, ", "Good morning, ", "Evening, ", "Morning, ", "Hello, ")
            )
            for action in context["actions"]:
                kinds.add(action.kind)
                assert all(helpers.choice(name) in mail.text for name in action.choices)
                word = action.keyword.replace("_", " ") if action.keyword else ""
                if not_yet(action):
                    assert "a shot sent now is refused" in mail.text
                    continue
                if action.max == 0:
                    assert (word or action.kind) in quoted
                    continue
                if action.keyword:
                    assert any(q.startswith(word + " ") for q in quoted), (action, quoted)
                if action.blanco:
                    assert f"{word} blank".strip() in quoted
        assert {"vote", "vertical", "hunt", "kill", "heal", "check", "arrest", "track"} <= kinds


def test_every_mail_greets_and_signs(mails: list[tuple[StorySource, dict[str, Any], Any]]) -> None:
    """One narrator's voice per theme: a greeting first, the theme's signature last."""
    for source, _context, mail in mails:
        theme = source.key.theme
        if theme not in THEMES:
            continue
        signed = mail.text.partition("\n-- \n")[0].rstrip()  # before the running roster
        assert signed.endswith(SIGNATURES[theme]), (source.origin, mail.text)
        first = mail.text.strip().splitlines()[0]
        assert first.endswith((",", ".")) and len(first.split()) <= 6, (source.origin, first)


def test_no_subject_names_a_role_or_repeats_itself(
    mails: list[tuple[StorySource, dict[str, Any], Any]], words: Words
) -> None:
    """A subject shows in notifications and mail lists, where anybody may read it."""
    role_words = {
        phrase_key(w)
        for r in words.roles.values()
        for form in (r.name, r.plural)
        for w in form.split()
    } - {"of", "the"}
    checked = 0
    for source, _context, mail in mails:
        said = [phrase_key(w) for w in re.findall(r"\w+", mail.subject)]
        assert not set(said) & role_words, f"{source.origin}: {mail.subject!r}"
        long_words = [w for w in said if len(w) > 3]
        assert len(long_words) == len(set(long_words)), f"{source.origin}: {mail.subject!r}"
        checked += 1
    assert checked > 2000


def test_the_samples_of_each_mail_kind_read_well(renderer: Renderer) -> None:
    """A look at one rendered sample of each mail kind, in each theme."""
    seen: dict[str, str] = {}
    for theme in THEMES:
        for mail in (m for m in MAIL_TYPES if m not in OPTIONAL_MAILS or m in OWN_OPTIONAL):
            key = StoryKey(RULESET, LANGUAGE, theme, mail)
            context = next(iter(mail_samples(key)))
            rendered = renderer.render_mail(key, context, 1)
            assert rendered.subject and rendered.text.strip()
            seen[f"{theme}/{mail}"] = rendered.text
    assert "I have you down as Anna, a woman." in seen["mafia/signup_confirmed"]
    assert "Port Carrow" in seen["mafia/role"] and "Steppe Express" in seen["express/role"]
    assert "You are a Citizen." in seen["mafia/role"]
    assert "Who was who:" in seen["express/game_over"]
    assert "- Anna: a Citizen by day and a Mafioso by night" in seen["express/game_over"]
    assert "Noted: a blank vote." in seen["mafia/receipt"]
    assert "Nothing of that kind is asked of you" in seen["mafia/error"] or seen["mafia/error"]
    assert "asks for help" in seen["mafia/help_forward"]
    assert "is with the admins" in seen["mafia/help_received"]
    assert seen["express/help_received"].rstrip().endswith("The Steppe Express")
    assert "The deal:" in seen["mafia/epilogue"] and "Everybody," in seen["mafia/epilogue"]


@pytest.mark.parametrize("theme", THEMES)
def test_the_epilogue_tells_every_event_type_naming_its_players(
    renderer: Renderer, theme: str
) -> None:
    """One chapter with one event of each type: a line (two for a vote) for each, naming its
    players; the deal with every role, composite ones in full."""
    key = StoryKey(RULESET, LANGUAGE, theme, "epilogue")
    context, events = epilogue_of_every_event(key)
    text = renderer.render_mail(key, context, 1).text
    players = {p.name for p in sample_players(RULESET)}
    for event, told in epilogue_lines_of(text, events):
        assert told.startswith("- ") and len(told) > 12, (event, told)
        for name in players_of(event, players):
            assert name in told, (event, told)
    assert "- Anna: a Citizen by day and a Mafioso by night" in text
    assert text.rstrip().endswith(SIGNATURES[theme])


def test_a_day_vote_is_told_voter_by_voter(renderer: Renderer) -> None:
    event = {
        "type": "lynch",
        "player": "Anna",
        "players": ["Anna"],
        "totals": {"Anna": 3, "Bram": 1},
        "ballots": {"Bram": "Anna", "Carla": "Anna", "Frank": "Anna", "Anna": "Bram"},
        "auto": ["Frank"],
    }
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "lynch")
        for seed in range(6):
            context = {"game": _game(theme, "lynch"), "players": CAST, "recipient": "Bram"}
            text = renderer.render_event(key, context, event, seed)
            for line in (
                "- Bram → Anna",
                "- Carla → Anna",
                "- Anna → Bram",
                "Totals: Anna 3, Bram 1.",
            ):
                assert line in text, (theme, seed, text)
            assert "- Frank → Anna (no vote sent: counted against himself)" in text


def test_the_election_is_told_voter_by_voter(renderer: Renderer) -> None:
    """The narrator adds the election's `votes` to `mayor` and `no_mayor` (samples.toml)."""
    votes = {"Bram": ["Anna"], "Carla": ["Anna"], "Anna": []}
    for theme in THEMES:
        for kind, event in (
            ("mayor", {"type": "mayor", "player": "Anna", "via": "election", "votes": votes}),
            ("no_mayor", {"type": "no_mayor", "votes": {"Anna": [], "Bram": []}}),
        ):
            key = StoryKey(RULESET, LANGUAGE, theme, kind)
            for seed in range(6):
                context = {"game": _game(theme, "election"), "players": CAST, "recipient": None}
                text = renderer.render_event(key, context, event, seed)
                assert "- Anna → blank" in text, (theme, kind, text)
                if kind == "mayor":
                    assert "- Bram → Anna" in text and "- Carla → Anna" in text


def test_a_death_tells_the_roles_it_reveals(renderer: Renderer) -> None:
    night = {"type": "death", "player": "Bram", "cause": None, "revealed": {"role": "doctor"}}
    day = {
        "type": "death",
        "player": "Anna",
        "cause": "lynch",
        "revealed": {"role": "doctor", "negative": "mafia", "team": "black"},
    }
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "death")
        for seed in range(6):
            context = {"game": _game(theme, "night"), "players": CAST, "recipient": None}
            text = renderer.render_event(key, context, night, seed)
            assert "a Doctor" in text and "Mafia" not in text
            text = renderer.render_event(key, {**context, "game": _game(theme, "lynch")}, day, seed)
            assert "a Doctor by day, and by night a Mafioso: one of the blacks" in text


def test_a_death_by_the_detonator_is_told_as_the_blast_not_a_last_word(renderer: Renderer) -> None:
    """docs/rules/mafia.md ruling 83: both deaths of a detonation are lynch deaths via the
    Terrorist; the main variant tells the blast (the Terrorist's own or his target's)."""
    own = {
        "type": "death",
        "player": "Bram",
        "cause": "lynch",
        "revealed": {"role": "terrorist", "team": "red"},
        "via": "terrorist",
    }
    target = {**own, "player": "Anna", "revealed": {"role": "citizen", "team": "black"}}
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "death")
        context = {"game": _game(theme, "vote_moves"), "players": CAST, "recipient": None}
        for seed in range(6):
            for event in (own, target):
                text = renderer.render_event(key, context, event, seed)
                assert "last word" not in text, text
        main = renderer.variants(key)[0]  # death.j2
        told = [
            renderer.render_source_event(main, context, Event.from_dict(e, RULESET), Random(0))
            for e in (own, target)
        ]
        assert "his own detonator" in told[0] and "blast of the Terrorist's detonator" in told[1]


def test_a_dead_secretary_is_mourned_not_shown_walking_out(renderer: Renderer) -> None:
    """A Secretary who lost the post by dying does not walk out of the town hall, nor is told
    that he has no shield from now on; a Secretary whose Mayor fell is not told of the Mayor
    with the Secretary's pronoun."""
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "secretary_lost")
        context = {"game": _game(theme, "vote_moves"), "players": CAST, "recipient": None}
        for source in renderer.variants(key):
            for reason in ("dead", "mayor_lost"):
                event = Event.from_dict(
                    {"type": "secretary_lost", "player": "Anna", "reason": reason}, RULESET
                )
                text = renderer.render_source_event(source, context, event, Random(0))
                if reason == "dead":
                    assert "walking out" not in text and "no shield" not in text, (source, text)
                else:
                    assert "with her" not in text, (source, text)


def test_the_agents_role_mail_says_a_post_keeps_him_in_the_game(renderer: Renderer) -> None:
    """docs/rules/mafia.md §17.1, ruling 85: he leaves after day 3's vote unless he holds a
    post then, and stays while he holds it."""
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "role")
        context = {
            "game": _game(theme, "election"),
            "players": CAST,
            "recipient": "Anna",
            "player": "Anna",
            "role": "agent",
            "team": "",
            "mates": [],
            "announced": [],
            "facts": {},
        }
        text = " ".join(renderer.render_mail(key, context, 1).text.split())
        assert "you leave after the third day's vote, unless you hold the Mayor's" in text, text
        assert "you stay while you hold it" in text, text


# --- a private event reaches its audience only ----------------------------------------------

CAST = [
    Player("Anna", "vrouw"),
    Player("Bram", "man"),
    Player("Carla", "vrouw"),
    Player("Dirk", "man", alive=False),
    Player("Eva", "vrouw", alive=False),
    Player("Frank", "man"),
]


def _game(theme: str, step: str) -> Game:
    return Game(
        name="MF1",
        ruleset=RULESET,
        language=LANGUAGE,
        theme=theme,
        step=step,
        phase="night" if step == "night" else "day",
        night=2,
        day=2,
    )


PUBLIC_EVENTS: list[dict[str, Any]] = [
    {"type": "death", "player": "Dirk", "cause": None, "revealed": {"role": "doctor"}},
    {"type": "public_result", "role": "doctor", "result": "miss"},
]
PRIVATE_EVENTS: list[dict[str, Any]] = [
    {
        "type": "check",
        "player": "Bram",
        "role": "commissar",
        "target": "Anna",
        "result": "passed",
        "colour": "black",
        "false_black": None,
        "shown": None,
    },
    {"type": "heal", "player": "Carla", "targets": ["Frank"], "result": "hit", "saved": ["Frank"]},
    {
        "type": "victim_team",
        "player": "Anna",
        "target": "Dirk",
        "team": "red",
        "partners": ["Frank"],
    },
    {
        "type": "track",
        "player": "Frank",
        "target": "Carla",
        "result": "went",
        "went_to": ["Bram"],
        "team": None,
        "visitors": [],
        "blackened": None,
        "shown": None,
    },
    {
        "type": "role_change",
        "player": "Carla",
        "role": "doctor",
        "from": "Dirk",
        "history": [],
        "previous": "active_citizen",
    },
    {"type": "attacked", "player": "Anna"},
    {"type": "inactive", "player": "Bram", "missed": 1},
    {"type": "rejected", "player": "Anna", "reason": "dead"},
]


def _audience(event: dict[str, Any]) -> list[str]:
    return [event["player"], *event.get("partners", ())]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("theme", THEMES)
def test_a_private_event_is_told_to_its_audience_only(
    renderer: Renderer, theme: str, seed: int
) -> None:
    key = StoryKey(RULESET, LANGUAGE, theme, "night_result")
    public_events = [{**e, "audience": "public"} for e in PUBLIC_EVENTS]
    private_events = [{**e, "audience": _audience(e)} for e in PRIVATE_EVENTS]
    for recipient in (None, *(p.name for p in CAST)):
        context = {"game": _game(theme, "night"), "players": CAST, "recipient": recipient}
        told = renderer.render_story(key, context, public_events + private_events, seed)
        public = renderer.render_story(key, context, public_events, seed)
        assert told is not None and public is not None
        mine = [e for e in private_events if recipient in e["audience"]]
        if not mine:
            assert told.text == public.text, recipient
            continue
        assert told.text != public.text
        for event in private_events:
            if recipient in event["audience"]:
                continue
            index = private_events.index(event) + len(public_events)
            fragment = renderer.render_event(key, context, event, f"{seed}|{index}")
            assert fragment.strip().splitlines()[0] not in told.text, (recipient, event)


# --- the scenarios' games, every event told ---------------------------------------------------

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / RULESET


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_event_of_the_scenarios_is_told(
    renderer: Renderer, schema: Mapping[str, Mapping[str, Any]], path: Path
) -> None:
    """The engine's own events (every shape the rules emit) render, to the player and to
    nobody in particular, in both themes; a night death is told without its cause."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    rules = get_ruleset(RULESET)
    lines = run_scenario(data, until_end=True).lines
    players = [Player(name) for name in data["players"]]
    causes = load_words(RULESET, LANGUAGE).causes
    told = 0
    for number, line in enumerate(lines[:-1]):
        step = line.get("step")
        phase = "start" if step is None else ("night" if step == "night" else "day")
        for theme in THEMES:
            key = StoryKey(RULESET, LANGUAGE, theme, "night_result")
            game = Game(
                name="MF2",
                ruleset=RULESET,
                language=LANGUAGE,
                theme=theme,
                step=step,
                phase=phase,
                night=line["night"],
                day=line["day"],
            )
            for event in line["events"]:
                if event["type"] == "role":
                    continue  # the role mail tells it
                if event["type"] == "death" and "team" not in event["revealed"]:
                    event = {**event, "cause": None}  # as told (rules: as_told)
                subject = event.get("player")
                told_event = Event.from_dict(event, RULESET, schema)  # once for both recipients
                for recipient in (None, subject):
                    context = {"game": game, "players": players, "recipient": recipient}
                    text = renderer.render_event(key, context, told_event, number)
                    assert text.strip(), event
                    if event["type"] == "death" and event["cause"] is None:
                        assert not any(words in text for words in causes.values()), text
                    told += 1
    assert lines[-1]["end"] is True or told >= 2
    assert rules.id == RULESET
