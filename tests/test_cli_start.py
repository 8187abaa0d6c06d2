"""The command line starts cheaply: building its parser, and reading a mail, import little.

`narrator --help` imports every command module, so a command module imports the database,
the rules, the stories and the daemon only when its command runs; `narrator parse` reads a
pack's words without the story templates (Jinja2) or SQLAlchemy.  Each check runs in a new
interpreter, the only place where "what was imported" means anything.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import stories
from narrator.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sqlalchemy", "alembic", "jinja2", "aiosmtpd", "asyncio", "babel", "rules", "stories")


def imported_after(code: str) -> list[str]:
    """The heavy top-level packages a new interpreter has imported after running `code`."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout.splitlines()[-1]))


def test_building_the_parser_imports_no_command_dependency() -> None:
    assert imported_after("import narrator.cli; narrator.cli.build_parser()") == []


def test_reading_a_packs_words_loads_no_template_and_no_database() -> None:
    code = "from stories.lexicon import lexicon_for; lexicon_for('wakkerdam', 'nl')"
    assert set(imported_after(code)) <= {"babel", "rules", "stories"}


def test_parsing_a_mail_file_loads_no_database_template_or_downloader() -> None:
    """`narrator parse FILE` (no game in the database) imports neither SQLAlchemy nor the
    templates, nor the HTTP client the look-alike table's library carries for updates."""
    mail = ROOT / "tests" / "mail" / "gmail_vote_blanco.eml"
    probe = (
        "import contextlib, io, json, sys\n"
        "from narrator.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    status = main(['parse', {str(mail)!r}])\n"
        "print(json.dumps([status, out.getvalue(), sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    status, printed, modules = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and "blanco" in printed, done.stderr
    unwanted = {"sqlalchemy", "alembic", "jinja2", "urllib.request", "http.client"}
    assert [m for m in modules if m in unwanted or m.split(".")[0] in unwanted] == []


def test_importing_the_story_keys_loads_no_ruleset() -> None:
    probe = "import json, sys, stories.keys; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    rules = [m for m in json.loads(done.stdout) if m.split(".")[0] == "rules"]
    assert rules and all(m == "rules" or m.startswith("rules.core") for m in rules), rules


def test_every_command_module_is_registered() -> None:
    """The parser lists its command modules by name: each file in narrator/commands is one."""
    modules = {p.stem for p in (ROOT / "narrator" / "commands").glob("*.py")} - {"__init__"}
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "==SUPPRESS==" and a.choices)
    assert set(commands.choices) == modules


@pytest.mark.parametrize("name", stories.__all__)
def test_every_public_story_name_is_found_in_its_module(name: str) -> None:
    assert getattr(stories, name) is not None


def test_an_unknown_story_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        stories.no_such_name  # noqa: B018
