"""A Mafia game starts with a built-in distribution, its options merged as the narrator merges
them (`narrator.service.games.start_game`: the ruleset's, then the distribution's)."""

from __future__ import annotations

import pytest

from rules import get_ruleset
from rules.core.model import Settings

RS = get_ruleset("mafia")


@pytest.mark.xfail(
    strict=True,
    raises=ValueError,
    reason="the built-in distributions carry faceless=False, which Settings.check_options "
    "refuses for a key whose declared default is None (rules/mafia/engine.py "
    "DISTRIBUTION_KEYS): 'option faceless must be a NoneType, not False'",
)
@pytest.mark.parametrize("players", [8, 12])
def test_a_game_starts_with_a_built_in_distribution(players: int) -> None:
    distribution = RS.pick_distribution(players, seed=1)
    names = [(f"P{n}", "man") for n in range(players)]
    seats = RS.deal(names, distribution, 1)
    options = {**RS.options, **distribution.options}
    state = RS.new_game(seats, Settings(seed=1, strictness=3, options=options))
    assert RS.view(state).step is not None
