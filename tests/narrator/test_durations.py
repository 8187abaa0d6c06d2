"""Durations as admins write them: 90s, 10m, 2h, 2d (and combinations), both ways."""

from __future__ import annotations

import pytest

from narrator.durations import format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("10m", 600),
        ("2h", 7_200),
        ("2d", 172_800),
        ("1d12h", 129_600),
        (" 3H ", 10_800),
        ("1h30m15s", 5_415),
    ],
)
def test_parse_duration(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "2", "d", "2w", "1.5h", "-1h", "2 d", "1h1h", "0s", "0d0h"])
def test_bad_durations_are_refused_with_the_accepted_forms(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "text"), [(90, "1m30s"), (600, "10m"), (172_800, "2d"), (129_600, "1d12h")]
)
def test_format_duration(seconds: int, text: str) -> None:
    assert format_duration(seconds) == text


@pytest.mark.parametrize("seconds", [1, 59, 60, 3_599, 86_400, 90_061, 10**7])
def test_format_then_parse_is_identity(seconds: int) -> None:
    assert parse_duration(format_duration(seconds)) == seconds


def test_format_refuses_zero() -> None:
    with pytest.raises(ValueError):
        format_duration(0)
