"""The `narrator` command line: one parser, subcommands contributed by `narrator.commands.*`.

`build_parser` lists the command modules by name. Each defines::

    def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None

and adds its commands with ``subparsers.add_parser(NAME, parents=[common], ...)`` and
``set_defaults(func=handler)``.  A handler takes the parsed ``argparse.Namespace`` and returns an
exit code (``int``) or ``None`` for success.  Bad input is reported by raising
:class:`CommandError`; ``main`` turns it into a one-line message on stderr and exit status 2.

Building the parser must stay cheap (``narrator --help`` imports every command module): a
command module imports at its top only the standard library and `narrator.cli`, and a handler
imports the rest (database, rules, stories, daemon) when it runs.  A command line that names a
command and asks for no help (``narrator game show WW5``) imports and registers that command's
module only: the others' parsers would never be used.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:  # not subscriptable at run time before Python 3.12's typeshed-only generics
    Subparsers = argparse._SubParsersAction
"""What a command module's ``register`` adds its commands to."""


class CommandError(Exception):
    """A user mistake on the command line: printed as one line, exit status 2."""


class _OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (the interface contract)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


COMMANDS = (
    "admin",
    "db",
    "distributions",
    "game",
    "inject",
    "parse",
    "serve",
    "simulate",
    "stories",
)
"""The command modules, `narrator.commands.<name>`: each adds the command ``narrator <name>``."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Return the full parser with every command module registered; with `command` (one of
    :data:`COMMANDS`), the parser of a command line that names it, where only that module is
    imported and registered."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        metavar="FILE",
        default=argparse.SUPPRESS,
        help="configuration file (default: ./narrator.toml if present, else built-in defaults)",
    )
    parser = _OneLineErrorParser(
        prog="narrator",
        description="Automatic narrator for play-by-mail Werewolf games.",
        parents=[common],
    )
    subparsers = parser.add_subparsers(
        title="commands", metavar="COMMAND", parser_class=_OneLineErrorParser
    )
    # Imported here, not at the top: the command modules import `CommandError` and
    # `Subparsers` from here.
    for name in COMMANDS if command is None else (command,):
        importlib.import_module(f"narrator.commands.{name}").register(subparsers, common)
    return parser


class _NotPlain(Exception):
    """A command line that :func:`named_command` leaves to the full parser."""


class _Probe(argparse.ArgumentParser):
    """The parser of :func:`named_command`: it reports nothing (the full parser does)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _NotPlain(message)


def named_command(argv: Sequence[str]) -> str | None:
    """The command `argv` names (``game`` for ``--config F game show WW5``) when it asks for no
    help anywhere; None for any other command line (no command, an unknown one, ``-h``), which
    the full parser reads and answers."""
    probe = _Probe(prog="narrator", add_help=False)
    probe.add_argument("-h", "--help", action="store_true")
    probe.add_argument("--config")
    probe.add_argument("command", nargs="?")
    try:
        known, _rest = probe.parse_known_args(argv)
    except _NotPlain:
        return None
    if known.help or known.command not in COMMANDS:
        return None
    return str(known.command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(named_command(argv))
    args = parser.parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        result = func(args)
    except CommandError as error:
        print(f"narrator: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    return 0 if result is None else int(result)


def run() -> None:
    """The `narrator` console script (and ``python -m narrator``): :func:`main` in a process of
    its own, whose exit skips the interpreter's last search for garbage cycles.

    At exit Python frees the modules and then walks every object the process still holds
    (all of SQLAlchemy's, the ruleset's, the stories') looking for cycles to free: work for
    nothing, the memory goes back with the process. Freezing the objects at exit (`gc.freeze`,
    the last exit handler to run) leaves that walk nothing to do: a twentieth of the
    instructions of ``narrator game show``. Every other exit handler (logging's flush, open
    files closing as their modules are freed) runs as before. Tests call :func:`main`, in
    their own process, which this leaves alone.
    """
    atexit.register(gc.freeze)
    raise SystemExit(main())


if __name__ == "__main__":
    run()
