"""The vampiri story packs in both languages and both themes: `stories/vampiri/{it,en}/` with the
themes `vampiri` (Malacorte, told by the Narrator) and `teatro` (an opera company snowed in at
the Teatro del Passo in 1890, told by the Stage Manager).

Every pack passes `stories check`; every theme has every event and mail (three variants of each
public event); a rendered sample of each mail kind says what that mail must say; every word a
mail tells a player to write is one the parser accepts; subjects name no role and repeat no
word; every mail greets and signs off in its theme's voice; the dawn mail never wishes a good
night and the nightfall mail never a good morning; English mails are read in English and in
Italian.  The Italian `vampiri` theme's own checks stay in test_vampiri_pack.py.
"""

from __future__ import annotations

import random
import re
import tomllib
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from rules.scenario import run_scenario
from stories import CheckReport, Event, FileStore, Player, Renderer, StoryKey, load_words
from stories.keys import events_of, keys_of
from stories.lexicon import explainer_for, lexicon_for
from stories.samples import event_samples, mail_samples, sample_players
from stories.store import StorySource
from stories.words import languages_of
from tests.support.bymail import above_roster
from tests.support.packs import tells_nothing_new

RULESET = "vampiri"
PACKS = [("it", "vampiri"), ("it", "teatro"), ("en", "vampiri"), ("en", "teatro")]
PUBLIC_EVENTS = ("execution", "tie", "verdict", "death", "win")
MAILS = (
    "signup_confirmed",
    "role",
    "step",
    "receipt",
    "error",
    "reminder",
    "night_result",
    "day_result",
    "game_over",
    "help_forward",
    "help_received",  # optional (OPTIONAL_MAILS), but every vampiri pack answers a Help mail
    "epilogue",  # optional too, but every vampiri pack tells the whole game at the end
)
#: The optional mails (OPTIONAL_MAILS) every vampiri pack has all the same.
REQUIRED_OPTIONAL = ("help_received", "epilogue", "help_digest")
#: How each theme's narrator greets and signs (help_forward goes to the admins: "Ciao,"/"Hello,").
VOICE = {
    ("it", "vampiri"): (r"(Ciao|Caro|Cara|Benvenut[oa]|A tutta Malacorte)\b", "Il Narratore"),
    ("it", "teatro"): (
        r"(Ciao|Caro|Cara|Benvenut[oa]|A tutta la compagnia)\b",
        "Il Direttore di Scena",
    ),
    ("en", "vampiri"): (r"(Hello|Dear|Welcome|To all of Malacorte)\b", "The Narrator"),
    ("en", "teatro"): (r"(Hello|Dear|Welcome|To the whole company)\b", "The Stage Manager"),
}
#: The marks around a word a mail tells the player to write.
TOLD = {"it": re.compile(r"«([^»]*)»"), "en": re.compile(r"“([^”]*)”")}
#: The keyword words a mail tells (the first written form of each keyword in words.toml).
SAID = {lang: {k: ws[0] for k, ws in load_words(RULESET, lang).keywords.items()} for lang in TOLD}
BLANK = {"it": "nessuno", "en": "nobody"}
_WORD = re.compile(r"\w+")


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@pytest.fixture(scope="module")
def store() -> FileStore:
    return FileStore()


@pytest.fixture(scope="module")
def renderer(store: FileStore) -> Renderer:
    return Renderer(store)


def own_sources(store: FileStore, language: str, theme: str) -> Iterator[StorySource]:
    """The theme's templates and its language's shared ones (no partials)."""
    for source in store.all():
        key = source.key
        own = key.theme in (theme, "_base") and not key.is_partial
        if own and (key.ruleset, key.language) == (RULESET, language):
            yield source


def mail_sources(store: FileStore, language: str, theme: str, mail: str) -> list[StorySource]:
    """Every variant of `mail` in the theme, else in the language's `_base`."""
    for name in (theme, "_base"):
        found = store.variants(StoryKey(RULESET, language, name, mail))
        if found:
            return list(found)
    raise AssertionError(f"no {mail} in {language}/{theme}")


def rendered(
    store: FileStore, renderer: Renderer, language: str, theme: str
) -> Iterator[tuple[StorySource, dict, str, str]]:
    """(source, context, subject, text) of every mail variant of the theme with every sample."""
    for mail in MAILS:
        key = StoryKey(RULESET, language, theme, mail)
        for source in mail_sources(store, language, theme, mail):
            for number, context in enumerate(mail_samples(key)):
                out = renderer.render_source_mail(source, context, random.Random(number))
                yield source, context, out.subject, out.text


Rendered = dict[tuple[str, str], list[tuple[StorySource, dict, str, str]]]


@pytest.fixture(scope="module")
def mails(store: FileStore, renderer: Renderer) -> Rendered:
    """(language, theme) -> :func:`rendered` of every pack, rendered once for the three tests
    that read them (the words a mail tells to write, the subjects, the greetings); they read the
    mails and their sample contexts and never change them."""
    return {
        (language, theme): list(rendered(store, renderer, language, theme))
        for language, theme in PACKS
    }


def test_every_vampiri_pack_passes_stories_check(shipped_check: CheckReport) -> None:
    """In Italian and English (`languages_of`, which the shipped packs' check uses)."""
    assert languages_of(RULESET) == ("en", "it")
    assert [p for p in shipped_check.problems if p.startswith("vampiri/")] == []


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_every_event_and_mail_has_a_story_and_public_events_three(
    store: FileStore, language: str, theme: str
) -> None:
    missing = [
        event
        for event in (*keys_of(RULESET), *REQUIRED_OPTIONAL)
        if not store.variants(StoryKey(RULESET, language, theme, event))
        and not store.variants(StoryKey(RULESET, language, "_base", event))
    ]
    assert missing == []
    # help_digest, the admins' flood digest, is written once per language (in _base).
    mails = {*MAILS, "help_digest"}
    assert mails | set(events_of(RULESET)) == set(keys_of(RULESET)) | set(REQUIRED_OPTIONAL)
    few = {
        event: len(store.variants(StoryKey(RULESET, language, theme, event)))
        for event in (*PUBLIC_EVENTS, "night_result", "day_result")
    }
    assert all(n >= 3 for n in few.values()), few


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_every_event_renders_with_every_sample(
    store: FileStore, renderer: Renderer, language: str, theme: str
) -> None:
    renders = 0
    for source in own_sources(store, language, theme):
        if source.key.is_mail:
            continue
        for number, (context, data) in enumerate(event_samples(source.key)):
            event = Event.from_dict(data, RULESET)
            text = renderer.render_source_event(source, context, event, random.Random(number))
            # a removal's record adds only the role: without one, the notice told it all
            assert bool(text.strip()) != tells_nothing_new(data), f"{source.origin}: {data}"
            renders += 1
    assert renders > 200


def accepted_words(language: str, context: dict) -> set[str]:
    words = load_words(RULESET, language)
    accepted = {fold(w) for written in words.keywords.values() for w in written}
    accepted |= {fold(w) for w in (*words.blanco, *words.help)}
    accepted |= {fold(w) for written in words.genders.values() for w in written}
    accepted |= {fold(p.name) for p in sample_players(RULESET)}
    if context.get("game") is not None:
        accepted.add(fold(context["game"].name))
    return accepted


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_every_word_a_mail_tells_to_write_is_accepted(
    mails: Rendered, language: str, theme: str
) -> None:
    told = 0
    for source, context, _subject, text in mails[(language, theme)]:
        allowed = accepted_words(language, context)
        for phrase in TOLD[language].findall(text):
            for word in _WORD.findall(phrase):
                told += 1
                assert fold(word) in allowed, f"{source.origin}: {phrase!r} is not accepted"
    assert told > 300


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_step_mails_say_what_to_write(renderer: Renderer, language: str, theme: str) -> None:
    key = StoryKey(RULESET, language, theme, "step")
    marks = TOLD[language].pattern[0], TOLD[language].pattern[4]
    for number, context in enumerate(mail_samples(key)):
        text = renderer.render_mail(key, context, number).text
        for action in context["actions"]:
            if action.keyword:
                word = SAID[language][action.keyword]
                assert f"{marks[0]}{word}" in text, (action.kind, text)
            if action.blanco and (action.max > 0 or action.keyword is None):
                assert f"{marks[0]}{BLANK[language]}{marks[1]}" in text, (action.kind, text)
            for name in action.choices:
                assert name in text
        assert context["game"].name in text


def role_words(language: str) -> list[str]:
    words = load_words(RULESET, language)
    return sorted({w for role in words.roles.values() for w in (role.name, role.plural)})


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_subjects_name_no_role_and_repeat_no_word(
    mails: Rendered, language: str, theme: str
) -> None:
    patterns = [re.compile(rf"\b{re.escape(fold(w))}\b") for w in role_words(language)]
    subjects = set()
    for source, context, subject, _text in mails[(language, theme)]:
        for pattern in patterns:
            assert not pattern.search(fold(subject)), f"{source.origin}: {subject!r}"
        game = context.get("game")
        title = subject.split(" — ", 1)[-1] if game is not None else subject
        words = [w for w in _WORD.findall(fold(title)) if len(w) > 3]
        assert len(words) == len(set(words)), f"{source.origin}: {subject!r} repeats a word"
        subjects.add(subject)
    assert len(subjects) > 5


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_every_mail_greets_and_signs_in_the_theme_s_voice(
    mails: Rendered, language: str, theme: str
) -> None:
    greeting, signature = VOICE[(language, theme)]
    for source, _context, _subject, text in mails[(language, theme)]:
        first = text.strip().splitlines()[0]
        assert re.match(greeting, first), (source.origin, first)
        last = above_roster(text).rstrip().splitlines()[-1]
        if source.key.event in ("error", "help_received"):  # the theme's extends _base's
            assert last.startswith(signature), (source.origin, last)
        else:
            assert last == signature, (source.origin, last)


SLIPS = {
    "night_result": re.compile(r"buonanotte|dormite bene|good ?night|sleep well", re.IGNORECASE),
    "day_result": re.compile(r"buongiorno|good morning|dawn breaks|sorge l'alba", re.IGNORECASE),
}


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_no_goodnight_at_dawn_and_no_good_morning_at_nightfall(
    renderer: Renderer, language: str, theme: str
) -> None:
    players = sample_players(RULESET)
    death = {"type": "death", "player": "Bram", "cause": "giustiziato", "role": "vampiro"}
    for step, phase in (("votazione", "night"), ("decisione", "night"), ("giorno", "day")):
        game = {"name": "VN5", "ruleset": RULESET, "language": language, "theme": theme}
        game |= {"step": step, "phase": phase, "night": 2, "day": 2 if phase == "day" else 1}
        for seed in range(8):
            context = {"game": game, "players": players, "recipient": "Carla"}
            key = StoryKey(RULESET, language, theme, "night_result")
            mail = renderer.render_story(key, context, [death], seed)
            assert mail is not None
            slip = SLIPS[mail.key.event].search(mail.text)
            assert slip is None, (mail.key, mail.text)


def sample_of(renderer: Renderer, language: str, theme: str, mail: str, number: int = 0) -> str:
    key = StoryKey(RULESET, language, theme, mail)
    context = list(mail_samples(key))[number]
    return renderer.render_mail(key, context, number).text


#: A phrase each mail kind's first sample must hold, per language (besides greeting and signature).
MUST_SAY = {
    "it": {
        "signup_confirmed": "VN5",
        "role": "Giocatori|cast",
        "step": "Rispondi a questa mail",
        "receipt": "Fino a|Puoi ancora cambiarlo",
        "error": "non sono riuscito a farne niente",
        "reminder": "Hai tempo fino a",
        "night_result": "(?i)comincia (un nuovo|il) giorno",
        "day_result": "cacciatori hanno colpito",
        "game_over": "- Anna: ",
        "help_forward": "Non ho capito cosa fa la Lamia",
        "help_received": "l'ho passata subito agli organizzatori",
        "epilogue": r"- Anna: Lamia\r?\n(.|\n)*Notte 3\r?\nLa votazione:",
    },
    "en": {
        "signup_confirmed": "VN5",
        "role": "seating order",
        "step": "Reply to this mail",
        "receipt": "Until|You can still change it",
        "error": "I couldn't do anything with it",
        "reminder": "You have until",
        "night_result": "day begins",
        "day_result": "the hunters struck",
        "game_over": "- Anna: ",
        "help_forward": "Non ho capito cosa fa la Lamia",
        "help_received": "sent it straight on to the organisers",
        "epilogue": r"- Anna: Lamia\r?\n(.|\n)*Night 3\r?\nThe vote:",
    },
}


@pytest.mark.parametrize(("language", "theme"), PACKS)
@pytest.mark.parametrize("mail", MAILS)
def test_a_sample_of_each_mail_kind_says_what_it_must(
    renderer: Renderer, language: str, theme: str, mail: str
) -> None:
    key = StoryKey(RULESET, language, theme, mail)
    # An error: the first sample of a code that opens with the error mails' own sentence (the
    # game over's reply opens with the game being over).
    first = next(i for i, c in enumerate(mail_samples(key)) if c.get("code") != "game-over")
    text = sample_of(renderer, language, theme, mail, first)
    assert re.search(MUST_SAY[language][mail], text), text
    if mail == "role":  # the role, named in the role mail; the rules of the game
        key = StoryKey(RULESET, language, theme, mail)
        context = next(iter(mail_samples(key)))
        assert load_words(RULESET, language).roles[context["role"]].name in text
    if mail == "game_over":
        for player in sample_players(RULESET):
            assert f"- {player.name}: " in text


def test_the_english_mails_read_as_english_prose(renderer: Renderer) -> None:
    """Spot checks of the English packs: the words to write, the nightfall, the theme's places."""
    step = sample_of(renderer, "en", "vampiri", "step")
    assert "Write the names of everyone you suspect" in step and "“nobody”" in step
    nightfall = sample_of(renderer, "en", "teatro", "day_result")
    assert "the hunters struck" in nightfall and above_roster(nightfall).rstrip().endswith(
        "The Stage Manager"
    )
    role = sample_of(renderer, "en", "teatro", "role", 3)
    assert "Teatro del Passo" in role and "1890" in role
    ruolo = sample_of(renderer, "it", "teatro", "role", 3)
    assert "Teatro del Passo" in ruolo and "1890" in ruolo


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_dead_roles_are_told_only_when_revealed(
    store: FileStore, renderer: Renderer, language: str, theme: str
) -> None:
    words = load_words(RULESET, language)
    for source in store.variants(StoryKey(RULESET, language, theme, "death")):
        context = {
            "game": {"name": "VN5", "ruleset": RULESET, "language": language, "theme": theme},
            "players": sample_players(RULESET),
            "recipient": "Carla",
        }
        death = {"type": "death", "player": "Bram", "cause": "ucciso"}
        told = renderer.render_source_event(
            source,
            context,
            Event.from_dict({**death, "role": "nosferatu"}, RULESET),
            random.Random(0),
        )
        hidden = renderer.render_source_event(
            source, context, Event.from_dict(death, RULESET), random.Random(0)
        )
        assert words.roles["nosferatu"].name in told
        assert not any(w in hidden for w in role_words(language) if len(w) > 3), hidden


SECRETS = {
    "it": ("Vampiro Maggiore", "Cacciatore Maggiore", "bloccat", "indagin", "protett"),
    "en": ("Major Vampire", "Major Hunter", "blocked", "inquir", "protect"),
}


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_public_events_tell_no_secret(
    store: FileStore, renderer: Renderer, language: str, theme: str
) -> None:
    for event in PUBLIC_EVENTS:
        for source in store.variants(StoryKey(RULESET, language, theme, event)):
            for number, (context, data) in enumerate(event_samples(source.key)):
                text = renderer.render_source_event(
                    source, context, Event.from_dict(data, RULESET), random.Random(number)
                )
                for word in SECRETS[language]:
                    assert word not in text, (source.origin, text)


PRIVATE = {
    "blocked": ({"player": "Anna"}, ["Anna"]),
    "investigation": ({"player": "Anna", "target": "Carla", "category": "lupo_mannaro"}, ["Anna"]),
    "silenced": ({"player": "Anna"}, ["Anna"]),
    "hunters": ({"player": "Anna", "players": ["Anna", "Frank"]}, ["Anna"]),
    "inactive": ({"player": "Anna", "missed": 1}, ["Anna"]),
    "rejected": ({"player": "Anna", "reason": "required"}, ["Anna"]),
    "hunt": ({"target": "Carla", "hunters": ["Anna", "Frank"]}, ["Anna", "Frank"]),
}


@pytest.mark.parametrize(("language", "theme"), [p for p in PACKS if p != ("it", "vampiri")])
@pytest.mark.parametrize("event_type", sorted(PRIVATE))
def test_private_events_reach_their_audience_only(
    renderer: Renderer, language: str, theme: str, event_type: str
) -> None:
    fields, audience = PRIVATE[event_type]
    secret = {"type": event_type, "audience": audience, **fields}
    public = {"type": "death", "audience": "public", "player": "Bram", "cause": "ucciso"}
    key = StoryKey(RULESET, language, theme, "night_result")
    game = {"name": "VN5", "ruleset": RULESET, "language": language, "theme": theme}
    game |= {"step": "giorno", "phase": "day", "night": 2, "day": 2}
    players = sample_players(RULESET)
    for seed in range(4):
        for reader in ("Anna", "Carla", "Frank", None):
            context = {"game": game, "players": players, "recipient": reader}
            with_secret = renderer.render_story(key, context, [public, secret], seed)
            without = renderer.render_story(key, context, [public], seed)
            assert with_secret is not None and without is not None
            if reader in audience:
                assert with_secret.text != without.text, (event_type, reader)
            else:
                assert with_secret.text == without.text, (event_type, reader)


# --- English words -----------------------------------------------------------------------------


def test_the_english_words_have_every_key_of_the_italian() -> None:
    it, en = load_words(RULESET, "it"), load_words(RULESET, "en")
    assert set(en.roles) == set(it.roles)
    assert set(en.teams) == set(it.teams) and set(en.causes) == set(it.causes)
    assert set(en.phases) == set(it.phases) and set(en.steps) == set(it.steps)
    assert set(en.errors) == set(it.errors)
    assert set(en.keywords) == set(it.keywords) and set(en.genders) == set(it.genders)
    assert en.steps["giorno"].always


def test_the_english_keywords_are_english_and_the_italian_ones_still_accepted() -> None:
    en = load_words(RULESET, "en")
    assert {k: ws[0] for k, ws in en.keywords.items()} == {
        "caccia": "hunt",
        "visita": "visit",
        "ospita": "host",
        "agguato": "ambush",
        "condanna": "condemn",
        "risparmia": "spare",
    }
    assert all(k in ws for k, ws in en.keywords.items())
    assert {"nobody", "abstain", "nessuno", "astengo"} <= set(en.blanco)
    assert {"man", "uomo"} <= set(en.genders["man"])
    assert {"woman", "donna"} <= set(en.genders["vrouw"])
    assert {"help", "aiuto"} <= set(en.help)
    reserved = {fold(w) for ws in en.keywords.values() for w in ws} | {fold(w) for w in en.blanco}
    assert not reserved & {fold(w) for w in en.stop_words}
    assert len(en.stop_words) > 200


READING = [
    # (what the player writes, the names his vote allows by keyword, who writes, the vote read)
    (
        "I suspect Lea, Vera and Dina.\n\nCheers,\nBruno",
        {"": (1, 5)},
        (("Lea", "Vera", "Dina"), False, ()),
    ),
    ("Sospetto Lea e Vera", {"": (1, 5)}, (("Lea", "Vera"), False, ())),
    ("nobody", {"": (1, 5)}, ((), True, ())),
    ("I abstain", {"": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)}, ((), True, ())),
    ("Condemn!", {"": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)}, ((), False, ("condanna",))),
    (
        "spare them",
        {"": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)},
        ((), False, ("risparmia",)),
    ),
    (
        "risparmia",
        {"": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)},
        ((), False, ("risparmia",)),
    ),
    ("visit Vera", {"visita": (1, 1), "ospita": (1, 1)}, (("Vera",), False, ("visita",))),
    ("Host Lea", {"visita": (1, 1), "ospita": (1, 1)}, (("Lea",), False, ("ospita",))),
    ("ospita Lea", {"visita": (1, 1), "ospita": (1, 1)}, (("Lea",), False, ("ospita",))),
    ("ambush", {"": (1, 1), "agguato": (0, 0)}, ((), False, ("agguato",))),
    ("hunt Vera", {"": (1, 1), "caccia": (1, 1)}, (("Vera",), False, ("caccia",))),
    ("caccia Vera", {"": (1, 1), "caccia": (1, 1)}, (("Vera",), False, ("caccia",))),
    ("hunt nobody", {"": (1, 1), "caccia": (1, 1)}, ((), True, ("caccia",))),
    ("Ezio", {"": (1, 1), "caccia": (1, 1)}, (("Ezio",), False, ())),
]


@pytest.mark.parametrize(("body", "counts", "expected"), READING)
def test_the_parser_reads_english_and_italian_in_an_english_game(
    body: str, counts: dict, expected: tuple
) -> None:
    from parsing import GameInfo, parse_mail, read_command
    from parsing.model import MailContext

    info = GameInfo(name="Night", players=("Lea", "Vera", "Carlo", "Dina", "Ezio", "Bruno"))
    raw = (
        "From: Bruno <bruno@example.org>\r\nTo: n@example.org\r\nSubject: Re: Night\r\n"
        f"Message-ID: <a@example.org>\r\n\r\n{body}\r\n"
    ).encode()
    context = MailContext(
        lexicon=lexicon_for(RULESET, "en"),
        sender_player="Bruno",
        name_counts=counts,
        usable_keywords=frozenset(k for k in counts if k),
        explain=explainer_for(RULESET, "en"),
    )
    vote = read_command(parse_mail(raw), info, context)
    assert (vote.targets, vote.blanco, tuple(vote.keywords)) == expected, vote


STRUCK = {"it": ("cacciatori hanno colpito", "nessuno è caduto"), "en": ("hunters struck", "")}


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_every_nightfall_says_the_hunters_struck_and_who_fell(
    store: FileStore, renderer: Renderer, language: str, theme: str
) -> None:
    """Ruling: the nightfall mail always says the hunters struck, and says so when nobody fell."""
    struck, nobody_fell = STRUCK[language]
    game = {"name": "VN5", "ruleset": RULESET, "language": language, "theme": theme}
    game |= {"step": "giorno", "phase": "day", "night": 2, "day": 2}
    context = {"game": game, "players": sample_players(RULESET), "recipient": "Carla"}
    variants = store.variants(StoryKey(RULESET, language, theme, "day_result"))
    assert len(variants) >= 3
    for source in variants:
        for stories in ((), ("Bram is dead.",)):
            events = [{"type": "death", "player": "Bram", "cause": "ucciso"}] if stories else []
            mail = renderer.render_source_mail(
                source, {**context, "stories": stories, "events": events}, random.Random(1)
            )
            assert struck in mail.text, (source.origin, mail.text)
            if not stories and nobody_fell:
                assert nobody_fell in mail.text, (source.origin, mail.text)


# --- the epilogue ------------------------------------------------------------------------------

#: One event of each type the rules produce (docs/rules/vampiri.md §10.1), as the epilogue gets
#: it, and the names its line must tell.
EVERY_EVENT = {
    "execution": ({"player": "Bram", "totals": {"Bram": 2, "Carla": 1}}, ["Bram", "Carla"]),
    "tie": ({"players": ["Anna", "Carla"], "totals": {"Anna": 2, "Carla": 2}}, ["Anna", "Carla"]),
    "verdict": (
        {"value": "condanna", "counts": {"condanna": 3, "risparmia": 1}, "players": ["Dario"]},
        ["Dario"],
    ),
    "blocked": ({"player": "Frank"}, ["Frank"]),
    "hunt": ({"target": "Carla", "hunters": ["Anna", "Bram"]}, ["Carla", "Anna", "Bram"]),
    "investigation": (
        {"player": "Bram", "target": "Frank", "category": "lupo_mannaro"},
        ["Bram", "Frank"],
    ),
    "silenced": ({"player": "Elena"}, ["Elena"]),
    "hunters": ({"player": "Anna", "players": ["Anna", "Dario"]}, ["Anna", "Dario"]),
    "death": ({"player": "Carla", "cause": "ucciso", "role": "nosferatu"}, ["Carla"]),
    "inactive": ({"player": "Dario", "missed": 2}, ["Dario"]),
    "removed": ({"player": "Elena"}, ["Elena"]),
    "rejected": ({"player": "Frank", "reason": "target-dead"}, ["Frank"]),
    "win": ({"teams": ["cacciatori"], "winners": ["Bram", "Elena"]}, ["Bram", "Elena"]),
}
#: The step each event type happens in (§10.2).
EVENT_STEP = {"tie": "spareggio", "verdict": "decisione", "execution": "votazione"}
#: A giorno's votes, one of each kind (§4.1), as the epilogue gets them: voter, his role, names,
#: keyword.
DAY_VOTES = [
    ("Anna", "lamia", ["Bram"], "visita"),
    ("Bram", "monaco", ["Carla"], ""),
    ("Bram", "monaco", ["Frank"], "caccia"),
    ("Carla", "regina", ["Anna"], ""),
    ("Dario", "conte", ["Elena"], ""),
    ("Elena", "cacciatore", [], ""),
    ("Frank", "licantropo", [], "agguato"),
    ("Anna", "re", ["Dario"], ""),
    ("Bram", "bella", ["Frank"], ""),
]
DEALT = {"Anna": "lamia", "Bram": "monaco", "Carla": "regina", "Dario": "conte"}


def epilogue_of(renderer: Renderer, language: str, theme: str, **fields: object) -> str:
    key = StoryKey(RULESET, language, theme, "epilogue")
    context = {**next(iter(mail_samples(key))), "dealt": {}, "winners": [], "teams": []}
    return renderer.render_mail(key, {**context, **fields}, 0).text


def chapter(step: str, events: list[dict], votes: list[dict] | None = None) -> dict:
    phase = "day" if step == "giorno" else "night"
    moment = {"night": "Notte 2", "day": "Giorno 2"}[phase]
    return {"moment": moment, "step": step, "phase": phase, "votes": votes or [], "events": events}


def story_part(text: str) -> str:
    """The epilogue without its opening paragraph and closing lines: the chapters."""
    return "\n".join(line for line in text.splitlines() if line.startswith("- "))


def test_every_event_type_is_in_the_epilogue_test() -> None:
    assert set(EVERY_EVENT) == set(events_of(RULESET))


@pytest.mark.parametrize(("language", "theme"), PACKS)
@pytest.mark.parametrize("event_type", sorted(EVERY_EVENT))
def test_the_epilogue_tells_every_event_with_its_players(
    renderer: Renderer, language: str, theme: str, event_type: str
) -> None:
    fields, told = EVERY_EVENT[event_type]
    event = {"type": event_type, **fields}
    step = EVENT_STEP.get(event_type, "giorno")
    text = epilogue_of(renderer, language, theme, chapters=[chapter(step, [event])])
    story = story_part(text)
    assert story.count("\n") == 0 and story, (event_type, text)  # one line for the event
    for name in told:
        assert name in story, (event_type, story)
    if event_type == "death":
        assert load_words(RULESET, language).roles["nosferatu"].name in story


@pytest.mark.parametrize(("language", "theme"), PACKS)
def test_the_epilogue_tells_one_chapter_with_every_event_and_every_vote(
    renderer: Renderer, language: str, theme: str
) -> None:
    events = [{"type": kind, **fields} for kind, (fields, _) in EVERY_EVENT.items()]
    night = [
        {"player": "Anna", "role": "lamia", "targets": ["Bram", "Carla"], "keyword": ""},
        {"player": "Bram", "role": "monaco", "targets": [], "keyword": ""},
    ]
    verdict = [
        {"player": "Carla", "role": "regina", "targets": [], "keyword": "condanna"},
        {"player": "Dario", "role": "conte", "targets": [], "keyword": "risparmia"},
        {"player": "Elena", "role": "cacciatore", "targets": [], "keyword": ""},
    ]
    day = [dict(zip(("player", "role", "targets", "keyword"), v, strict=True)) for v in DAY_VOTES]
    chapters = [
        chapter("votazione", [], night),
        chapter("decisione", [], verdict),
        chapter("giorno", events, day),
    ]
    text = epilogue_of(renderer, language, theme, chapters=chapters, dealt=DEALT)
    lines = story_part(text).splitlines()
    roster = len(DEALT)
    assert len(lines) == roster + len(night) + len(verdict) + len(day) + len(events), text
    for kind, (_fields, told) in EVERY_EVENT.items():
        assert any(all(name in line for name in told) for line in lines), (kind, text)
    words = load_words(RULESET, language)
    assert f"Anna ({words.roles['lamia'].name})" in text  # every actor with his role
    said = SAID[language]
    mark = TOLD[language].pattern[0], TOLD[language].pattern[4]
    for keyword in ("condanna", "risparmia"):
        assert f"{mark[0]}{said[keyword]}{mark[1]}" in text, text
    assert text.count("\n- Bram (") >= 3  # his night vote, his block, his hunt, as Bram (Monaco)


SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / RULESET


def scenario_chapters(path: Path) -> tuple[list[dict], dict[str, str], list[Player], list[str]]:
    """A scenario's transcript as the epilogue's chapters (votes and events of each step), the
    roles dealt, the players, and every name of its events (players, targets, hunters,
    winners)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = run_scenario(data, until_end=True).lines
    players = [
        Player(name, "vrouw" if seat.replace(" ", "").endswith((",vrouw", ",donna")) else "man")
        for name, seat in data["players"].items()
    ]
    roles = lines[-1]["roles"]
    chapters, named = [], []
    for line in lines[:-1]:
        votes = []
        for key, targets in line["votes"].items():
            voter, _, keyword = key.partition(":")
            votes.append({"player": voter, "role": roles[voter], "targets": targets})
            votes[-1]["keyword"] = keyword
        for event in line["events"]:
            for field in ("player", "target", "players", "hunters", "winners"):
                value = event.get(field)
                named += [value] if isinstance(value, str) else list(value or ())
        step = line["step"]
        moment = f"{line.get('night', 1)}/{line.get('day', 0)}"
        chapters.append(chapter(step, line["events"], votes) | {"moment": moment})
    return chapters, roles, players, named


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_the_epilogue_of_every_scenario_tells_each_vote_and_event(
    renderer: Renderer, path: Path
) -> None:
    chapters, roles, players, named = scenario_chapters(path)
    lines = len(roles)
    for c in chapters:  # a line per vote and per event, the step's missed votes in one
        idle = [e for e in c["events"] if e["type"] == "inactive"]
        lines += len(c["votes"]) + len(c["events"]) - len(idle) + (1 if idle else 0)
    for language, theme in PACKS:
        fields = {"chapters": chapters, "dealt": roles, "players": players}
        text = epilogue_of(renderer, language, theme, **fields)
        story = story_part(text)
        assert story.count("\n") + 1 == lines, (language, theme, text)
        for name in named:
            assert name in story, (name, text)
