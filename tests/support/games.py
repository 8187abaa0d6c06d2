"""Game rows for tests that set up a game directly in the database."""

from __future__ import annotations

from narrator.models import Game


def game_taking_signups(name: str = "WW5", *, language: str = "nl", status: str = "signup") -> Game:
    """A Wakkerdam game (one step an hour, strictness 2) in `status`, by default taking signups."""
    return Game(
        name=name,
        name_key=name.lower(),
        ruleset="wakkerdam",
        language=language,
        theme="wakkerdam",
        speed=3600,
        strictness=2,
        status=status,
    )
