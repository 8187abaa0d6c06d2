"""The Italian pack of Lupus (stories/lupus): every key renders with every sample, every word a
mail tells a player to write is one the parser reads, no subject names a role, and a private
event reaches nobody but its audience."""

from __future__ import annotations

import random
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from narrator.service.words import lexicon_for
from parsing.lexicon import Lexicon, phrase_key
from rules import get_ruleset
from rules.scenario import run_scenario
from stories import FileStore, Game, MemoryStore, Player, Renderer, StoryKey, check_store
from stories.keys import events_of, keys_of
from stories.samples import event_samples, mail_samples
from stories.store import StorySource
from stories.words import Words, load_words

RULESET, LANGUAGE, THEME = "lupus", "it", "lupus"
#: How a mail of the pack quotes what the player is to write: «nessuno», «sindaco Anna».
QUOTED = re.compile(r"«([^«»]+)»")
#: The events every player may learn (docs/rules/lupus.md §9, §13); the others are private.
PUBLIC = {"resurrected", "death", "election", "mayor", "lynch", "defeat", "exile", "win"}


@pytest.fixture(scope="module")
def words() -> Words:
    return load_words(RULESET, LANGUAGE)


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return lexicon_for(RULESET, LANGUAGE)


@pytest.fixture(scope="module")
def sources() -> list[StorySource]:
    return [s for s in FileStore().all() if s.key.ruleset == RULESET]


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(FileStore())


@pytest.fixture(scope="module")
def mails(
    renderer: Renderer, sources: list[StorySource]
) -> list[tuple[StorySource, dict[str, Any], Any]]:
    """(source, sample context, RenderedMail) for every mail template and every sample."""
    return list(_rendered_mails(renderer, sources))


def _rendered_mails(
    renderer: Renderer, sources: list[StorySource]
) -> Iterator[tuple[StorySource, dict[str, Any], Any]]:
    for source in sources:
        if not source.key.is_mail:
            continue
        for number, context in enumerate(mail_samples(source.key)):
            rng = random.Random(number)
            yield source, context, renderer.render_source_mail(source, context, rng)


def _names(context: dict[str, Any]) -> set[str]:
    """The player names a sample mail may ask for: the cast and every action's choices."""
    found = {str(getattr(p, "name", p)) for p in context.get("players", ())}
    actions = [*context.get("actions", ()), context.get("action")]
    for action in actions:
        if action is None:
            continue
        choices = action.choices if hasattr(action, "choices") else action.get("choices", ())
        found.update(choices)
    player = context.get("player")
    if player is not None:
        found.add(str(getattr(player, "name", player)))
    return {phrase_key(name) for name in found}


def _readable(lexicon: Lexicon, word: str, names: set[str]) -> bool:
    """Whether the parser reads `word`: a keyword, a blank word, a gender, Help, or a name."""
    key = phrase_key(word)
    return (
        key in lexicon.keywords
        or key in lexicon.blanco_words
        or key in lexicon.genders
        or key in lexicon.help_words
        or key in names
    )


def test_the_pack_passes_stories_check(sources: list[StorySource]) -> None:
    report = check_store(MemoryStore(sources))
    assert report.problems == []
    assert report.renders > 2000


def test_every_key_has_a_template_and_every_event_two_variants() -> None:
    store = FileStore()
    missing = [
        event
        for event in keys_of(RULESET)
        if not store.variants(StoryKey(RULESET, LANGUAGE, THEME, event))
        and not store.variants(StoryKey(RULESET, LANGUAGE, "_base", event))
    ]
    assert missing == []
    few = [
        event
        for event in events_of(RULESET)
        if event != "role"  # the role event is told by the role mail
        and len(store.variants(StoryKey(RULESET, LANGUAGE, THEME, event))) < 2
    ]
    assert few == []


def test_every_event_renders_with_every_sample(
    renderer: Renderer, sources: list[StorySource]
) -> None:
    renders = 0
    for source in sources:
        if source.key.is_mail or source.key.is_partial:
            continue
        for number, (context, event) in enumerate(event_samples(source.key)):
            text = renderer.render_event(source.key, context, event, number)
            assert text.strip(), (source.origin, context["recipient"], event)
            renders += 1
    assert renders > 500


def test_the_parser_words_are_the_rules_and_the_spec(words: Words, lexicon: Lexicon) -> None:
    assert set(words.keywords) == set(get_ruleset(RULESET).keywords)
    for keyword in get_ruleset(RULESET).keywords:
        assert lexicon.keywords[keyword] == keyword
    assert lexicon.keywords["mayor"] == "sindaco" and lexicon.keywords["vision"] == "visione"
    assert "nessuno" in lexicon.blanco_words and "astengo" in lexicon.blanco_words
    assert "bianca" not in lexicon.blanco_words  # an aura, not a blank vote
    assert lexicon.genders["uomo"] == "man" and lexicon.genders["donna"] == "vrouw"
    assert {"aiuto", "help"} <= lexicon.help_words
    assert {"inviato", "scritto", "iphone", "ciao", "grazie", "voto"} <= lexicon.stop_words
    # A common Italian first name is never a stop word.
    assert not {"alice", "rosa", "franco", "vera", "virgilio"} & set(
        map(phrase_key, words.stop_words)
    )


def test_every_quoted_word_of_a_mail_is_one_the_parser_reads(
    mails: list[tuple[StorySource, dict[str, Any], Any]], words: Words, lexicon: Lexicon
) -> None:
    """What a mail tells a player to write (quoted «so») is a keyword, nessuno or a name."""
    quoted: set[str] = set()
    for source, context, mail in mails:
        names = _names(context)
        for phrase in QUOTED.findall(mail.text):
            for word in phrase.split():
                assert _readable(lexicon, word, names), f"{source.origin} asks for «{phrase}»"
                quoted.add(phrase_key(word))
    for code, text in words.errors.items():
        for phrase in QUOTED.findall(text):
            for word in phrase.split():
                assert _readable(lexicon, word, set()), f"[errors] {code} asks for «{phrase}»"
    assert {"nessuno", "sindaco", "successore", "visione", "morte"} <= quoted


def test_the_step_mail_says_exactly_what_to_write(renderer: Renderer, lexicon: Lexicon) -> None:
    key = StoryKey(RULESET, LANGUAGE, THEME, "step")
    kinds: set[str] = set()
    for number, context in enumerate(mail_samples(key)):
        mail = renderer.render_mail(key, context, number)
        quoted = QUOTED.findall(mail.text)
        assert "mercoledì 18 novembre alle 09:00" in mail.text
        assert mail.text.partition("\n-- \n")[0].rstrip().endswith("Il Narratore")
        for action in context["actions"]:
            kinds.add(action.kind)
            assert all(name in mail.text for name in action.choices)
            if action.keyword:
                assert f"{action.keyword} nessuno" in quoted
                assert any(
                    q.split()[0] == action.keyword and phrase_key(q.split()[1]) != "nessuno"
                    for q in quoted
                )
            else:
                assert "nessuno" in quoted
            if action.kind == "negromante":
                for power in action.extra["powers"]:
                    assert power in quoted
                assert any(len(q.split()) == 2 and q.split()[1] in lexicon.keywords for q in quoted)
            if action.max == 2:
                assert any(len(q.split()) == 2 for q in quoted)
    assert {"rogo", "sindaco", "successore", "negromante", "confusione", "lupo"} <= kinds


def test_no_subject_names_a_role(
    mails: list[tuple[StorySource, dict[str, Any], Any]], words: Words
) -> None:
    """A subject shows in notifications and mail lists, where anybody may read it."""
    role_words = {
        phrase_key(form) for role in words.roles.values() for form in (role.name, role.plural)
    }
    role_words |= {phrase_key(w) for r in words.roles.values() for w in r.name.split()} - {
        "del",
        "corpo",
        "cimitero",
    }
    checked = 0
    for source, _context, mail in mails:
        subject = {phrase_key(w) for w in re.findall(r"\w+", mail.subject)}
        assert not subject & role_words, f"{source.origin}: {mail.subject!r}"
        checked += 1
    assert checked > 1000


# --- a private event reaches its audience only ----------------------------------------------

CAST = [
    Player("Anna", "vrouw"),
    Player("Bram", "man"),
    Player("Carla", "vrouw"),
    Player("Dirk", "man", alive=False),
    Player("Eva", "vrouw", alive=False),
    Player("Frank", "man"),
]
PUBLIC_EVENTS: list[dict[str, Any]] = [
    {"type": "death", "player": "Dirk", "cause": "lupi", "audience": "public"},
    {"type": "mayor", "player": "Frank", "via": "draw", "audience": "public"},
]
PRIVATE_EVENTS: list[dict[str, Any]] = [
    {"type": "aura", "player": "Bram", "target": "Anna", "aura": "nera", "audience": ["Bram"]},
    {
        "type": "seen",
        "player": "Anna",
        "target": "Carla",
        "role": "negromante",
        "audience": ["Anna"],
    },
    {"type": "mystic", "player": "Carla", "target": "Bram", "value": True, "audience": ["Carla"]},
    {
        "type": "knows",
        "player": "Anna",
        "target": "Frank",
        "role": "lupo",
        "power": None,
        "audience": ["Anna"],
    },
    {
        "type": "propositions",
        "player": "Carla",
        "statements": [
            ["Anna", "lupo"],
            ["Bram", "veggente"],
            ["Frank", "medium"],
            ["Anna", "mago"],
        ],
        "audience": ["Carla"],
    },
    {
        "type": "outcome",
        "player": "Bram",
        "power": "veggente",
        "success": True,
        "audience": ["Bram"],
    },
    {"type": "visitors", "player": "Frank", "target": "Bram", "count": 2, "audience": ["Frank"]},
    {
        "type": "tracked",
        "player": "Anna",
        "target": "Bram",
        "visited": ["Carla"],
        "audience": ["Anna"],
    },
    {
        "type": "watched",
        "player": "Carla",
        "target": "Anna",
        "visitors": ["Bram"],
        "audience": ["Carla"],
    },
    {
        "type": "ghost",
        "player": "Eva",
        "power": "visione",
        "via": "negromanti",
        "audience": ["Eva"],
    },
    {
        "type": "role_change",
        "player": "Frank",
        "role": "negromante",
        "previous": "mago",
        "audience": ["Frank"],
    },
    {"type": "inactive", "player": "Bram", "missed": 1, "audience": ["Bram"]},
    {"type": "rejected", "player": "Anna", "reason": "target-dead", "audience": ["Anna"]},
    {
        "type": "knows",
        "player": "Frank",
        "target": "Eva",
        "role": None,
        "power": "corruzione",
        "audience": ["Frank"],
    },
]


@pytest.mark.parametrize("seed", range(6))
def test_a_private_event_is_told_to_its_audience_only(renderer: Renderer, seed: int) -> None:
    assert {e["type"] for e in PRIVATE_EVENTS} | PUBLIC >= set(events_of(RULESET)) - {"role"}
    assert not {e["type"] for e in PRIVATE_EVENTS} & PUBLIC
    key = StoryKey(RULESET, LANGUAGE, THEME, "night_result")
    game = Game(
        name="LU1",
        ruleset=RULESET,
        language=LANGUAGE,
        theme=THEME,
        step="notte",
        phase="night",
        night=2,
        day=1,
    )
    for recipient in (None, *(p.name for p in CAST)):
        context = {"game": game, "players": CAST, "recipient": recipient}
        told = renderer.render_story(key, context, PUBLIC_EVENTS + PRIVATE_EVENTS, seed)
        public = renderer.render_story(key, context, PUBLIC_EVENTS, seed)
        assert told is not None and public is not None
        mine = [e for e in PRIVATE_EVENTS if recipient in e["audience"]]
        if not mine:
            assert told.text == public.text, recipient
            continue
        assert told.text != public.text
        for event in mine:
            fragment = renderer.render_event(
                key, context, event, f"{seed}|{PRIVATE_EVENTS.index(event) + len(PUBLIC_EVENTS)}"
            )
            assert fragment.strip().splitlines()[0] in told.text, (recipient, event["type"])
        for event in PRIVATE_EVENTS:
            if recipient in event["audience"]:
                continue
            index = PRIVATE_EVENTS.index(event) + len(PUBLIC_EVENTS)
            for who in (recipient, event["player"]):
                fragment = renderer.render_event(
                    key, {**context, "recipient": who}, event, f"{seed}|{index}"
                )
                assert fragment.strip().splitlines()[0] not in told.text, (recipient, event)


# --- the scenarios' games, every event told ---------------------------------------------------

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / RULESET


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_event_of_the_scenarios_is_told(renderer: Renderer, path: Path) -> None:
    """The engine's own events (every shape the rules emit) render, to the player and to
    nobody in particular; the public ones never say a night death's cause."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = run_scenario(data, until_end=True).lines
    players = [Player(name) for name in data["players"]]
    key = StoryKey(RULESET, LANGUAGE, THEME, "night_result")
    causes = load_words(RULESET, LANGUAGE).causes
    told = 0
    for number, line in enumerate(lines[:-1]):
        step = line.get("step")
        phase = {"notte": "night", "giorno": "day"}.get(str(step), "start")
        game = Game(
            name="LU2",
            ruleset=RULESET,
            language=LANGUAGE,
            theme=THEME,
            step=step,
            phase=phase,
            night=line["night"],
            day=line["day"],
        )
        for event in line["events"]:
            if event["type"] == "role":
                continue  # the role mail tells it
            subject = event.get("player")
            for recipient in (None, subject):
                context = {"game": game, "players": players, "recipient": recipient}
                for seed in (number, number + 1):
                    text = renderer.render_event(key, context, event, seed)
                    assert text.strip(), event
                    if event["type"] == "death":
                        assert not any(words in text for words in causes.values()), text
                told += 1
    assert lines[-1]["end"] is True and told >= 2
