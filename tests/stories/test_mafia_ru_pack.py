"""The Russian pack of Mafia (stories/mafia/ru): every key renders with every sample, every public
event has three variants per theme, every word a mail tells a player to write is one the parser
reads (Cyrillic, ё folded), no subject names a role, a private event reaches nobody but its
audience, and the engine's own events (every scenario) are told without a night death's cause."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from parsing import (
    GameInfo,
    MailContext,
    ParseError,
    Signup,
    Vote,
    parse_mail,
    read_command,
    read_signup,
)
from parsing.lexicon import Lexicon, phrase_key
from rules import get_ruleset
from rules.mafia.events import RoleChange
from rules.mafia.roles import ACTIONS, PEACEFUL
from rules.mafia.spec import Holder
from rules.scenario import run_scenario
from stories import FileStore, Game, MemoryStore, Player, Renderer, StoryKey, check_store
from stories.context import Event, event_schema
from stories.keys import events_of, keys_of
from stories.lexicon import lexicon_for
from stories.samples import event_samples, mail_samples, sample_players
from stories.store import StorySource
from stories.words import Words, load_words
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

RULESET, LANGUAGE = "mafia", "ru"
THEMES = ("mafia", "express")
SIGNATURES = {"mafia": "Приморск", "express": "„Степной экспресс“"}
#: The events every player may learn (docs/rules/mafia.md §13); the others are private.
PUBLIC = MAFIA_PUBLIC_EVENTS


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


@pytest.mark.slow  # a whole pack's check (`make test-fast` leaves it out)
def test_the_pack_passes_stories_check(sources: list[StorySource]) -> None:
    report = check_store(MemoryStore(sources), languages=[LANGUAGE])
    assert report.problems == []
    assert report.renders > 5000


def test_every_key_has_a_template_and_every_public_event_three_variants() -> None:
    store = FileStore()
    for theme in THEMES:
        missing = [
            event
            # optional mails, but this pack has them (the epilogue: required for Mafia)
            for event in (*keys_of(RULESET), "help_received", "epilogue")
            if not store.variants(StoryKey(RULESET, LANGUAGE, theme, event))
            and not store.variants(StoryKey(RULESET, LANGUAGE, "_base", event))
        ]
        assert missing == [], theme
        few = [
            event
            for event in sorted(PUBLIC)
            if len(store.variants(StoryKey(RULESET, LANGUAGE, theme, event))) < 3
        ]
        assert few == [], theme
    assert PUBLIC | {"role"} <= set(events_of(RULESET))


def test_every_event_renders_with_every_sample(
    renderer: Renderer, sources: list[StorySource]
) -> None:
    assert render_every_event(renderer, sources) > 1000


def test_the_parser_words_are_the_rules_and_the_spec(words: Words, lexicon: Lexicon) -> None:
    assert set(words.keywords) == set(get_ruleset(RULESET).keywords)
    for keyword in get_ruleset(RULESET).keywords:
        assert lexicon.keywords[phrase_key(keyword)] == keyword  # the id stays accepted
    spec = {
        "убить": "kill",
        "выстрел": "kill",
        "страхую": "insure",
        "без страховки": "noinsure",
        "суицид": "suicide",
        "одобряю": "approve",
        "очернить": "rumour",
        "лечу": "heal",
        "хил": "heal",
        "арест": "arrest",
        "защита": "protect",
        "проверка": "check",
        "чек": "check",
        "подлинность": "verify",
        "подмена красный": "fake_red",
        "подмена чёрный": "fake_black",  # ё is read as е
        "подмена наоборот": "fake_invert",
        "подмена": "fake",
        "слежка": "track",
        "роль": "role",
        "запрос": "request",
        "вертикаль": "vertical",
        "охота": "hunt",
        "алиби": "alibi",
        "поддержка": "support",
        "тень": "shadow",
        "покровительство": "patronage",
        "защищённо": "safe",  # ё is read as е
        "детонатор": "detonate",
        "простить": "forgive",
        "вместо": "instead",
        "гипноз": "hypnotize",
        "стоп": "halt",
        "пожар": "fire",
        "джокер": "joker",
        "отравить": "poison",
        "противоядие": "antidote",
        "пытать": "capture",
        "отпустить": "release",
        "пытки": "torture",
        "уничтожить": "destroy",
        "гейша": "company",
        "сторона": "side",
        "срез": "slash",
        "shoot": "kill",
        "no insurance": "noinsure",
    }
    for written, keyword in spec.items():
        assert lexicon.keywords[phrase_key(written)] == keyword, written
    for blank in ("пропуск", "воздерживаюсь", "никого", "blank", "abstain"):
        assert phrase_key(blank) in lexicon.blanco_words
    assert lexicon.genders[phrase_key("мужчина")] == "man"
    assert lexicon.genders[phrase_key("Женщина")] == "vrouw"
    assert lexicon.genders["man"] == "man" and lexicon.genders["vrouw"] == "vrouw"
    assert {phrase_key("помощь"), "help"} <= lexicon.help_words
    assert {phrase_key(w) for w in ("голосую", "против", "привет", "спасибо")} <= set(
        lexicon.stop_words
    )
    # A common Russian first name is never a stop word.
    assert not {phrase_key(n) for n in ("Вера", "Надежда", "Любовь", "Роман", "Лев")} & set(
        map(phrase_key, words.stop_words)
    )


PLAYERS_RU = ("Алёна", "Борис", "Вера", "Глеб", "Дарья")


def _read(body: str, lexicon: Lexicon, **counts: tuple[int, int]) -> object:
    raw = (
        "From: P <p@example.org>\nSubject: MF1\n"
        f"Content-Type: text/plain; charset=utf-8\n\n{body}\n"
    )
    game = GameInfo("MF1", players=PLAYERS_RU)
    context = MailContext(lexicon=lexicon, name_counts=counts)
    return read_command(parse_mail(raw.encode()), game, context)


def test_russian_mail_with_cyrillic_names_reads(lexicon: Lexicon) -> None:
    """The pack's own words read a Russian mail: Cyrillic names (ё as е), keywords, blank."""
    assert _read("Убить Алена", lexicon) == Vote("MF1", ("Алёна",), False, ("kill",))
    # A name declined as Russian writes it is read as the player's (and the reply says so).
    declined = _read("Привет! Голосую против Бориса.", lexicon)
    assert isinstance(declined, Vote) and declined.targets == ("Борис",)
    keyword_only = {"fake_black": (0, 0), "noinsure": (0, 0)}
    assert _read("подмена чёрный", lexicon, **keyword_only) == Vote(
        "MF1", (), False, ("fake_black",)
    )
    assert _read("Без страховки.", lexicon, **keyword_only) == Vote("MF1", (), False, ("noinsure",))
    assert _read("Воздерживаюсь.", lexicon) == Vote("MF1", (), True, (), ())
    assert _read("проверка Глеб", lexicon) == Vote("MF1", ("Глеб",), False, ("check",))
    # A reply: the Russian quote header and the quoted step mail are not read.
    reply = (
        "Убить Алену\n\nпт, 20 нояб. 2026 г. в 10:00, Ведущий <mf1@example.org>:\n"
        "> Напишите «убить» и одно имя, например «убить Борис»\n> Вера, Глеб\n"
    )
    replied = _read(reply, lexicon)
    assert isinstance(replied, Vote) and replied.targets == ("Алёна",)
    assert replied.keywords == ("kill",)
    unknown = _read("Голосую против Фёдора", lexicon)
    assert isinstance(unknown, ParseError)
    game = GameInfo("MF1", signup_open=True)
    context = MailContext(lexicon=lexicon)
    signup = read_signup("Алёна, женщина", game, context)
    assert isinstance(signup, Signup) and signup.name == "Алёна"
    assert str(signup.gender.value) == "vrouw"
    refused = read_signup("Пропуск, мужчина", game, context)
    assert isinstance(refused, ParseError)


def test_every_quoted_word_of_a_mail_is_one_the_parser_reads(
    mails: list[tuple[StorySource, dict[str, Any], Any]], words: Words, lexicon: Lexicon
) -> None:
    """What a mail tells a player to write (quoted «так») is a keyword, a blank word or a name."""
    quoted: set[str] = set()
    for source, context, mail in mails:
        names = sample_names(context, RULESET, LANGUAGE)
        for phrase in QUOTED.findall(mail.text):
            assert parser_reads(lexicon, phrase, names), f"{source.origin} asks for «{phrase}»"
            quoted.add(phrase_key(phrase.split()[0]))
    for code, text in words.errors.items():
        for phrase in QUOTED.findall(text):
            if "{" in phrase:
                continue  # a parameter: what the player wrote
            assert parser_reads(lexicon, phrase, set()), f"[errors] {code} asks for «{phrase}»"
    assert {phrase_key(w) for w in ("пропуск", "убить", "проверка", "лечить", "охота")} <= (quoted)


def _story(text: str) -> str:
    """A mail's text without the running roster the layout appends after "-- " (stories/layout)."""
    return text.split("\n-- \n")[0].rstrip()


def test_the_step_mail_says_exactly_what_to_write(renderer: Renderer, lexicon: Lexicon) -> None:
    helpers = pack_helpers(RULESET, LANGUAGE)
    kinds: set[str] = set()
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "step")
        for number, context in enumerate(mail_samples(key)):
            mail = renderer.render_mail(key, context, number)
            quoted = QUOTED.findall(mail.text)
            assert "18 ноября, среда, 09:00" in mail.text
            assert _story(mail.text).endswith(SIGNATURES[theme])
            for action in context["actions"]:
                kinds.add(action.kind)
                assert all(helpers.choice(name) in mail.text for name in action.choices)
                if action.max == 0 or not_yet(action):
                    continue
                if action.keyword:
                    written = [phrase_key(" ".join(q.split()[:2])) for q in quoted]
                    written += [phrase_key(q.split()[0]) for q in quoted]
                    assert any(lexicon.keywords.get(w) == action.keyword for w in written)
                elif action.blanco:
                    assert any(q.split()[-1] == "пропуск" for q in quoted)
    assert {"vote", "vertical", "kill", "heal", "check", "track", "request"} <= kinds


def test_no_subject_names_a_role(
    mails: list[tuple[StorySource, dict[str, Any], Any]], words: Words
) -> None:
    """A subject shows in notifications and mail lists, where anybody may read it."""
    role_words = {
        phrase_key(w) for role in words.roles.values() for w in (*role.name.split(), role.plural)
    } - {phrase_key("босса")}
    checked = 0
    for source, _context, mail in mails:
        subject = {phrase_key(w) for w in re.findall(r"\w+", mail.subject)}
        assert not subject & role_words, f"{source.origin}: {mail.subject!r}"
        checked += 1
    assert checked > 1000


def test_every_mail_is_greeted_and_signed(
    mails: list[tuple[StorySource, dict[str, Any], Any]],
) -> None:
    for source, _context, mail in mails:
        if source.key.event in ("help_forward", "help_digest"):  # to the admins
            continue
        text = _story(mail.text)
        theme = source.key.theme
        if theme in SIGNATURES:
            assert text.endswith(SIGNATURES[theme]), (source.origin, text[-80:])
        first = text.splitlines()[0]
        assert first.endswith("!") or first.endswith(","), (source.origin, first)


# --- a player's gender, a black's role, what a death reveals ------------------------------------

CAST = [
    Player("Anna", "vrouw"),
    Player("Bram", "man"),
    Player("Carla", "vrouw"),
    Player("Dirk", "man", alive=False),
    Player("Eva", "vrouw", alive=False),
    Player("Frank", "man"),
]


def _game(theme: str, step: str, phase: str) -> Game:
    return Game(
        name="MF1",
        ruleset=RULESET,
        language=LANGUAGE,
        theme=theme,
        step=step,
        phase=phase,
        night=2,
        day=2,
    )


@pytest.mark.parametrize("theme", THEMES)
def test_verbs_agree_with_the_player_and_a_night_death_hides_the_negative_role(
    renderer: Renderer, theme: str
) -> None:
    key = StoryKey(RULESET, LANGUAGE, theme, "night_result")
    context = {"game": _game(theme, "night", "night"), "players": CAST, "recipient": None}
    for seed in range(6):
        for who, ending in (("Anna", "а"), ("Bram", "")):
            event = {
                "type": "attacked",
                "player": who,
                "audience": [who],
            }
            text = renderer.render_event(key, {**context, "recipient": "Frank"}, event, seed)
            assert f"выжил{ending}" in text, text
            mine = renderer.render_event(key, {**context, "recipient": who}, event, seed)
            assert "вы выжили" in mine, mine  # the formal "вы" takes the plural
        night = {
            "type": "death",
            "player": "Anna",
            "cause": None,
            "revealed": {"role": "citizen"},
            "via": None,
            # the narrator adds the composite role when roles are revealed: never told at night
            "role": "citizen+mafia",
        }
        text = renderer.render_event(key, context, night, seed)
        assert "Мирный житель" in text and "Мафия" not in text and "чёрн" not in text
        day = {
            "type": "death",
            "player": "Bram",
            "cause": "lynch",
            "revealed": {"role": "doctor", "negative": "maniac", "team": "black"},
            "via": None,
        }
        text = renderer.render_event(
            key, {**context, "game": _game(theme, "lynch", "day")}, day, seed
        )
        assert "Доктор" in text and "Маньяк" in text and "чёрные" in text


@pytest.mark.parametrize("theme", THEMES)
def test_a_death_by_the_detonator_is_told_as_the_blast_not_a_last_word(
    renderer: Renderer, theme: str
) -> None:
    """docs/rules/mafia.md ruling 83: both deaths of a detonation are lynch deaths via the
    Terrorist; every variant tells the blast, none a last move of the lynched."""
    key = StoryKey(RULESET, LANGUAGE, theme, "death")
    context = {"game": _game(theme, "vote_moves", "day"), "players": CAST, "recipient": None}
    own = {
        "type": "death",
        "player": "Anna",
        "cause": "lynch",
        "revealed": {"role": "terrorist", "team": "red"},
        "via": "terrorist",
    }
    target = {**own, "player": "Bram", "revealed": {"role": "citizen", "team": "black"}}
    for seed in range(8):
        text = renderer.render_event(key, context, own, seed)
        assert "Террорист Anna привела детонатор в действие и погибла" in text, text
        text = renderer.render_event(key, context, target, seed)
        assert "Bram погиб от взрыва детонатора вместе с Террористом" in text, text
        assert "забрать с собой" not in text and "следом" not in text, text


def test_a_heal_that_cured_poison_is_told_as_a_saved_life_not_a_survived_attack(
    renderer: Renderer,
) -> None:
    """docs/rules/mafia.md ruling 84: `heal.saved` names a poisoned player the heal cured, who
    was attacked by nobody: the Doctor is told that the healed would have died without it."""
    event = {"type": "heal", "player": "Carla", "targets": ["Bram"], "result": "hit"}
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "heal")
        context = {"game": _game(theme, "night", "night"), "players": CAST, "recipient": "Carla"}
        text = renderer.render_event(key, context, {**event, "saved": ["Bram"]}, 0)
        assert "без лечения не дожили бы до утра — Bram" in text and "напад" not in text, text


@pytest.mark.parametrize("theme", THEMES)
def test_the_epilogue_tells_every_event_type_naming_its_players(
    renderer: Renderer, theme: str
) -> None:
    """One chapter with one event of each type: a line (two for a vote) for each, naming its
    players; the deal with every role, composite ones in full; verbs agree with the player."""
    key = StoryKey(RULESET, LANGUAGE, theme, "epilogue")
    context, events = epilogue_of_every_event(key)
    text = renderer.render_mail(key, context, 1).text
    players = {p.name for p in sample_players(RULESET)}
    for event, told in epilogue_lines_of(text, events):
        assert told.startswith("- ") and len(told) > 12, (event, told)
        for name in players_of(event, players):
            assert name in told, (event, told)
    assert "- Anna — Мирный житель и Мафия" in text
    assert "- Frank — Блокер и Мафия" in text
    assert "Anna потратила запасную жизнь." in text  # Anna is a woman
    assert _story(text).endswith(SIGNATURES[theme])
    votes = [
        {"player": "Frank", "role": "blocker+mafia", "targets": ["Bram"], "keyword": "kill"},
        {"player": "Bram", "role": "doctor", "targets": ["Bram"], "keyword": ""},
        {"player": "Carla", "role": "commissar", "targets": ["Frank"], "keyword": ""},
    ]
    chapter = {"moment": "Ночь 1", "step": "night", "phase": "night", "votes": votes}
    night = renderer.render_mail(key, {**context, "chapters": [{**chapter, "events": []}]}, 1)
    assert "- Frank (Блокер и Мафия) — выстрел Семьи: Bram." in night.text
    assert "- Bram (Доктор) — лечение: Bram." in night.text
    assert "- Carla (Комиссар) — проверка: Frank." in night.text


@pytest.mark.parametrize("theme", THEMES)
def test_the_help_answer_greets_a_player_by_gender_and_a_stranger_without_one(
    renderer: Renderer, theme: str
) -> None:
    """A stranger's gender is not known (Player() would say "man"): he is not "Уважаемый"."""
    key = StoryKey(RULESET, LANGUAGE, theme, "help_received")
    game = _game(theme, "night", "night")
    for who, greeting in (("Anna", "Уважаемая Anna!"), ("Bram", "Уважаемый Bram!")):
        context = {"game": game, "players": CAST, "recipient": who, "player": who}
        mail = renderer.render_mail(key, {**context, "subject": "помощь: кто ходит ночью?"}, 1)
        assert mail.text.startswith(greeting), mail.text
        assert "„помощь: кто ходит ночью?“" in mail.text and "MF1" in mail.subject
    for game_or_none, players in ((game, CAST), (None, [])):
        context = {"game": game_or_none, "players": players, "recipient": "Zoja"}
        mail = renderer.render_mail(key, {**context, "player": "Zoja", "subject": ""}, 1)
        assert mail.text.startswith("Здравствуйте, Zoja!"), mail.text
        assert "Уважаем" not in mail.text and "„" not in mail.text.split("\n\n")[1]


@pytest.mark.parametrize("theme", THEMES)
def test_an_error_mail_to_a_stranger_greets_him_without_a_gender(
    renderer: Renderer, theme: str
) -> None:
    """A mail from somebody not in the game (a late signup, a typo in the address) gets its
    error reply with a neutral greeting: his gender is not known."""
    key = StoryKey(RULESET, LANGUAGE, theme, "error")
    sample = next(iter(mail_samples(key)))
    mail = renderer.render_mail(key, {**sample, "player": "Zoja", "recipient": "Zoja"}, 1)
    assert mail.text.startswith("Здравствуйте, Zoja!"), mail.text


@pytest.mark.parametrize("theme", THEMES)
def test_the_role_mail_of_a_black_names_both_roles_and_the_partners(
    renderer: Renderer, theme: str
) -> None:
    key = StoryKey(RULESET, LANGUAGE, theme, "role")
    context = {
        "game": _game(theme, "election", "start"),
        "players": CAST,
        "recipient": "Anna",
        "player": "Anna",
        "role": "doctor",
        "team": "black",
        "mates": [],
        "announced": [],
        "facts": {"negative": "mafia", "partners": ["Frank"]},
    }
    mail = renderer.render_mail(key, context, 1)
    assert "Доктор" in mail.text and "Мафия" in mail.text and "Frank" in mail.text
    assert "Доктор" not in mail.subject and "Мафия" not in mail.subject


def test_the_agents_role_mail_says_a_post_keeps_him_in_the_game(renderer: Renderer) -> None:
    """docs/rules/mafia.md §17.1, ruling 85: he leaves after day 3's vote unless he holds a
    post then, and stays while he holds it."""
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "role")
        context = {
            "game": _game(theme, "election", "start"),
            "players": CAST,
            "recipient": "Anna",
            "player": "Anna",
            "role": "agent",
            "team": "",
            "mates": [],
            "announced": [],
            "facts": {},
        }
        text = renderer.render_mail(key, context, 1).text
        assert "после голосования третьего дня вы уйдёте из игры" in text, text
        assert "с постом вы останетесь, пока его удерживаете" in text, text


def test_the_role_mail_teaches_each_role_its_moves(renderer: Renderer, words: Words) -> None:
    """A player reads in his role mail what his role does and the word it writes: every
    peaceful role with a move of its own quotes one of its keywords (as «лечить»)."""
    taught = 0
    for role in PEACEFUL:
        own = [s for s in ACTIONS[role] if s.holder is Holder.ANY]  # not the black side's
        written = {words.keywords[s.keyword][0] for s in own if s.keyword}
        if not written:
            continue
        context = {
            "game": _game("mafia", "election", "start"),
            "players": CAST,
            "recipient": "Anna",
            "player": "Anna",
            "role": role,
            "team": "red",
            "mates": [],
            "announced": [],
            "facts": {},
        }
        text = renderer.render_mail(StoryKey(RULESET, LANGUAGE, "mafia", "role"), context, 0).text
        assert any(f"«{word}" in text for word in written), (role, written, text)
        taught += 1
    assert taught >= 20


def test_a_day_vote_tells_every_voter(renderer: Renderer) -> None:
    for theme in THEMES:
        key = StoryKey(RULESET, LANGUAGE, theme, "day_result")
        context = {"game": _game(theme, "lynch", "day"), "players": CAST, "recipient": "Carla"}
        event = {
            "type": "lynch",
            "player": "Anna",
            "players": ["Anna"],
            "totals": {"Anna": 3, "Bram": 1},
            "ballots": {"Bram": "Anna", "Carla": "Anna", "Frank": "Anna", "Anna": "Bram"},
            "auto": [],
        }
        for seed in range(3):
            text = renderer.render_event(key, context, event, seed)
            assert "- Anna: 3 голоса (Bram, Carla и Frank)" in text, text
            assert "- Bram: 1 голос (Anna)" in text, text


def test_the_inheritance_event_reads_in_its_transcript_form(renderer: Renderer) -> None:
    """The rules write a role_change's dead holder as `from` (rules/mafia/events.py): the story
    layer reads that form (it used to ask for the dataclass's `from_player` and fail)."""
    data = {**RoleChange("Anna", "doctor", "Dirk", ()).to_dict(), "audience": ["Anna"]}
    assert Event.from_dict(data, RULESET).fields["from"] == "Dirk"
    key = StoryKey(RULESET, LANGUAGE, "mafia", "night_result")
    context = {"game": _game("mafia", "night", "night"), "players": CAST, "recipient": "Anna"}
    story = renderer.render_story(key, context, [data], 1)
    assert story is not None and "Dirk" in story.text and "Доктор" in story.text


# --- the scenarios' games, every event told ---------------------------------------------------

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / RULESET


def test_every_event_of_the_scenarios_is_told(
    renderer: Renderer, schema: Mapping[str, Mapping[str, Any]]
) -> None:
    """The engine's own events (every shape the rules emit) render, to the player and to
    nobody in particular; a public night death never says its cause."""
    rs = get_ruleset(RULESET)
    causes = load_words(RULESET, LANGUAGE).causes
    told = 0
    for path in sorted(SCENARIOS.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        lines = run_scenario(data, until_end=True).lines
        players = [Player(name) for name in data["players"]]
        for number, line in enumerate(lines[:-1]):
            step = line.get("step")
            phase = "start" if step is None else ("night" if step == "night" else "day")
            theme = THEMES[number % 2]
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
                    event = {**event, "cause": None}  # as_told: a night death's cause is dropped
                subject = event.get("player")
                told_event = Event.from_dict(event, RULESET, schema)  # once for both recipients
                for recipient in (None, subject):
                    context = {"game": game, "players": players, "recipient": recipient}
                    text = renderer.render_event(key, context, told_event, number)
                    assert text.strip(), (path.name, event)
                    if event["type"] == "death" and event["cause"] is None:
                        assert not any(words in text for words in causes.values()), text
                    told += 1
    assert told > 500
    assert rs.id == RULESET


# --- a private event reaches its audience only ----------------------------------------------


def _private_events() -> list[dict[str, Any]]:
    """One sample of every private event type, told to its player (and a killer's partners)."""
    found = []
    for kind in events_of(RULESET):
        if kind in PUBLIC or kind == "role":
            continue
        key = StoryKey(RULESET, LANGUAGE, "mafia", kind)
        _context, event = next(iter(event_samples(key)))
        audience = [event["player"], *event.get("partners", ())]
        found.append({**event, "audience": audience})
    return found


@pytest.mark.parametrize("theme", THEMES)
def test_a_private_event_is_told_to_its_audience_only(renderer: Renderer, theme: str) -> None:
    private = _private_events()
    assert len(private) > 25
    public = [
        {"type": "death", "player": "Dirk", "cause": None, "revealed": {"role": "doctor"}},
        {"type": "public_result", "role": "doctor", "result": "miss"},
    ]
    key = StoryKey(RULESET, LANGUAGE, theme, "night_result")
    for recipient in (None, *(p.name for p in CAST)):
        context = {"game": _game(theme, "night", "night"), "players": CAST, "recipient": recipient}
        told = renderer.render_story(key, context, public + private, 3)
        alone = renderer.render_story(key, context, public, 3)
        assert told is not None and alone is not None
        mine = [e for e in private if recipient in e["audience"]]
        if mine:
            assert told.text != alone.text, recipient
        else:
            assert told.text == alone.text, recipient
