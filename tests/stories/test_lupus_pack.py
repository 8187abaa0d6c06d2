"""The packs of Lupus (stories/lupus: Italian and English, themes lupus and laguna): every key
renders with every sample, every word a mail tells a player to write is one the parser reads, no
subject names a role, a dawn mail reads as the morning and a dusk mail as the evening, a public
event has three variants in every theme, and a private event reaches nobody but its audience."""

from __future__ import annotations

import random
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

import pytest

from parsing.lexicon import Lexicon, phrase_key
from rules import get_ruleset
from rules.scenario import run_scenario
from stories import (
    CheckReport,
    Event,
    FileStore,
    Game,
    Player,
    Renderer,
    StoryKey,
)
from stories.context import event_schema
from stories.keys import OPTIONAL_MAILS, events_of, keys_of
from stories.lexicon import lexicon_for
from stories.samples import mail_samples
from stories.store import StorySource
from stories.words import Words, languages_of, load_words
from tests.support.bymail import above_roster
from tests.support.packs import (
    pack_sources,
    parser_reads,
    render_every_event,
    rendered_mails,
    sample_names,
)
from tests.support.shipped import SHIPPED_RENDERER

RULESET = "lupus"
#: Every shipped (language, theme) of the ruleset: the same two themes in both languages.
PACKS = [("it", "lupus"), ("it", "laguna"), ("en", "lupus"), ("en", "laguna")]
LANGUAGES = ("it", "en")
#: How a mail of each language quotes what the player is to write: «nessuno», “mayor Anna”.
QUOTES = {"it": re.compile(r"«([^«»]+)»"), "en": re.compile(r"“([^“”]+)”")}
#: The blank word each language's mails ask for.
BLANK = {"it": "nessuno", "en": "nobody"}
#: How each pack signs its mails, and how each language writes the sample deadline.
SIGNED = {
    ("it", "lupus"): "Il Narratore",
    ("it", "laguna"): "Il Cronista di Malombra",
    ("en", "lupus"): "The Narrator",
    ("en", "laguna"): "The Chronicler of Malombra",
}
DEADLINE = {"it": "mercoledì 18 novembre alle 09:00", "en": "Wednesday 18 November at 09:00"}
#: Words of a role's name that are also plain words of a subject (Guardia del corpo, …).
COMMON = {"it": {"del", "corpo", "cimitero"}, "en": set()}
#: The events every player may learn (docs/rules/lupus.md §9, §13); the others are private.
PUBLIC = {
    "resurrected",
    "death",
    "election",
    "mayor",
    "lynch",
    "defeat",
    "exile",
    "removed",
    "win",
}


def pack_id(pack: tuple[str, str]) -> str:
    return "/".join(pack)


@pytest.fixture(scope="module", params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def words(language: str) -> Words:
    return load_words(RULESET, language)


@pytest.fixture(scope="module")
def lexicon(language: str) -> Lexicon:
    return lexicon_for(RULESET, language)


@pytest.fixture(scope="module")
def sources() -> list[StorySource]:
    return pack_sources(RULESET)


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
    renderer: Renderer, sources: list[StorySource], language: str
) -> list[tuple[StorySource, dict[str, Any], Any]]:
    """(source, sample context, RenderedMail) for every mail template of `language` and every
    sample."""
    mine = [s for s in sources if s.key.language == language]
    return list(rendered_mails(renderer, mine))


def test_the_pack_passes_stories_check(
    shipped_check: CheckReport, sources: list[StorySource]
) -> None:
    """The check of every shipped pack (`stories check --files`, made once per run:
    tests/stories/conftest.py) covers these packs in both languages, and finds no problem."""
    assert {language for language, _ in PACKS} <= set(languages_of(RULESET))
    assert {(s.key.language, s.key.theme) for s in sources} >= set(PACKS)
    assert shipped_check.templates == len(FileStore().all())
    assert shipped_check.problems == []
    assert shipped_check.renders > 2000 * len(PACKS)


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
def test_every_key_has_a_template_and_every_public_event_three_variants(
    pack: tuple[str, str],
) -> None:
    """Each theme tells every event and mail itself (only the admins' help_forward, and in the
    main theme the error and help_received mails, come from _base, whose signature is the main
    theme's); a public event has three variants in every theme, a private one two.  The
    optional help_received and epilogue are required here: every lupus pack answers a Help
    mail and tells the whole game at the end."""
    language, theme = pack
    store = FileStore()
    keys = (*keys_of(RULESET), *sorted(OPTIONAL_MAILS))
    missing = [
        event
        for event in keys
        if not store.variants(StoryKey(RULESET, language, theme, event))
        and not store.variants(StoryKey(RULESET, language, "_base", event))
    ]
    assert missing == []
    shared = {"role", "help_forward", "help_digest"} | (
        {"error", "help_received"} if theme == RULESET else set()
    )
    own = [
        event
        for event in keys
        if event not in shared and not store.variants(StoryKey(RULESET, language, theme, event))
    ]
    assert own == []
    few = [
        event
        for event in events_of(RULESET)
        if event != "role"  # the role event is told by the role mail
        and len(store.variants(StoryKey(RULESET, language, theme, event)))
        < (3 if event in PUBLIC else 2)
    ]
    assert few == []


def test_every_event_renders_with_every_sample(
    renderer: Renderer, sources: list[StorySource]
) -> None:
    assert render_every_event(renderer, sources) > 500


def test_the_parser_words_are_the_rules_and_the_spec() -> None:
    words, lexicon = load_words(RULESET, "it"), lexicon_for(RULESET, "it")
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


def test_the_english_parser_reads_the_english_forms_and_the_italian_keywords() -> None:
    """An English game reads mayor, successor and the English power words, and still every
    Italian keyword of the spec (sindaco, successore, visione, …), nessuno and uomo/donna."""
    words, lexicon = load_words(RULESET, "en"), lexicon_for(RULESET, "en")
    italian = lexicon_for(RULESET, "it")
    assert set(words.keywords) == set(get_ruleset(RULESET).keywords)
    for keyword in get_ruleset(RULESET).keywords:
        assert lexicon.keywords[keyword] == keyword  # the Italian word, as the spec writes it
    english = {
        "mayor": "sindaco",
        "successor": "successore",
        "amnesia": "amnesia",
        "confusion": "confusione",
        "corruption": "corruzione",
        "illusion": "illusione",
        "hypnosis": "ipnosi",
        "death": "morte",
        "concealment": "occultamento",
        "vision": "visione",
    }
    for written, keyword in english.items():
        assert lexicon.keywords[written] == keyword
        assert italian.keywords[written] == keyword  # the Italian games take them too
    assert {"nobody", "blank", "abstain", "nessuno"} <= lexicon.blanco_words
    assert "white" not in lexicon.blanco_words  # an aura, not a blank vote
    assert lexicon.genders["man"] == "man" and lexicon.genders["woman"] == "vrouw"
    assert lexicon.genders["uomo"] == "man" and lexicon.genders["donna"] == "vrouw"
    assert {"help", "aiuto"} <= lexicon.help_words
    assert {"wrote", "iphone", "thanks", "vote", "the"} <= lexicon.stop_words
    assert not {"alice", "rosa", "frank", "vera", "anna", "marco"} & set(
        map(phrase_key, words.stop_words)
    )


def test_every_quoted_word_of_a_mail_is_one_the_parser_reads(
    mails: list[tuple[StorySource, dict[str, Any], Any]],
    words: Words,
    lexicon: Lexicon,
    language: str,
) -> None:
    """What a mail tells a player to write (quoted «so» / “so”) is a keyword, the blank word
    or a name."""
    quoted_by = QUOTES[language]
    quoted: set[str] = set()
    for source, context, mail in mails:
        names = sample_names(context, RULESET, language)
        for phrase in quoted_by.findall(mail.text):
            assert parser_reads(lexicon, phrase, names), f"{source.origin} asks for «{phrase}»"
            quoted.update(phrase_key(word) for word in phrase.split())
    for code, text in words.errors.items():
        for phrase in quoted_by.findall(text):
            assert parser_reads(lexicon, phrase, set()), f"[errors] {code} asks for «{phrase}»"
    if language == "it":
        assert {"nessuno", "sindaco", "successore", "visione", "morte"} <= quoted
    else:
        assert {"nobody", "mayor", "successor", "vision", "death"} <= quoted


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
@pytest.mark.parametrize("event", ["step", "reminder"])
def test_the_step_mail_says_exactly_what_to_write(
    renderer: Renderer, pack: tuple[str, str], event: str
) -> None:
    language, theme = pack
    lexicon = lexicon_for(RULESET, language)
    blank = BLANK[language]
    key = StoryKey(RULESET, language, theme, event)
    kinds: set[str] = set()
    for number, context in enumerate(mail_samples(key)):
        mail = renderer.render_mail(key, context, number)
        quoted = QUOTES[language].findall(mail.text)
        assert DEADLINE[language] in mail.text
        assert above_roster(mail.text).rstrip().endswith(SIGNED[pack])
        for action in context["actions"]:
            kinds.add(action.kind)
            assert all(name in mail.text for name in action.choices)
            if action.keyword:
                assert any(
                    len(q.split()) == 2
                    and lexicon.keywords.get(phrase_key(q.split()[0])) == action.keyword
                    and q.split()[1] == blank
                    for q in quoted
                )
                assert any(
                    lexicon.keywords.get(phrase_key(q.split()[0])) == action.keyword
                    and phrase_key(q.split()[-1]) != blank
                    for q in quoted
                )
            else:
                assert blank in quoted
            if action.kind == "negromante":
                told = {lexicon.keywords.get(phrase_key(q)) for q in quoted}
                for power in action.extra["powers"]:
                    assert power in told
                assert any(
                    len(q.split()) == 2 and phrase_key(q.split()[1]) in lexicon.keywords
                    for q in quoted
                )
            if action.max == 2:
                assert any(len(q.split()) == 2 for q in quoted)
    assert {"rogo", "sindaco", "successore", "negromante", "confusione", "lupo"} <= kinds


def test_no_subject_names_a_role_or_repeats_itself(
    mails: list[tuple[StorySource, dict[str, Any], Any]],
    words: Words,
    lexicon: Lexicon,
    language: str,
) -> None:
    """A subject shows in notifications and mail lists, where anybody may read it; a reply
    quotes it, so it holds no keyword or blank word either; and it never says a word twice."""
    role_words = {
        phrase_key(form) for role in words.roles.values() for form in (role.name, role.plural)
    }
    role_words |= {phrase_key(w) for r in words.roles.values() for w in r.name.split()} - COMMON[
        language
    ]
    checked = 0
    for source, _context, mail in mails:
        written = [phrase_key(w) for w in re.findall(r"\w+", mail.subject)]
        subject = set(written)
        assert not subject & role_words, f"{source.origin}: {mail.subject!r}"
        if source.key.event not in ("help_forward", "help_digest"):  # to the admins
            assert not subject & set(lexicon.keywords), f"{source.origin}: {mail.subject!r}"
            assert not subject & set(lexicon.blanco_words), f"{source.origin}: {mail.subject!r}"
            long = [w for w in written if len(w) > 4]
            assert len(long) == len(set(long)), f"{source.origin}: {mail.subject!r}"
        checked += 1
    assert checked > 1000


#: What a mail read in the morning never says, and what one read at night never says.
NOT_AT_DAWN = {
    "it": ("buonasera", "buonanotte", "sogni d'oro"),
    "en": ("good evening", "good night", "goodnight", "sleep well", "sleep tight"),
}
NOT_AT_DUSK = {"it": ("buongiorno", "buon mattino"), "en": ("good morning", "morning,")}


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
def test_a_dawn_mail_reads_as_morning_and_a_dusk_mail_as_evening(
    renderer: Renderer, pack: tuple[str, str]
) -> None:
    """The night's story is read at dawn, the day's at nightfall: every variant greets and
    signs off for its hour, in the theme's voice."""
    language, theme = pack
    for event, banned in (("night_result", NOT_AT_DAWN), ("day_result", NOT_AT_DUSK)):
        key = StoryKey(RULESET, language, theme, event)
        sources = FileStore().variants(key)
        assert sources
        for source in sources:
            for number, context in enumerate(mail_samples(key)):
                mail = renderer.render_source_mail(source, context, random.Random(number))
                text = mail.text.casefold()
                assert not any(word in text for word in banned[language]), (source.origin, text)
                assert above_roster(mail.text).rstrip().endswith(SIGNED[pack]), source.origin


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
def test_every_mail_is_signed_by_the_theme(
    renderer: Renderer, sources: list[StorySource], pack: tuple[str, str]
) -> None:
    for source in sources:
        key = source.key
        if (key.language, key.theme) != pack or not key.is_mail or key.is_partial:
            continue
        for number, context in enumerate(list(mail_samples(key))[:3]):
            mail = renderer.render_source_mail(source, context, random.Random(number))
            assert above_roster(mail.text).rstrip().endswith(SIGNED[pack]), source.origin


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
def test_the_death_names_the_role_only_when_revealed(
    renderer: Renderer, pack: tuple[str, str]
) -> None:
    """Lupus never reveals a role (Ruling 12), but a story told a revealed role names it, and
    one told none names no role; a night death never says how it came."""
    language, theme = pack
    words = load_words(RULESET, language)
    key = StoryKey(RULESET, language, theme, "death")
    game = Game(
        name="LU1",
        ruleset=RULESET,
        language=language,
        theme=theme,
        step="notte",
        phase="night",
        night=2,
        day=1,
    )
    role_names = {r.name for r in words.roles.values()} - {words.roles["sindaco"].name}
    for variant, source in enumerate(FileStore().variants(key)):
        for recipient in (None, "Bram", "Anna"):
            context = {"game": game, "players": CAST, "recipient": recipient}
            for cause in ("lupi", "morte", "rogo"):
                hidden = {"type": "death", "player": "Bram", "cause": cause, "role": None}
                shown = {**hidden, "role": "veggente"}
                seed = f"{variant}|{cause}"
                plain = renderer.render_source_event(
                    source, context, Event.from_dict(hidden, RULESET), random.Random(seed)
                )
                told = renderer.render_source_event(
                    source, context, Event.from_dict(shown, RULESET), random.Random(seed)
                )
                assert "Bram" in plain and "Bram" in told
                assert not any(re.search(rf"\b{re.escape(n)}\b", plain) for n in role_names)
                assert words.roles["veggente"].name in told, (source.origin, told)
                assert not any(c in plain for c in words.causes.values()), plain


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
    {"type": "no_ghost", "player": "Eva", "audience": ["Eva"]},
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


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
@pytest.mark.parametrize("seed", range(3))
def test_a_private_event_is_told_to_its_audience_only(
    renderer: Renderer, seed: int, pack: tuple[str, str]
) -> None:
    assert {e["type"] for e in PRIVATE_EVENTS} | PUBLIC >= set(events_of(RULESET)) - {"role"}
    assert not {e["type"] for e in PRIVATE_EVENTS} & PUBLIC
    language, theme = pack
    key = StoryKey(RULESET, language, theme, "night_result")
    game = Game(
        name="LU1",
        ruleset=RULESET,
        language=language,
        theme=theme,
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
def test_every_event_of_the_scenarios_is_told(
    renderer: Renderer, schema: Mapping[str, Mapping[str, Any]], path: Path
) -> None:
    """The engine's own events (every shape the rules emit) render, to the player and to
    nobody in particular; the public ones never say a night death's cause."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = run_scenario(data, until_end=True).lines
    players = [Player(name) for name in data["players"]]
    told = 0
    for language, theme in PACKS:
        key = StoryKey(RULESET, language, theme, "night_result")
        causes = load_words(RULESET, language).causes
        for number, line in enumerate(lines[:-1]):
            step = line.get("step")
            phase = {"notte": "night", "giorno": "day"}.get(str(step), "start")
            game = Game(
                name="LU2",
                ruleset=RULESET,
                language=language,
                theme=theme,
                step=step,
                phase=phase,
                night=line["night"],
                day=line["day"],
            )
            for event in line["events"]:
                if event["type"] == "role":
                    continue  # the role mail tells it
                subject = event.get("player")
                told_event = Event.from_dict(event, RULESET, schema)  # once for both recipients
                for recipient in (None, subject):
                    context = {"game": game, "players": players, "recipient": recipient}
                    text = renderer.render_event(key, context, told_event, number)
                    assert text.strip(), event
                    if event["type"] == "death":
                        assert not any(words in text for words in causes.values()), text
                    told += 1
    assert lines[-1]["end"] is True and told >= 2


@pytest.mark.parametrize("theme", ["lupus", "laguna"])
def test_every_english_mail_kind_reads_in_english(renderer: Renderer, theme: str) -> None:
    """A rendered sample of each mail kind of an English game: English words (not the pack's
    Italian ones), the role's English name in the role mail, an error's English wording, the
    factions and every role at the end."""
    words = load_words(RULESET, "en")
    italian = re.compile(r"\b(il|della|sei|nessuno|scheda|Narratore|Cronista)\b")
    seen: set[str] = set()
    for event in (*keys_of(RULESET), *sorted(OPTIONAL_MAILS)):
        key = StoryKey(RULESET, "en", theme, event)
        if not key.is_mail or key.is_partial:
            continue
        for number, context in enumerate(list(mail_samples(key))[:12]):
            mail = renderer.render_mail(key, context, number)
            ours = mail.text.replace(str(context.get("message") or ""), "")  # the parser's
            if event == "help_forward":  # the player's own words are quoted as written
                ours = ours.split("The message:")[0] + ours.split("Answer the player")[-1]
            assert mail.subject and not italian.search(ours), (event, mail.text)
            seen.add(event)
            if event == "role":
                role = words.roles[context["role"]]
                assert role.name in mail.text and "Your aura is" in mail.text
            elif event == "error":
                wording = words.error_text(context["code"], {})
                if context.get("message"):
                    wording = context["message"]
                assert wording.split("[")[0][:20] in mail.text, (context["code"], mail.text)
            elif event == "game_over":
                assert all(p.name in mail.text for p in context["players"])
                assert (
                    any(words.teams[t] in mail.text for t in context["teams"])
                    or not (context["teams"])
                )
            elif event == "receipt":
                assert all(name in mail.text for name in context["targets"])
    assert {"role", "step", "receipt", "reminder", "error", "game_over"} <= seen
    assert {"night_result", "day_result", "signup_confirmed", "help_forward"} <= seen
    assert {"help_received", "epilogue"} <= seen


#: One event of every type of the ruleset, as the epilogue's chapters hold them (every field,
#: the narrator's added ones included), with the players each one names.
EVERY_EVENT: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "role": (
        {"player": "Anna", "role": "lupo", "team": "lupi", "mates": ["Bram"]},
        ("Anna", "Bram"),
    ),
    "knows": (
        {"player": "Carla", "target": "Dirk", "role": "negromante", "power": None},
        ("Carla", "Dirk"),
    ),
    "propositions": (
        {
            "player": "Eva",
            "statements": [
                ["Anna", "lupo"],
                ["Bram", "veggente"],
                ["Carla", "mago"],
                ["Frank", "guardia"],
            ],
        },
        ("Eva", "Anna", "Bram", "Carla", "Frank"),
    ),
    "outcome": ({"player": "Frank", "power": "guardia", "success": False}, ("Frank",)),
    "aura": ({"player": "Bram", "target": "Anna", "aura": "nera"}, ("Bram", "Anna")),
    "mystic": ({"player": "Carla", "target": "Eva", "value": True}, ("Carla", "Eva")),
    "seen": ({"player": "Anna", "target": "Bram", "role": "veggente"}, ("Anna", "Bram")),
    "visitors": ({"player": "Frank", "target": "Carla", "count": 2}, ("Frank", "Carla")),
    "tracked": ({"player": "Bram", "target": "Dirk", "visited": ["Eva"]}, ("Bram", "Dirk", "Eva")),
    "watched": (
        {"player": "Eva", "target": "Frank", "visitors": ["Anna", "Carla"]},
        ("Eva", "Frank", "Anna", "Carla"),
    ),
    "ghost": ({"player": "Dirk", "power": "visione", "via": "negromanti"}, ("Dirk",)),
    "no_ghost": ({"player": "Eva"}, ("Eva",)),
    "resurrected": ({"player": "Bram"}, ("Bram",)),
    "role_change": (
        {"player": "Frank", "role": "veggente", "previous": "trasformista"},
        ("Frank",),
    ),
    "death": ({"player": "Carla", "cause": "lupi", "role": "negromante"}, ("Carla",)),
    "election": ({"player": "Eva", "totals": {"Eva": 3, "Anna": 1}}, ("Eva", "Anna")),
    "mayor": ({"player": "Anna", "via": "successor"}, ("Anna",)),
    "lynch": (
        {
            "player": "Bram",
            "totals": {"Bram": 2, "Frank": 1},
            "ballots": {"Anna": "Bram", "Eva": "Bram", "Carla": "Frank"},
            "failed": None,
            "votes": {"Anna": ["Bram"], "Eva": ["Bram"], "Carla": ["Frank"]},
        },
        ("Bram", "Frank", "Anna", "Eva", "Carla"),
    ),
    "defeat": ({"team": "negromanti", "players": ["Carla", "Dirk"]}, ("Carla", "Dirk")),
    "exile": ({"player": "Dirk", "cause": "sconfitta"}, ("Dirk",)),
    "removed": ({"player": "Eva"}, ("Eva",)),
    "inactive": ({"player": "Frank", "missed": 2}, ("Frank",)),
    "rejected": ({"player": "Eva", "reason": "target-dead"}, ("Eva",)),
    "win": ({"teams": ["popolani"], "winners": ["Bram", "Eva"]}, ("Bram", "Eva")),
}
DEALT = {"Anna": "lupo", "Bram": "veggente", "Carla": "negromante", "Dirk": "contadino"}
DEALT |= {"Eva": "divinatore", "Frank": "trasformista"}


def _epilogue(renderer: Renderer, pack: tuple[str, str], chapters: list[dict[str, Any]]) -> str:
    language, theme = pack
    key = StoryKey(RULESET, language, theme, "epilogue")
    game = Game(
        name="LU7", ruleset=RULESET, language=language, theme=theme, step="giorno", phase="day"
    )
    players = [Player(name) for name in DEALT]
    context = {
        "game": game,
        "players": players,
        "recipient": None,
        "chapters": chapters,
        "dealt": DEALT,
        "roles": DEALT | {"Frank": "veggente"},
        "winners": ["Bram", "Eva"],
        "teams": ["popolani"],
    }
    return renderer.render_mail(key, context, 0).text


def _story(text: str) -> list[str]:
    """The lines of the chapters: after the roles dealt, before the thanks."""
    return [line for line in text.splitlines() if line.startswith("- ") and ":" not in line[:12]]


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
def test_the_epilogue_tells_every_event_of_the_ruleset(
    renderer: Renderer, pack: tuple[str, str]
) -> None:
    """A chapter holding one event of each type of the ruleset gets one line per event, and
    each line names the players of its event."""
    assert set(EVERY_EVENT) == set(events_of(RULESET))
    for kind, (fields, named) in EVERY_EVENT.items():
        step = "giorno" if kind in ("election", "lynch", "inactive", "win") else "notte"
        chapter = {"moment": "Notte 2", "step": step, "phase": "night", "votes": []}
        text = _epilogue(renderer, pack, [chapter | {"events": [{"type": kind, **fields}]}])
        lines = [line for line in text.split("Notte 2", 1)[1].splitlines() if line.strip()]
        told = lines[0]
        assert told.startswith("- "), (kind, text)
        assert all(name in told for name in named), (kind, told)
    everything = [{"type": kind, **fields} for kind, (fields, _named) in EVERY_EVENT.items()]
    chapter = {"moment": "Notte 2", "step": "notte", "phase": "night", "votes": []}
    text = _epilogue(renderer, pack, [chapter | {"events": everything}])
    assert "Notte 2" in text and all(name in text for name in DEALT)


class _Vote(TypedDict):
    """One vote of a step as the log stores it (what the epilogue tells)."""

    player: str
    role: str
    targets: list[str]
    keyword: str


@pytest.mark.parametrize("pack", PACKS, ids=pack_id)
def test_the_epilogue_tells_every_vote_of_every_step(
    renderer: Renderer, pack: tuple[str, str]
) -> None:
    """Every night power (each role's, a Negromante's power word, each Spettro's), the Sindaco's
    successor, the election and rogo ballots get their own line naming the voter, his role and
    his names; a power that failed says so, and its outcome is not told twice."""
    from rules.lupus.roles import LUPUS_ROLES
    from rules.lupus.spettri import GHOST_POWERS

    language = pack[0]
    words = load_words(RULESET, language)
    generic = {"it": " scelse ", "en": " chose "}[language]
    ghosts = {f"G{n}": power for n, power in enumerate(sorted(GHOST_POWERS))}
    night: list[_Vote] = [
        {
            "player": role.capitalize(),
            "role": role,
            "targets": ["Anna", "Bram"][: len(spec.power.names)],
            "keyword": "",
        }
        for role, spec in sorted(LUPUS_ROLES.items())
        if spec.power is not None
    ]
    night += [
        {
            "player": name,
            "role": "contadino",
            "targets": ["Carla", "Dirk"][: len(GHOST_POWERS[power].names)],
            "keyword": "",
        }
        for name, power in ghosts.items()
    ]
    night += [
        {"player": "Carla", "role": "negromante", "targets": ["Dirk"], "keyword": "visione"},
        {"player": "Bram", "role": "veggente", "targets": ["Frank"], "keyword": "successore"},
        {"player": "Frank", "role": "trasformista", "targets": [], "keyword": ""},
    ]
    day: list[_Vote] = [
        {"player": "Anna", "role": "lupo", "targets": ["Bram"], "keyword": ""},
        {"player": "Eva", "role": "divinatore", "targets": ["Carla"], "keyword": "sindaco"},
        {"player": "Dirk", "role": "contadino", "targets": [], "keyword": ""},
    ]
    awakened = [
        {"type": "ghost", "player": name, "power": power, "via": "negromanti"}
        for name, power in ghosts.items()
    ]
    failed = {"type": "outcome", "player": "Lupo", "power": "lupo", "success": False}
    chapters = [
        {"moment": "Notte 1", "step": "notte", "phase": "night", "votes": [], "events": awakened},
        {
            "moment": "Notte 2",
            "step": "notte",
            "phase": "night",
            "votes": night,
            "events": [failed],
        },
        {"moment": "Giorno 2", "step": "giorno", "phase": "day", "votes": day, "events": []},
    ]
    text = _epilogue(renderer, pack, chapters)
    story = text.split("Notte 2", 1)[1]
    lines = [line for line in story.splitlines() if line.startswith("- ")]
    assert len(lines) == len(night) + len(day), story
    for vote, line in zip([*night, *day], lines, strict=True):
        assert line.startswith(f"- {vote['player']} ("), line
        assert all(name in line for name in vote["targets"]), (vote, line)
        assert generic not in line, line  # every power has its own words
        if vote["player"] in ghosts:
            assert words.roles["spettro"].name in line, line
        else:
            assert words.roles[vote["role"]].name in line, line
    failure = {"it": "fallì", "en": "failed"}[language]
    assert failure in lines[[v["player"] for v in night].index("Lupo")]
    assert story.count(failure) == 1
