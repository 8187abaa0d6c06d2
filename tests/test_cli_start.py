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
from narrator.cli import COMMANDS, build_parser, named_command

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sqlalchemy", "alembic", "jinja2", "aiosmtpd", "asyncio", "babel", "rules", "stories")


def new_python(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """A new interpreter run with `args` (``-c CODE``, ``-m MODULE …``) in the checkout."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=check
    )


def imported_after(code: str) -> list[str]:
    """The heavy top-level packages a new interpreter has imported after running `code`."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = new_python("-c", probe)
    return list(json.loads(done.stdout.splitlines()[-1]))


def test_building_the_parser_imports_no_command_dependency() -> None:
    assert imported_after("import narrator.cli; narrator.cli.build_parser()") == []


def test_a_named_command_imports_only_its_own_command_module() -> None:
    probe = (
        "import json, sys\n"
        "from narrator.cli import build_parser\n"
        "build_parser('game').parse_args(['game', 'show', 'WW5'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('narrator.commands.'))))"
    )
    done = new_python("-c", probe)
    assert json.loads(done.stdout) == ["narrator.commands.game"]


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["game", "show", "WW5"], "game"),
        (["--config", "n.toml", "game", "show", "WW5", "--json"], "game"),
        (["--config=n.toml", "parse", "mail.eml"], "parse"),
        (["--conf", "n.toml", "db", "upgrade"], "db"),
        (["stories", "check", "--", "-h"], "stories"),
        (["--help", "game"], None),
        (["game", "show", "-h"], None),
        (["game", "--help"], None),
        ([], None),
        (["--config", "n.toml"], None),
        (["--config"], None),
        (["no-such-command", "x"], None),
        (["--json", "game", "list"], "game"),
    ],
)
def test_the_command_a_command_line_names(argv: list[str], command: str | None) -> None:
    """None: the full parser reads it (help, no command, an unknown one, a usage error)."""
    assert named_command(argv) == command


@pytest.mark.parametrize(
    "argv",
    [
        ["game", "show", "WW5", "--json"],
        ["--config", "n.toml", "game", "list"],
        ["parse", "mail.eml", "--game", "WW5"],
        ["db", "upgrade"],
        ["stories", "list", "--files"],
        ["distributions", "list", "--players", "8"],
    ],
)
def test_a_named_commands_parser_reads_its_line_as_the_full_parser_does(argv: list[str]) -> None:
    command = named_command(argv)
    assert command in COMMANDS
    assert build_parser(command).parse_args(argv) == build_parser().parse_args(argv)


def test_a_usage_error_after_a_named_command_is_the_full_parsers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--json", "game", "list"]
    messages = []
    for parser in (build_parser(named_command(argv)), build_parser()):
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args(argv)
        assert exit_.value.code == 2
        messages.append(capsys.readouterr().err)
    assert messages[0] == messages[1] == "narrator: error: unrecognized arguments: --json\n"


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
    done = new_python("-c", probe)
    status, printed, modules = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and "blanco" in printed, done.stderr
    unwanted = {"sqlalchemy", "alembic", "jinja2", "urllib.request", "http.client"}
    assert [m for m in modules if m in unwanted or m.split(".")[0] in unwanted] == []


def test_importing_the_story_keys_loads_no_ruleset() -> None:
    probe = "import json, sys, stories.keys; print(json.dumps(sorted(sys.modules)))"
    done = new_python("-c", probe)
    rules = [m for m in json.loads(done.stdout) if m.split(".")[0] == "rules"]
    assert rules and all(m == "rules" or m.startswith("rules.core") for m in rules), rules


def test_every_command_module_is_registered() -> None:
    """The parser lists its command modules by name: each file in narrator/commands is one."""
    modules = {p.stem for p in (ROOT / "narrator" / "commands").glob("*.py")} - {"__init__"}
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "==SUPPRESS==" and a.choices)
    assert set(commands.choices) == modules == set(COMMANDS)


@pytest.mark.parametrize("name", stories.__all__)
def test_every_public_story_name_is_found_in_its_module(name: str) -> None:
    assert getattr(stories, name) is not None


def test_an_unknown_story_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        stories.no_such_name  # noqa: B018


def test_the_console_script_exits_with_the_commands_status_and_its_exit_handlers_run() -> None:
    """`run` (the console script) skips only the interpreter's last search for garbage cycles:
    the status is the command's, and what the command left to do at exit (an exit handler of
    its own, output still buffered) is done; the objects are frozen once those are."""
    probe = (
        "import atexit, gc, sys\n"
        "import narrator.cli\n"
        "atexit.register(lambda: print('frozen at the end', gc.get_freeze_count() > 0))\n"
        "def command(argv=None):\n"
        "    atexit.register(lambda: print('handler ran, frozen', gc.get_freeze_count() > 0))\n"
        "    sys.stdout.write('buffered')\n"
        "    return 3\n"
        "narrator.cli.main = command\n"
        "narrator.cli.run()\n"
    )
    done = new_python("-c", probe, check=False)
    assert done.returncode == 3
    assert done.stdout.splitlines() == [
        "bufferedhandler ran, frozen False",
        "frozen at the end True",
    ]


def test_python_dash_m_narrator_is_the_console_script() -> None:
    done = new_python("-m", "narrator", "no-such-command", check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("narrator: error: ")
