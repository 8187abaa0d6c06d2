"""Benchmark of mail parsing: messages/s over the fixture corpus, and name matching vs players.

Run: ``python benchmarks/parsing.py``.  Prints the corpus rate (parse_mail alone, and
parse_mail + route + read_command) and, for games of 10, 100 and 1,000 players, the cost of
reading one vote mail, so that growth with the number of players is visible.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path and its name would shadow the
# `parsing` package: look in the project root instead.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]

from parsing import (  # noqa: E402
    Command,
    GameInfo,
    MailContext,
    ParsedMail,
    Route,
    parse_mail,
    read_command,
    route,
)
from stories.lexicon import explainer_for, lexicon_for  # noqa: E402

CORPUS = [path.read_bytes() for path in sorted((ROOT / "tests" / "mail").glob("*.eml"))]
OWN = frozenset({"verteller@example.org"})
CONTEXT = MailContext(
    lexicon=lexicon_for("wakkerdam", "nl"), explain=explainer_for("wakkerdam", "nl")
)
SYLLABLES = ["an", "bra", "car", "dir", "e", "jo", "ma", "rie", "ke", "sjo", "erd", "li"]


def rate(action: Callable[[], None], count: int, seconds: float = 1.0) -> float:
    """Runs of ``action`` (each handling ``count`` messages) per second, as messages/s."""
    runs, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        action()
        runs += 1
    return runs * count / (time.perf_counter() - start)


def read(mail: ParsedMail, game: GameInfo) -> Command:
    """Route ``mail`` and read it for ``game``, as the inbox does."""
    routed = route(mail, (game.name,), OWN, CONTEXT.explain)
    return read_command(mail, game, CONTEXT) if isinstance(routed, Route) else routed


def player_names(count: int) -> tuple[str, ...]:
    names = []
    for index in range(count):
        a, b, c = index % 12, index // 12 % 12, index // 144 % 12
        names.append((SYLLABLES[a] + SYLLABLES[b] + SYLLABLES[c]).capitalize())
    return tuple(dict.fromkeys(names))


def main() -> None:
    game = GameInfo("WW5", players=("Anna", "Bram", "Carla", "Dirk", "Eva", "Zoë", "Jan"))
    parsed = [parse_mail(raw) for raw in CORPUS]
    figures = {
        "parse_mail": rate(lambda: [parse_mail(raw) for raw in CORPUS], len(CORPUS)),
        "route + read": rate(lambda: [read(mail, game) for mail in parsed], len(parsed)),
        "parse_mail + route + read": rate(
            lambda: [read(parse_mail(raw), game) for raw in CORPUS], len(CORPUS)
        ),
    }
    print(f"corpus: {len(CORPUS)} messages")
    for label, value in figures.items():
        print(f"  {label:24s}{value:9.0f} msg/s")
    print("name matching (one vote mail: a 40-word sentence and a misspelt name):")
    base = 0.0
    for count in (10, 100, 1000):
        per_mail, build = matching_cost(player_names(count))
        base = base or per_mail
        print(
            f"  {count:5d} players: {per_mail:8.1f} µs per mail "
            f"({per_mail / base:4.1f}x the 10-player cost); name index built once: {build:8.1f} µs"
        )


def matching_cost(names: tuple[str, ...]) -> tuple[float, float]:
    """Microseconds to read one vote mail in a game of ``names``, and to build its index."""
    target = names[len(names) // 2]
    misspelt = target[0] + target[2] + target[1] + target[3:]
    body = ("Na lang nadenken over wat er gisteren gebeurde " * 5) + f"kies ik {misspelt}."
    mail: ParsedMail = parse_mail(f"From: p@example.org\nSubject: WW5\n\n{body}\n".encode())
    game = GameInfo("WW5", players=names)
    read(mail, game)  # builds the game's name index once
    per_second = rate(lambda: read(mail, game), 1)
    builds = rate(lambda: GameInfo("WW5", players=names).matcher, 1, 0.5)
    return 1e6 / per_second, 1e6 / builds


if __name__ == "__main__":
    main()
