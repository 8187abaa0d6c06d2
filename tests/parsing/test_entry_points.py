"""The narrator's two entry points into the parser: ``parse_and_route`` (the raw mail parsed and
routed in one call) and ``read_for`` (``read_command`` with its context given by parts) read
exactly as the calls they stand for."""

from __future__ import annotations

import pytest

from parsing import (
    GameInfo,
    MailContext,
    ParsedMail,
    parse_and_route,
    parse_mail,
    read_command,
    read_for,
    route,
)
from stories.lexicon import choice_words_for, explainer_for, help_words, lexicon_for

NARRATOR = "verteller@example.org"
GAMES = ("WW5", "MF1")


def _raw(subject: str, body: str, extra: str = "", sender: str = "anna@example.org") -> bytes:
    return f"From: Anna <{sender}>\nSubject: {subject}\n{extra}\n{body}\n".encode()


@pytest.mark.parametrize(
    "raw",
    [
        _raw("WW5", "Bram"),
        _raw("Re: MF1", "kill Dora\n\n> quoted"),
        _raw("Help WW5", "How does the Seer work?"),
        _raw("no game here", "Bram"),
        _raw("Out of office", "I am away", "Auto-Submitted: auto-replied\n"),
        _raw("WW5", "Bram", sender=NARRATOR),
        b"",
    ],
)
def test_parse_and_route_is_parse_mail_then_route(raw: bytes) -> None:
    explain = explainer_for("wakkerdam", "nl")
    words = help_words()
    parsed, routed = parse_and_route(raw, GAMES, {NARRATOR}, explain, words)
    assert parsed == parse_mail(raw)
    assert routed == route(parse_mail(raw), GAMES, {NARRATOR}, explain, words)


MAFIA = GameInfo(name="MF1", players=("Alan", "Dora", "Emma", "Frank", "Gina"))
# A Mafioso who is the Doctor too (his moves), and whose request names a role.
PARTS: dict[str, object] = {
    "lexicon": lexicon_for("mafia", "en"),
    "explain": explainer_for("mafia", "en"),
    "sender_player": "Gina",
    "name_counts": {"": (1, 2), "kill": (1, 1), "insure": (0, 1), "request": (1, 1)},
    "choice_words": {"request": {"doctor": choice_words_for("mafia", "en", "doctor")}},
    "number_keywords": frozenset({"buy"}),
    "moves": {"": "heal", "kill": "kill", "insure": "kill", "request": "request"},
}


@pytest.mark.parametrize(
    ("game", "body", "parts"),
    [
        (MAFIA, "kill Dora\ninsure Emma\nAlan", PARTS),
        (MAFIA, "request doctor", PARTS),
        (MAFIA, "kill Nobody", PARTS),
        (MAFIA, "Dora\n\nGina", PARTS),
        (MAFIA, "Dora", {}),  # every part left to its default
        (
            GameInfo(name="WW5", signup_open=True),
            "Gijs, man",
            {"lexicon": lexicon_for("wakkerdam", "nl")},
        ),
    ],
)
def test_read_for_reads_as_read_command_in_the_context_of_its_parts(
    game: GameInfo, body: str, parts: dict[str, object]
) -> None:
    mail = ParsedMail(sender="gina@example.org", subject=game.name, body=body)
    expected = read_command(mail, game, MailContext(**parts))  # type: ignore[arg-type]
    assert read_for(mail, game, **parts) == expected  # type: ignore[arg-type]
