"""The parser reads any ruleset's words: lexicons from words.toml mappings (Italian, Russian),
keyword-only and approval votes, usable keywords, injected error wording, route/read_command,
and ``narrator parse``'s per-keyword counts."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from narrator.cli import main
from parsing import (
    DEFAULT_LEXICON,
    ErrorCode,
    GameInfo,
    Gender,
    Help,
    Ignore,
    IgnoreReason,
    Lexicon,
    MailContext,
    ParseError,
    Route,
    Signup,
    Vote,
    explain_plainly,
    parse_mail,
    read_command,
    read_signup,
    route,
)
from rules.core.registry import get_ruleset, ruleset_ids
from stories.lexicon import help_words

ROOT = Path(__file__).resolve().parent.parent.parent

# The shape of stories/<ruleset>/<lang>/words.toml, as tomllib reads it (vampiri spec 11.1).
ITALIAN: Mapping[str, object] = {
    "keywords": {
        "caccia": ["caccia"],
        "visita": ["visita"],
        "ospita": ["ospita"],
        "agguato": ["agguato"],
        "condanna": ["condanna"],
        "risparmia": ["risparmia"],
    },
    "blanco": ["nessuno", "astengo"],
    "genders": {"man": ["uomo"], "vrouw": ["donna"]},
    "help": ["aiuto"],
    "stop_words": ["voto", "per", "il", "la", "di", "che", "io"],
    "errors": {"no-name": "Non ho trovato nessun nome."},  # not the parser's: ignored
}

# Mafia spec section 12: Russian forms, then English aliases; phrases of two words.
RUSSIAN: Mapping[str, object] = {
    "keywords": {
        "kill": ["убить", "убиваю", "выстрел", "kill", "shoot"],
        "insure": ["страховка", "страхую", "insure"],
        "noinsure": ["без страховки", "no insurance", "noinsure"],
        "fake_red": ["подмена красный", "fake red"],
        "fake_black": ["подмена черный", "fake black"],
        "fake": ["подмена", "fake"],
    },
    "blanco": ["пропуск", "воздерживаюсь", "никого", "blank", "skip", "abstain", "none"],
    "genders": {"man": ["мужчина", "male"], "vrouw": ["женщина", "female"]},
    "help": ["помощь"],
    "stop_words": ["я", "за", "голосую", "против"],
}

PLAYERS = ("Anna", "Bruno", "Carla", "Dario")
RUSSIAN_PLAYERS = ("Анна", "Борис", "Алёна")


def _mail(body: str, subject: str = "LUP1") -> bytes:
    return f"From: P <p@example.org>\nSubject: {subject}\n\n{body}\n".encode()


def _vote(
    body: str,
    lexicon: Lexicon,
    players: tuple[str, ...] = PLAYERS,
    subject: str = "LUP1",
    **context: object,
) -> object:
    game = GameInfo("LUP1", players=players)
    ctx = MailContext(lexicon=lexicon, **context)  # type: ignore[arg-type]
    return read_command(parse_mail(_mail(body, subject)), game, ctx)


VAMPIRI_KEYWORDS = ("visita", "ospita", "caccia", "agguato", "condanna", "risparmia")
ITALIAN_LEXICON = Lexicon.from_words(ITALIAN, VAMPIRI_KEYWORDS)
RUSSIAN_LEXICON = Lexicon.from_words(RUSSIAN)


def test_italian_blank_word_is_a_blank_vote() -> None:
    assert _vote("Nessuno, grazie.", ITALIAN_LEXICON) == Vote("LUP1", (), True, (), ())
    assert _vote("astengo", ITALIAN_LEXICON) == Vote("LUP1", (), True, (), ())
    command = _vote("nessuno, anzi Bruno", ITALIAN_LEXICON)
    assert isinstance(command, ParseError) and command.code is ErrorCode.BLANCO_AND_NAME


def test_italian_keyword_word_maps_to_its_id_in_body_or_subject() -> None:
    assert _vote("caccia Carla", ITALIAN_LEXICON) == Vote("LUP1", ("Carla",), False, ("caccia",))
    assert _vote("Carla", ITALIAN_LEXICON, subject="LUP1 Visita") == Vote(
        "LUP1", ("Carla",), False, ("visita",)
    )
    # The ruleset's ids give the order.
    assert ITALIAN_LEXICON.keyword_order == VAMPIRI_KEYWORDS


def test_italian_signup_with_uomo_and_donna() -> None:
    game = GameInfo("LUP1", signup_open=True)
    context = MailContext(lexicon=ITALIAN_LEXICON)
    assert read_signup("Mario, uomo", game, context) == Signup("LUP1", "Mario", Gender.MAN)
    assert read_signup("giulia (Donna)", game, context) == Signup("LUP1", "Giulia", Gender.VROUW)
    # The canonical ids stay accepted (vampiri 11.1: "the Wakkerdam forms stay accepted").
    assert read_signup("Mario, man", game, context) == Signup("LUP1", "Mario", Gender.MAN)
    for body in ("Nessuno, uomo", "Caccia, donna", "Aiuto, uomo", "Donna, donna"):
        command = read_signup(body, game, context)
        assert isinstance(command, ParseError) and command.code is ErrorCode.BAD_NAME, body


def test_russian_lexicon_reads_phrases_blank_words_and_genders() -> None:
    lexicon = RUSSIAN_LEXICON
    assert _vote("Убить Анна", lexicon, RUSSIAN_PLAYERS) == Vote(
        "LUP1", ("Анна",), False, ("kill",)
    )
    # A phrase of two words wins over the one-word keyword it starts with; ё is read as е.
    assert _vote("подмена чёрный Борис", lexicon, RUSSIAN_PLAYERS) == Vote(
        "LUP1", ("Борис",), False, ("fake_black",)
    )
    assert _vote("подмена Борис", lexicon, RUSSIAN_PLAYERS) == Vote(
        "LUP1", ("Борис",), False, ("fake",)
    )
    assert _vote("страхую, без страховки? Алена", lexicon, RUSSIAN_PLAYERS) == Vote(
        "LUP1", ("Алёна",), False, ("insure", "noinsure")
    )
    assert _vote("Пропуск", lexicon, RUSSIAN_PLAYERS) == Vote("LUP1", (), True, (), ())
    game = GameInfo("LUP1", signup_open=True)
    context = MailContext(lexicon=lexicon)
    assert read_signup("Иван, мужчина", game, context) == Signup("LUP1", "Иван", Gender.MAN)
    assert read_signup("Мария, женщина", game, context) == Signup("LUP1", "Мария", Gender.VROUW)


def test_help_subject_in_every_language_routes_to_help_with_its_game() -> None:
    every = help_words()  # the story layer's: the parser knows no Help word of its own
    for subject in ("Aiuto", "Помощь: LUP1", "Help", "hulp", "Вопрос"):
        routed = route(parse_mail(_mail("una domanda", subject)), ["LUP1"], help_words=every)
        assert isinstance(routed, Help) and routed.text == "una domanda", subject
    routed = route(parse_mail(_mail("?", "Aiuto LUP1")), ["LUP1"], help_words=every)
    assert routed == Help("?", "LUP1")
    # Without Help words (the parser's default) a Help subject is only a subject.
    routed = route(parse_mail(_mail("?", "Aiuto LUP1")), ["LUP1"])
    assert routed == Route("LUP1")


def test_route_names_the_game_or_says_why_not() -> None:
    assert route(parse_mail(_mail("Anna", "Re: lup1")), ["LUP1", "LUP2"]) == Route("LUP1")
    own = parse_mail(_mail("Anna").replace(b"p@example.org", b"narratore@example.org"))
    assert route(own, ["LUP1"], {"narratore@example.org"}) == Ignore(IgnoreReason.LOOP)
    lost = route(parse_mail(_mail("Anna", "ciao")), ["LUP1", "LUP2"])
    assert isinstance(lost, ParseError) and lost.code is ErrorCode.NO_GAME
    assert lost.params == {"games": ("LUP1", "LUP2")} and lost.game is None


def test_keyword_only_votes_need_no_name() -> None:
    counts = {"agguato": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)}
    assert _vote("Agguato!", ITALIAN_LEXICON, name_counts=counts) == Vote(
        "LUP1", (), False, ("agguato",)
    )
    assert _vote("risparmia tutti", ITALIAN_LEXICON, name_counts=counts) == Vote(
        "LUP1", (), False, ("risparmia",)
    )
    command = _vote("condanna Anna", ITALIAN_LEXICON, name_counts=counts)
    assert isinstance(command, ParseError) and command.code is ErrorCode.TOO_MANY_NAMES
    assert command.params["expected"] == "0"
    # A keyword that needs a name still does; so does a plain vote with no keyword.
    command = _vote("caccia", ITALIAN_LEXICON, name_counts=counts)
    assert isinstance(command, ParseError) and command.code is ErrorCode.NO_NAME


def test_approval_votes_take_zero_to_n_names() -> None:
    counts = {"": (0, len(PLAYERS))}
    assert _vote("Anna, Carla e Dario", ITALIAN_LEXICON, name_counts=counts) == Vote(
        "LUP1", ("Anna", "Carla", "Dario"), False, ()
    )
    # No name and no keyword: the blank word is needed (no-name reminds of the choices).
    command = _vote("boh", ITALIAN_LEXICON, name_counts=counts)
    assert isinstance(command, ParseError) and command.code is ErrorCode.NO_NAME
    assert command.params["expected"] == "0-4"


def test_keywords_the_sender_cannot_use_are_dropped() -> None:
    assert _vote("visita Anna", ITALIAN_LEXICON) == Vote("LUP1", ("Anna",), False, ("visita",))
    usable = frozenset({"caccia"})
    assert _vote("visita Anna", ITALIAN_LEXICON, usable_keywords=usable) == Vote(
        "LUP1", ("Anna",), False, ()
    )
    assert _vote("caccia Anna, non visita", ITALIAN_LEXICON, usable_keywords=usable) == Vote(
        "LUP1", ("Anna",), False, ("caccia",)
    )
    # A dropped keyword's name count no longer applies: the plain vote's does.
    counts = {"agguato": (0, 0)}
    command = _vote("agguato", ITALIAN_LEXICON, name_counts=counts, usable_keywords=frozenset())
    assert isinstance(command, ParseError) and command.code is ErrorCode.NO_NAME


def test_the_default_lexicon_knows_no_word() -> None:
    assert not DEFAULT_LEXICON.keywords and not DEFAULT_LEXICON.blanco_words
    assert not DEFAULT_LEXICON.genders
    assert not DEFAULT_LEXICON.help_words and not DEFAULT_LEXICON.stop_words
    context = MailContext()
    assert (context.keywords, context.blanco_words) == ({}, frozenset())
    assert _vote("witte Anna", DEFAULT_LEXICON) == Vote("LUP1", ("Anna",), False, ())
    command = _vote("blanco", DEFAULT_LEXICON)
    assert isinstance(command, ParseError) and command.code is ErrorCode.NO_NAME


def test_errors_are_worded_by_the_injected_explainer() -> None:
    command = _vote("boh", ITALIAN_LEXICON)
    assert isinstance(command, ParseError)
    assert command.message == explain_plainly("no-name", command.params)
    assert command.message == "no-name; choices: Anna, Bruno, Carla, Dario; expected: 1"

    def italian(code: str, params: Mapping[str, str | tuple[str, ...]]) -> str:
        return f"{code}: scegli tra {', '.join(params['choices'])}"

    command = _vote("boh", ITALIAN_LEXICON, explain=italian)
    assert isinstance(command, ParseError)
    assert command.message == "no-name: scegli tra Anna, Bruno, Carla, Dario"
    assert command.params["choices"] == PLAYERS


def test_from_words_checks_the_shape() -> None:
    lexicon = Lexicon.from_words({"keywords": {"witte": ["Wítte"]}}, ("witte",))
    assert lexicon.keywords == {"witte": "witte"} and lexicon.keyword_order == ("witte",)
    base = Lexicon.from_words({"stop_words": ["de"], "help": ["Hulp"]})
    merged = Lexicon.from_words({"stop_words": ["het"]}, base=base)
    assert (merged.stop_words, merged.help_words) == ({"de", "het"}, {"hulp"})
    bad: list[Mapping[str, object]] = [
        {"keywords": {"a": ["uno"], "b": ["Uno"]}},  # one word, two ids
        {"keywords": {"a": "uno"}},  # not a list
        {"keywords": ["uno"]},  # not a table
        {"genders": {"altro": ["x"]}},  # no such gender
        {"blanco": ["..."]},  # no letters
        {"genders": {"man": ["uomo"], "vrouw": ["uomo"]}},
    ]
    for words in bad:
        with pytest.raises(ValueError):
            Lexicon.from_words(words)
    with pytest.raises(ValueError, match="cacia"):  # a misspelt id in the pack
        Lexicon.from_words({"keywords": {"cacia": ["caccia"]}}, ("caccia",))


def test_no_ruleset_word_is_written_in_parsing() -> None:
    """parsing/*.py holds no keyword, role or step id of any registered ruleset."""
    ids: set[str] = set()
    for ruleset_id in ruleset_ids():
        ruleset = get_ruleset(ruleset_id)
        ids.update(ruleset.keywords, ruleset.roles, ruleset.steps)
    found = {
        f"{path.name}: {node.value}"
        for path in sorted((ROOT / "parsing").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids
    }
    assert found == set()


def test_cli_parse_counts_per_keyword_and_usable_keywords(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(ROOT / "tests" / "mail" / "gmail_vote_witte_subject.eml")
    players = ["--players", "Anna,Eva", "--json"]

    def parse(*options: str) -> dict[str, object]:
        assert main(["parse", path, *players, *options]) == 0
        result: dict[str, object] = json.loads(capsys.readouterr().out)
        return result

    assert (parse()["targets"], parse()["keywords"]) == (["Eva"], ["witte"])
    dropped = parse("--usable", "burgemeester")
    assert (dropped["kind"], dropped["targets"], dropped["keywords"]) == ("vote", ["Eva"], [])
    none_allowed = parse("--count", "witte=0", "--count", "2")
    assert (none_allowed["code"], none_allowed["params"]) == (
        "too-many-names",
        {"names": ["Eva"], "expected": "0", "choices": ["Anna", "Eva"]},
    )
