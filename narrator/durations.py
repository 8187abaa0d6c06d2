"""Durations as admins write them (`90s`, `10m`, `2h`, `2d`, or combined like `1d12h`)."""

from __future__ import annotations

import re

_UNITS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)([dhms])")
_WHOLE = re.compile(r"(?:\d+[dhms])+")


def parse_duration(text: str) -> int:
    """Return the number of seconds in `text` (``90s``, ``10m``, ``2h``, ``2d``, ``1d12h``).

    Raises ValueError with a readable message when `text` is not such a duration or is zero.
    """
    cleaned = text.strip().lower()
    if not _WHOLE.fullmatch(cleaned):
        raise ValueError(
            f"not a duration: {text!r} (write a number and a unit: 90s, 10m, 2h, 2d, or 1d12h)"
        )
    units = [unit for _, unit in _PART.findall(cleaned)]
    if len(set(units)) != len(units):
        raise ValueError(f"not a duration: {text!r} (each unit at most once)")
    seconds = sum(int(number) * _UNITS[unit] for number, unit in _PART.findall(cleaned))
    if seconds <= 0:
        raise ValueError(f"a duration must be longer than zero: {text!r}")
    return seconds


def format_duration(seconds: int) -> str:
    """Return `seconds` in the shortest form `parse_duration` reads back (``2d``, ``1d12h``)."""
    if seconds <= 0:
        raise ValueError(f"a duration must be longer than zero, not {seconds}")
    parts: list[str] = []
    rest = seconds
    for unit, size in _UNITS.items():
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
