"""A player removed by an admin, each ruleset's own way (Ruleset.remove; the rulings of
docs/rules/*.md on removal)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.core import Seat, Settings, Vote
from rules.core.model import Accepted
from rules.core.registry import get_ruleset
from rules.mafia.deaths import inherit


def _game(ruleset: str, seats: list[tuple[str, str]], **options: Any) -> tuple[Any, Any]:
    rs = get_ruleset(ruleset)
    settings = Settings.from_dict({"seed": 7, **options})
    return rs, rs.new_game([Seat(name, role) for name, role in seats], settings)


def _types(events: Any) -> list[tuple[str, ...]]:
    return [tuple(str(v) for v in e.to_dict().values()) for e in events]


def _vote(rs: Any, state: Any, player: str, *targets: str, keyword: str | None = None) -> Any:
    keywords = frozenset({keyword}) if keyword else frozenset()
    result = rs.apply(state, Vote(player=player, targets=targets, keywords=keywords))
    assert isinstance(result, Accepted), result
    return result.state


WAKKERDAM = [("Anna", "weerwolf"), ("Bram", "jager"), ("Carla", "burger"), ("Dirk", "burger")]


def test_wakkerdam_removal_is_a_quiet_death_with_no_shot() -> None:
    rs, state = _game("wakkerdam", WAKKERDAM, mayor=False)
    assert state.step == "nacht"
    state = _vote(rs, state, "Anna", "Carla")
    result = rs.remove(state, "Bram")
    assert _types(result.events) == [("removed", "Bram"), ("death", "Bram", "verwijderd")]
    after = result.state
    assert after.step == "nacht" and not after.player("Bram").alive
    assert after.player("Bram").due == ()  # no Jager shot is owed
    assert dict(after.votes) == {"Anna": ("Carla",)}  # the others' votes stay in force
    with pytest.raises(ValueError, match="already dead"):
        rs.remove(after, "Bram")


def test_wakkerdam_votes_naming_the_removed_are_withdrawn_and_a_win_ends_the_game() -> None:
    rs, state = _game("wakkerdam", WAKKERDAM, mayor=False)
    state = _vote(rs, state, "Anna", "Carla")
    result = rs.remove(state, "Carla")
    assert dict(result.state.votes) == {}
    result = rs.remove(result.state, "Anna")
    assert _types(result.events)[-1][0] == "win"
    assert result.state.step is None and result.state.winners == ("Bram", "Carla", "Dirk")
    with pytest.raises(ValueError, match="over"):
        rs.remove(result.state, "Dirk")


def test_wakkerdam_a_removed_lover_does_not_take_the_other_along() -> None:
    seats = [("Anna", "weerwolf"), ("Bram", "cupido"), ("Carla", "burger"), ("Dirk", "burger")]
    rs, state = _game("wakkerdam", seats, mayor=False)
    assert state.step == "cupido"
    state = rs.resolve(_vote(rs, state, "Bram", "Carla", "Dirk")).state
    result = rs.remove(state, "Carla")
    assert [e.type for e in result.events] == ["removed", "death"]
    assert result.state.player("Dirk").alive and result.state.player("Dirk").lover is None


def test_wakkerdam_a_removed_mayor_writes_no_testament_an_election_is_due() -> None:
    rs, state = _game("wakkerdam", WAKKERDAM, mayor=True)
    state = replace(state, mayor="Carla", election_due=False)
    result = rs.remove(state, "Carla")
    assert result.state.mayor is None and result.state.election_due
    assert result.state.player("Carla").due == ()


LUPUS = [
    ("Anna", "lupo"),
    ("Bram", "negromante"),
    ("Carla", "contadino"),
    ("Dirk", "veggente"),
    ("Eva", "contadino"),
    ("Fred", "contadino"),
]


def test_lupus_disqualification_is_an_exile_and_the_sindaco_designation_falls() -> None:
    rs, state = _game("lupus", LUPUS, mayor=True, sindaco="Carla")
    state = _vote(rs, state, "Carla", "Eva", keyword="successore")
    state = rs.resolve(state).state  # night 1: the designation of Eva is in force
    assert state.step == "giorno" and state.successor == "Eva"
    result = rs.remove(state, "Carla")
    types = _types(result.events)
    assert types[:2] == [("removed", "Carla"), ("exile", "Carla", "squalifica")]
    assert types[2][0] == "mayor" and types[2][2] == "draw"  # never via "successor"
    after = result.state
    assert after.get("Carla").exiled and after.successor is None and after.mayor != "Carla"
    assert after.step == "giorno"


def test_lupus_an_inactivity_exile_still_hands_the_office_to_the_successor() -> None:
    """The contrast of Ruling 27: only a disqualification voids the designation."""
    rs, state = _game("lupus", LUPUS, mayor=True, sindaco="Carla", strictness=1)
    state = _vote(rs, state, "Carla", "Eva", keyword="successore")
    state = rs.resolve(state).state
    for name in ("Anna", "Bram", "Dirk", "Eva", "Fred"):
        state = _vote(rs, state, name, "Fred")
    events = _types(rs.resolve(state).events)
    assert ("mayor", "Eva", "successor") in events


def test_lupus_disqualifying_the_last_lupo_defeats_the_lupi() -> None:
    rs, state = _game("lupus", LUPUS, mayor=False)
    result = rs.remove(state, "Anna")
    assert [e.type for e in result.events] == ["removed", "exile", "defeat"]
    assert result.state.step == "notte"
    with pytest.raises(ValueError, match="already exiled"):
        rs.remove(result.state, "Anna")


def test_vampiri_removal_is_a_death_rimosso() -> None:
    rs = get_ruleset("vampiri")
    names = [f"P{i}" for i in range(12)]
    distribution = rs.pick_distribution(12, 5)
    seats = rs.deal(names, distribution, 5)
    state = rs.new_game(seats, Settings.from_dict({"seed": 5, **dict(distribution.options)}))
    result = rs.remove(state, "P0")
    assert _types(result.events) == [("removed", "P0"), ("death", "P0", "rimosso")]
    assert not result.state.player("P0").alive and result.state.step == state.step
    assert rs.load_state(rs.dump_state(result.state)) == result.state


def _mafia_of_twelve() -> tuple[Any, Any, str]:
    """A Mafia game of twelve at its start, and the Investigator's holder (an Active citizen
    inherits his role)."""
    rs = get_ruleset("mafia")
    names = [f"P{i}" for i in range(12)]
    distribution = rs.pick_distribution(12, 5)
    seats = rs.deal(names, distribution, 5)
    state = rs.new_game(seats, Settings.from_dict({"seed": 5, **dict(distribution.options)}))
    return rs, state, next(s.name for s in seats if s.role.startswith("investigator"))


def test_mafia_removal_is_a_day_death_showing_both_roles_and_frees_a_role() -> None:
    rs, state, holder = _mafia_of_twelve()
    result = rs.remove(state, holder)
    death = next(e.to_dict() for e in result.events if e.type == "death")
    assert death["cause"] == "removed" and "team" in death["revealed"]
    assert rs.shown_role(result.state, holder) == result.state.get(holder).role
    assert result.events[0].type == "removed"


def test_mafia_the_role_a_removal_frees_passes_for_a_removal_not_a_death() -> None:
    """The heir's ``role_change`` tells the reason ``removed`` (ruling 94: his mail says the
    holder was taken out of the game); an heir of the dead is told none (the transcript as
    it was)."""
    rs, state, holder = _mafia_of_twelve()
    removed = [e.to_dict() for e in rs.remove(state, holder).events if e.type == "role_change"]
    assert removed and removed[0]["from"] == holder and removed[0]["reason"] == "removed"
    _, died = inherit(
        replace(
            state,
            players=tuple(
                replace(p, alive=False) if p.name == holder else p for p in state.players
            ),
        ),
        [holder],
    )
    dead = [e.to_dict() for e in died if e.type == "role_change"]
    assert dead and "reason" not in dead[0]
    assert {k: v for k, v in removed[0].items() if k != "reason"} == dead[0]


def test_the_example_ruleset_refuses_a_removal() -> None:
    rs = get_ruleset("example")
    with pytest.raises(ValueError, match="no removal"):
        rs.remove(object(), "Anna")


def _mafia_with_posts() -> tuple[Any, Any, list[str]]:
    """A 12-player Mafia game whose Mayor and Secretary are its first two reds."""
    rs = get_ruleset("mafia")
    names = [f"P{i}" for i in range(12)]
    distribution = rs.pick_distribution(12, 5)
    seats = rs.deal(names, distribution, 5)
    state = rs.new_game(seats, Settings.from_dict({"seed": 5, **dict(distribution.options)}))
    reds = [p.name for p in state.players if p.is_red]
    return rs, replace(state, mayor=reds[0], secretary=reds[1]), reds


def test_mafia_a_removed_mayor_loses_the_post_for_his_removal_after_his_death() -> None:
    rs, state, reds = _mafia_with_posts()
    mayor, secretary = reds[0], reds[1]
    result = rs.remove(state, mayor)
    types = _types(result.events)
    assert types[:4] == [
        ("removed", mayor),
        types[1],
        ("mayor_lost", mayor, "removed"),
        ("secretary_lost", secretary, "mayor_lost"),
    ]
    assert types[1][:2] == ("death", mayor) and "removed" in types[1]
    assert result.state.post_over and result.state.mayor_in_office() is None


def test_mafia_a_removed_secretary_loses_the_post_for_her_removal() -> None:
    rs, state, reds = _mafia_with_posts()
    secretary = reds[1]
    result = rs.remove(state, secretary)
    types = _types(result.events)
    assert types[0] == ("removed", secretary) and types[1][:2] == ("death", secretary)
    assert types[2] == ("secretary_lost", secretary, "removed")
    assert result.state.secretary is None and result.state.mayor_in_office() == reds[0]
