"""Every word a Wakkerdam mail tells a player to write is understood: the keywords ("zet het
woord "witte" in je mail"), the blank vote ("of stem blanco"), the genders of a signup
("Naam, man (of Naam, vrouw)") and the Help subject, fed back through the parser of the
mail's language as the inbox reads them."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from parsing import GameInfo, Help, Signup, Vote, parse_mail, read_command, route
from parsing.model import MailContext
from rules import get_ruleset
from stories import FileStore, Renderer
from stories.lexicon import explainer_for, help_words, lexicon_for
from stories.samples import mail_samples

RULESET = "wakkerdam"
PLAYERS = ("Anna", "Bram", "Carla", "Dirk", "Eva", "Frank")
TOLD = {
    "nl": {
        "keyword": re.compile(r'het woord "([^"]+)"'),
        "blank": re.compile(r"\b(?:stem|of|stemt) (blanco)\b"),
        "gender": re.compile(r"\bNaam, (\w+)"),
        "help": re.compile(r"onderwerp (Help|Hulp)\b"),
    },
    "en": {
        "keyword": re.compile(r'the word "([^"]+)"'),
        "blank": re.compile(r"\b(?:vote|or) (blank|blanco)\b"),
        "gender": re.compile(r"\bName, (\w+)"),
        "help": re.compile(r"subject (Help)\b"),
    },
}


def _raw(subject: str, body: str) -> bytes:
    return (
        f"From: Anna <anna@example.org>\r\nTo: n@example.org\r\nSubject: {subject}\r\n"
        f"Message-ID: <a@example.org>\r\n\r\n{body}\r\n"
    ).encode()


def _told(language: str) -> Iterator[tuple[str, str, str]]:
    """(origin, kind, word) of every word the language's mails tell a player to write."""
    store = FileStore()
    renderer = Renderer(store)
    for source in store.all():
        key = source.key
        if key.ruleset != RULESET or key.language != language or not key.is_mail:
            continue
        if key.event.startswith("_"):
            continue
        for number, context in enumerate(mail_samples(key)):
            mail = renderer.render_source_mail(source, context, random.Random(number))
            for kind, pattern in TOLD[language].items():
                for word in pattern.findall(mail.text):
                    yield source.origin, kind, word


@pytest.mark.parametrize("language", ["nl", "en"])
def test_every_word_a_mail_tells_to_write_is_understood(language: str) -> None:
    lexicon = lexicon_for(RULESET, language)
    keywords = get_ruleset(RULESET).keywords
    seen: dict[tuple[str, str], str] = {}
    for origin, kind, word in _told(language):
        seen.setdefault((kind, word), origin)
    assert {kind for kind, _ in seen} == {"keyword", "blank", "gender", "help"}, seen
    game = GameInfo(name="WW5", players=PLAYERS)
    for (kind, word), origin in sorted(seen.items()):
        context = MailContext(
            lexicon=lexicon,
            sender_player="Anna",
            name_counts={"": (1, 1), **{k: (0, 2) for k in keywords}},
            explain=explainer_for(RULESET, language),
        )
        if kind == "keyword":
            read = read_command(parse_mail(_raw("WW5", f"{word} Bram")), game, context)
            assert isinstance(read, Vote) and read.keywords, (origin, word, read)
        elif kind == "blank":
            read = read_command(parse_mail(_raw("WW5", word)), game, context)
            assert isinstance(read, Vote) and read.blanco, (origin, word, read)
        elif kind == "gender":
            signup = GameInfo(name="WW5", signup_open=True)
            read = read_command(parse_mail(_raw("WW5", f"Gijs, {word}")), signup, context)
            assert isinstance(read, Signup), (origin, word, read)
        else:
            mail = parse_mail(_raw(word, "Hoe werkt de Heks?"))
            routed = route(mail, ["WW5"], (), context.explain, help_words())
            assert isinstance(routed, Help), (origin, word, routed)
