"""Benchmark of the command line's start: CPU seconds of a whole `narrator` process per command.

A new admin or a test that runs the CLI as a process pays the start of every command: the
imports before the command does any work.  Each command below runs in a new process (the
`narrator` console script next to this Python, else ``python -m narrator``) several times; the
best and the median CPU (user + system, of the child, its exit included) are printed beside
``python -c pass`` and the target (issue 25: ``narrator --help``, ``game show NAME`` and ``parse
FILE`` in at most 0.3 s; the verdict is on the median with byte code cached), with the load
average: a loaded machine inflates CPU time too, by a fifth to a third at a load of 4-9 on
these 2 CPUs, so compare figures of one run, or count instructions (below), which load does
not change.

Two floors are printed with them: a process that only imports SQLAlchemy (every command that
reads the database pays it, however it reads: Core, not the ORM, for ``game show``), and one
that imports SQLAlchemy and the Wakkerdam ruleset as a read of a game loads it (its state,
actions, step table and view; the engine, the events and the distributions load where a game
is played).  ``game show`` of the started 8-player game below (instructions counted by
``valgrind --tool=cachegrind``, byte code cached): 1.34 G, 1.53 G before the ruleset's engine,
the migration files' parsing, the other commands' parsers and the event classes were left out
of it (27 November 2026: 0.31 / 0.33 s best / median on an idle machine before, 0.29 / 0.30 s
after at a load of 0.8, 0.30 / 0.31 s at 1.6; the target is met by a hair, or not).  The
console script then stopped the interpreter's last search for garbage cycles at exit
(`narrator.cli.run` freezes the objects as the process ends): 1.34 -> 1.26 G, ``--help`` 0.34
-> 0.33 G.  Of the 1.34 G before it, each part with its share of the interpreter's exit, which
frees what it loaded (7% of the instructions, more of the time: about 0.06 s on an idle
machine): importing SQLAlchemy 56%; the interpreter's start and the ``game`` command's module
and parser 18% (with the standard library modules they import, most of which SQLAlchemy needs
too); the ruleset's read parts 12% (rules.core's value classes, the state and its codec, the
actions and the 28 role modules: a frozen dataclass costs half a millisecond to create, and the
process makes 40, 27 of them in rules.core and the ruleset, 10 in the configuration); the
configuration 4%; the tables 4%; the engine and its SQLite dialect 3%; the migration check, the
two queries and the view 3%.

Two columns: with ``PYTHONDONTWRITEBYTECODE=1`` as the environment has it (the machines here
set it: the project's own modules are compiled at every start unless a ``__pycache__`` exists),
and with byte code cached (``PYTHONPYCACHEPREFIX`` in a temporary folder, warmed by one run, so
that the checkout is not written to).  The game shown is a started 8-player Wakkerdam game on a
SQLite file.  Prints figures; asserts nothing.  Usage: ``python benchmarks/cli.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAIL = ROOT / "tests" / "mail" / "gmail_vote_blanco.eml"
TARGET = 0.3
TARGETED = ("--help", "game show WW5", "parse FILE")
PLAYERS = ("Anna", "Bram", "Carla", "Dirk", "Eva", "Frank", "Greet", "Hans")


def narrator_command() -> list[str]:
    """The `narrator` console script of this Python's environment, else ``python -m narrator``."""
    script = Path(sys.executable).with_name("narrator")
    return [str(script)] if script.exists() else [sys.executable, "-m", "narrator"]


def child_cpu(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> float:
    """CPU seconds (user + system) of one run of `argv`; raises if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=dict(env), cwd=cwd, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.decode()}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def set_up(home: Path, env: Mapping[str, str]) -> None:
    """A narrator.toml in `home`, its migrated SQLite database and a started game WW5."""
    (home / "narrator.toml").write_text(
        '[narrator]\ndatabase = "sqlite:///narrator.db"\n[outbound]\nmaildir = "outbox"\n',
        encoding="utf-8",
    )
    narrator = narrator_command()
    for args in (["db", "upgrade"], ["game", "create", "WW5"]):
        subprocess.run([*narrator, *args], env=dict(env), cwd=home, check=True, capture_output=True)
    sys.path.insert(0, str(ROOT))
    from narrator.db import make_engine, session_factory, transaction
    from narrator.models import Player, find_game, fold_email, fold_name

    engine = make_engine(f"sqlite:///{home / 'narrator.db'}")
    with transaction(session_factory(engine)) as session:
        game = find_game(session, "WW5")
        assert game is not None
        for seat, name in enumerate(PLAYERS, start=1):
            email = fold_email(f"{name.lower()}@example.org")
            gender = "vrouw" if seat % 2 else "man"
            session.add(
                Player(
                    game_id=game.id, seat=seat, name=name, name_key=fold_name(name),
                    email=email, gender=gender,
                )
            )  # fmt: skip
    engine.dispose()
    subprocess.run(
        [*narrator, "game", "start", "WW5", "--seed", "1"],
        env=dict(env),
        cwd=home,
        check=True,
        capture_output=True,
    )


def _best_median(figures: Sequence[float]) -> str:
    return f"{min(figures):.3f} / {statistics.median(figures):.3f}"


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=5, help="runs per command (best, median)")
    runs = options.parse_args().runs
    narrator = narrator_command()
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import sqlalchemy": [sys.executable, "-c", "import sqlalchemy"],
        "+ rules.wakkerdam": [sys.executable, "-c", "import sqlalchemy, rules.wakkerdam"],
        "--help": [*narrator, "--help"],
        "game list": [*narrator, "game", "list"],
        "game show WW5": [*narrator, "game", "show", "WW5"],
        "parse FILE": [*narrator, "parse", str(MAIL)],
        "parse FILE --game WW5": [*narrator, "parse", str(MAIL), "--game", "WW5"],
        "stories list --files": [*narrator, "stories", "list", "--files"],
    }
    with tempfile.TemporaryDirectory(prefix="narrator-bench-cli-") as folder:
        home, cache = Path(folder) / "home", Path(folder) / "pycache"
        home.mkdir()
        as_found = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = str(cache)
        set_up(home, cached)
        for argv in commands.values():  # warm the byte-code cache
            child_cpu(argv, cached, home)
        load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
        print(f"CPU seconds per process, best / median of {runs} (load average {load}; ", end="")
        print(f"{os.cpu_count()} CPUs)")
        print(f"target: {', '.join(TARGETED)} at most {TARGET} s (median, byte code cached)")
        print(f"{'command':<24} {'DONTWRITEBYTECODE=1':>20} {'byte code cached':>17}  target")
        for label, argv in commands.items():
            found = sorted(child_cpu(argv, as_found, home) for _ in range(runs))
            warm = sorted(child_cpu(argv, cached, home) for _ in range(runs))
            verdict = ""
            if label in TARGETED:
                verdict = "met" if statistics.median(warm) <= TARGET else "NOT met"
            print(f"{label:<24} {_best_median(found):>20} {_best_median(warm):>17}  {verdict}")
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
