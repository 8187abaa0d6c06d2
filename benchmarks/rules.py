"""Benchmark: one full night and one day of busy Wakkerdam games of 10 to 1,000 players.

Prints the time per night and per day spent resolving (the resolve calls only; votes are cast
beforehand) and spent on the step mails' ``choices`` (``choices()`` of every asked player as each
step opens, as the daemon does), and the ratios t(1000)/t(100), which should stay close to 10
(linear in the number of players).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import Rejected, Seat, Settings, Vote, get_ruleset

RS = get_ruleset("wakkerdam")
# Share of each busy role in the village; burgers fill the rest.
MIX = {
    "weerwolf": 0.14, "witte_weerwolf": 0.02, "vampier": 0.05, "psychopaat": 0.01,
    "fluitspeler": 0.01, "genezer": 0.06, "ziener": 0.05, "dwaas": 0.02, "priester": 0.04,
    "slet": 0.04, "verleidster": 0.04, "goochelaar": 0.04, "heks": 0.03, "klaas_vaak": 0.02,
    "waarschuwer": 0.04, "raaf": 0.03, "schout": 0.02, "jager": 0.04, "onschuldige_meisje": 0.02,
    "dorpsoudste": 0.01, "zondebok": 0.01, "dorpsgek": 0.01, "welp": 0.02,
}  # fmt: skip
NIGHT = {"grafrover", "klaas_vaak", "nacht", "heks", "ochtend", "doden"}


def busy_game(players: int, seed: int) -> object:
    """Return a new game with many voting roles."""
    roles: list[str] = []
    for role, share in MIX.items():
        roles += [role] * max(1 if players >= 100 else 0, round(players * share))
    roles = (["weerwolf", "ziener", "heks", *roles])[:players]
    roles += ["burger"] * (players - len(roles))
    random.Random(seed).shuffle(roles)
    seats = [Seat(f"P{i}", role) for i, role in enumerate(roles)]
    return RS.new_game(seats, Settings(seed=seed, options={"mayor": True}, strictness=99))


def cast_votes(state: object, chance: random.Random) -> object:
    """Every asked player votes for random players until a vote is accepted (or blanco)."""
    names = [p.name for p in state.players if p.alive]  # type: ignore[attr-defined]
    for name in RS.asked(state):
        for _attempt in range(6):
            count = 2 if state.step in ("nacht",) and chance.random() < 0.1 else 1
            targets = tuple(chance.sample(names, min(count, len(names))))
            verdict = RS.apply(state, Vote(name, targets, False))
            if not isinstance(verdict, Rejected):
                state = verdict.state
                break
            if verdict.code == "wrong-count":
                verdict = RS.apply(state, Vote(name, tuple(chance.sample(names, 2)), False))
                if not isinstance(verdict, Rejected):
                    state = verdict.state
                    break
    return state


def mail_choices(state: object) -> float:
    """Return the seconds to compute ``choices()`` for every asked player, as a step opens."""
    began = time.perf_counter()
    for name in RS.asked(state):
        RS.choices(state, name)
    return time.perf_counter() - began


def one_cycle(players: int, seed: int) -> tuple[float, float, float, float]:
    """Return seconds (resolving night steps, resolving day steps, night choices, day choices)."""
    chance = random.Random(seed)
    state = busy_game(players, seed)
    night = day = night_choices = day_choices = 0.0
    start_night = state.night  # type: ignore[attr-defined]
    while not state.is_over and state.night == start_night:  # type: ignore[attr-defined]
        step = state.step  # type: ignore[attr-defined]
        choosing = mail_choices(state)
        state = cast_votes(state, chance)
        began = time.perf_counter()
        state = RS.resolve(state).state
        spent = time.perf_counter() - began
        if step in NIGHT:
            night += spent
            night_choices += choosing
        else:
            day += spent
            day_choices += choosing
    return night, day, night_choices, day_choices


def measure(players: int, rounds: int) -> tuple[float, ...]:
    """Return the median times of :func:`one_cycle` over ``rounds`` games."""
    results = [one_cycle(players, seed) for seed in range(rounds)]
    return tuple(statistics.median(r[i] for r in results) for i in range(4))


LABELS = ("night", "day", "choices night", "choices day")


def main() -> None:
    """Print the figures."""
    sizes = {10: 30, 100: 10, 1000: 5}
    timings = {n: measure(n, rounds) for n, rounds in sizes.items()}
    print("rules benchmark (wakkerdam, busy roles; median time per night/day)")
    print("  resolve: the resolve calls; choices: choices() of every asked player of each step")
    for n, (night, day, c_night, c_day) in timings.items():
        print(
            f"  {n:>5} players: night {night * 1000:8.2f} ms   day {day * 1000:8.2f} ms"
            f"   choices night {c_night * 1000:8.2f} ms   day {c_day * 1000:8.2f} ms"
        )
    for index, label in enumerate(LABELS):
        ratio = timings[1000][index] / timings[100][index]
        print(f"  t(1000)/t(100) {label}: {ratio:.1f}  (linear: ~10)")


if __name__ == "__main__":
    main()
