"""Every raw mail of the fixture corpus (tests/mail/*.eml) gives its expected command."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from parsing import Command, GameInfo, ParsedMail, command_to_dict, parse_mail
from tests.parsing.reading import read_mail

MAIL_DIR = Path(__file__).resolve().parent.parent / "mail"
MANIFEST = tomllib.loads((MAIL_DIR / "expected.toml").read_text(encoding="utf-8"))
DEFAULTS = MANIFEST.pop("defaults")
CONTEXT_KEYS = {"game", "players", "signup", "lang", "ruleset", "count", "me"}


def test_every_fixture_has_an_expectation_and_the_corpus_is_large() -> None:
    files = {path.name for path in MAIL_DIR.glob("*.eml")}
    assert files == set(MANIFEST), "fixtures and expected.toml disagree"
    assert len(files) >= 60


def read_for(parsed: ParsedMail, case: dict[str, Any]) -> Command:
    """Route and read a fixture in its game context (defaults overridden per fixture)."""
    game = GameInfo(
        name=case.get("game", DEFAULTS["game"]),
        signup_open=case.get("signup", False),
        players=tuple(case.get("players", DEFAULTS["players"])),
    )
    other = GameInfo("WW4", players=("Xander",))
    return read_mail(
        parsed,
        (other, game),
        language=case.get("lang", "nl"),
        ruleset=case.get("ruleset", "wakkerdam"),
        sender_player=case.get("me"),
        name_counts={"": tuple(case["count"])} if "count" in case else {},
    )


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_fixture(name: str) -> None:
    case = MANIFEST[name]
    parsed = parse_mail((MAIL_DIR / name).read_bytes())
    result = command_to_dict(read_for(parsed, case), parsed)
    expected = {key: value for key, value in case.items() if key not in CONTEXT_KEYS}
    actual: dict[str, Any] = {}
    for key in expected:
        if key == "corrections":
            actual[key] = [f"{c['written']}={c['understood']}" for c in result.get(key, [])]
        elif key == "subject":
            actual[key] = parsed.subject
        elif key == "body":
            actual[key] = parsed.body
        elif key == "message_contains":
            message = str(result.get("message", ""))
            actual[key] = expected[key] if expected[key] in message else message
        else:
            actual[key] = result.get(key)
    assert actual == expected, f"{name}: body read as {parsed.body!r}; result {result}"
