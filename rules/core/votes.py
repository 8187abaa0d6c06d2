"""Vote counting shared by rulesets: plurality with ties, weighted totals, number forms."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def count(choices: Iterable[str]) -> dict[str, int]:
    """Return candidate -> number of votes, in the order candidates first appear."""
    counts: dict[str, int] = {}
    for name in choices:
        counts[name] = counts.get(name, 0) + 1
    return counts


def leaders(totals: Mapping[str, float]) -> tuple[str, ...]:
    """Return the candidates with the highest positive total (several on a tie), in map order."""
    best = max((value for value in totals.values() if value > 0), default=0.0)
    if best <= 0:
        return ()
    return tuple(name for name, value in totals.items() if value == best)


def plurality(choices: Iterable[str]) -> str | None:
    """Return the single most-voted candidate, or None on a tie for first place or no votes."""
    top = leaders(count(choices))
    return top[0] if len(top) == 1 else None


def number(value: float) -> int | float:
    """Return ``value`` as an int when whole, else as a float (the transcript form)."""
    return int(value) if float(value).is_integer() else float(value)


def withdraw(
    votes: Iterable[tuple[str, tuple[str, ...]]], player: str
) -> dict[str, tuple[str, ...]]:
    """Return the votes in force (key ``Name`` or ``Name:keyword`` -> names, arrival order
    kept) without ``player``'s own and without every vote that names him: what is left when
    he is taken out of the game (a removal)."""
    return {
        key: names
        for key, names in votes
        if key.partition(":")[0] != player and player not in names
    }
