"""Role distributions: defaults for 5..40, extra ones, generated ones for 3..1000."""

from __future__ import annotations

import pytest

from rules import Distribution, get_ruleset
from rules.wakkerdam.distributions import build

RS = get_ruleset("wakkerdam")


def test_defaults_cover_5_to_40_with_known_roles_and_evil() -> None:
    counts = {d.players for d in RS.distributions}
    assert counts == set(range(5, 41))
    evil = {"weerwolf", "welp", "witte_weerwolf", "vampier", "psychopaat", "fluitspeler"}
    for distribution in RS.distributions:
        assert set(distribution.roles) <= set(RS.roles)
        bad = sum(1 for role in distribution.roles if role in evil)
        assert 1 <= bad <= distribution.players // 3, distribution
    assert len({d.id for d in RS.distributions}) == len(RS.distributions)


@pytest.mark.parametrize("players", [3, 4, 5, 41, 57, 100, 999, 1000])
def test_any_count_from_3_to_1000_is_startable(players: int) -> None:
    distribution = RS.pick_distribution(players, seed=1)
    assert distribution.players == players == len(distribution.roles)
    seats = RS.deal([f"P{i}" for i in range(players)], distribution, seed=1)
    assert sorted(seat.role for seat in seats) == list(distribution.roles)


def test_pick_is_deterministic_and_uses_extra_distributions() -> None:
    assert RS.pick_distribution(12, 3) == RS.pick_distribution(12, 3)
    extra = Distribution("mine", 41, ("weerwolf",) * 10 + ("burger",) * 31, False)
    assert RS.pick_distribution(41, 3, [extra]) == extra
    with pytest.raises(ValueError):
        RS.pick_distribution(2, 1)
    with pytest.raises(ValueError):
        build(1001)
