"""Unit tests of the Mafia ruleset's entry points that the scenario files do not reach.

Choices, close_early, distributions, the state codec, settings validation, the audience of the
side's events (docs/rules/mafia.md).
"""

from __future__ import annotations

import pytest

from rules import Accepted, Distribution, Seat, Settings, Vote, get_ruleset
from rules.mafia.state import GameState

RS = get_ruleset("mafia")
SEATS = (
    Seat("Anna", "doctor+mafia"),
    Seat("Bea", "mafia"),
    Seat("Max", "maniac"),
    Seat("Cora", "commissar"),
    Seat("Ed", "blocker"),
    Seat("Gus", "investigator"),
    Seat("Ivy", "citizen"),
)


def night_one() -> GameState:
    state: GameState = RS.new_game(SEATS, Settings(seed=3, options={"mayor": False}))
    assert RS.view(state).step == "night"
    return state


def test_a_black_doctor_has_his_heal_as_primary_and_the_side_moves_by_keyword() -> None:
    choices = RS.choices(night_one(), "Anna")
    assert choices.actions[0].action == "heal" and choices.actions[0].keyword is None
    keywords = set(choices.keywords)
    assert {"kill", "insure", "noinsure", "suicide", "approve", "rumour"} <= keywords
    kill = next(a for a in choices.actions if a.action == "kill")
    assert kill.extra["shots"] == 1 and kill.extra["partners"] == ["Bea"]


def test_reds_without_moves_are_not_asked_and_the_maniac_has_no_rumour_on_night_one() -> None:
    state = night_one()
    assert "Ivy" not in RS.asked(state)
    assert "rumour" not in RS.choices(state, "Max").keywords


def test_close_early_waits_for_every_primary_vote() -> None:
    state = night_one()
    for vote in (
        Vote("Anna", ("Ivy",)),
        Vote("Bea", ("Ivy",), keywords=frozenset({"kill"})),
        Vote("Max", (), keywords=frozenset({"suicide"})),
        Vote("Cora", ("Max",)),
    ):
        verdict = RS.apply(state, vote)
        assert isinstance(verdict, Accepted), vote
        state = verdict.state
    assert not RS.all_voted(state)  # the Blocker and the Investigator have not voted
    for vote in (
        Vote("Ed", ("Ivy",), keywords=frozenset({"protect"})),
        Vote("Gus", ("doctor",), keywords=frozenset({"request"})),
    ):
        verdict = RS.apply(state, vote)
        assert isinstance(verdict, Accepted), vote
        state = verdict.state
    assert RS.all_voted(state)


def test_state_round_trips_through_json_and_refuses_other_rulesets() -> None:
    state = night_one()
    data = RS.dump_state(state)
    assert RS.load_state(data) == state
    with pytest.raises(ValueError):
        RS.load_state({**data, "ruleset": "wakkerdam"})


def test_settings_and_seats_are_validated() -> None:
    with pytest.raises(ValueError):
        RS.new_game(SEATS, Settings(options={"format": "huge"}))
    with pytest.raises(ValueError):
        RS.new_game(SEATS, Settings(options={"unknown": 1}))
    with pytest.raises(ValueError):
        RS.new_game((*SEATS, Seat("Zed", "doctor")), Settings())
    with pytest.raises(ValueError):
        RS.new_game((*SEATS[:-1], Seat("Ivy", "doctor+wolf")), Settings())


def test_distributions_cover_6_to_40_players_deal_the_faceless_and_need_a_killer() -> None:
    assert {d.players for d in RS.distributions} == set(range(6, 41))
    full = {
        d.id: d for d in RS.distributions if d.id.endswith("-full")
    }  # §11.2, with the seed's roles
    assert sorted(full) == ["mafia-12-standard-full", "mafia-16-extended-full"]
    assert full["mafia-16-extended-full"].options["negative"]["executor"] == 1
    assert RS.pick_distribution(12, seed=0).id == "mafia-12-standard-full"
    twelve = RS.pick_distribution(12, seed=1)
    assert twelve.options["negative"] == {"mafia": 3, "maniac": 1}
    assert twelve.role_counts()["citizen"] == 6
    sixteen = RS.pick_distribution(16, seed=1)
    assert sixteen.role_counts()["active_citizen"] == 2 and sixteen.options["format"] == "extended"
    faceless = Distribution(
        id="f",
        players=6,
        roles=twelve.roles[:6],
        options={"negative": {"mafia": 1}, "faceless": True},
    )
    seats = RS.deal(["A", "B", "C", "D", "E", "F"], faceless, 3)
    assert sum(1 for s in seats if s.role.endswith("+faceless")) == 1
    only_grey = Distribution(
        id="g", players=6, roles=twelve.roles[:6], options={"negative": {"joker": 1}}
    )
    with pytest.raises(ValueError):
        RS.pick_distribution(6, 1, (only_grey,))
    with pytest.raises(ValueError):
        RS.pick_distribution(5, 1)


def test_a_distribution_with_elite_players_deals_them_first() -> None:
    base = RS.pick_distribution(6, seed=1)
    elite = Distribution(
        id="e",
        players=6,
        roles=base.roles,
        options={**base.options, "elite": {"agent": 1, "mason": 1}},
    )
    assert RS.pick_distribution(8, 3, (elite,)) is elite
    names = ("Anna", "Bea", "Cora", "Dora", "Ed", "Fay", "Gus", "Hal")
    seats = RS.deal(names, elite, 7)
    assert sorted(s.role for s in seats if s.role in ("agent", "mason")) == ["agent", "mason"]
    assert [s.name for s in seats] == list(names)
    state = RS.new_game(seats, Settings(seed=7, options={"mayor": True}))
    setup = RS.start_events(state)[0].to_dict()
    assert set(setup["elite"].values()) == {"agent", "mason"}
    assert sum(setup["peaceful"].values()) == 6
    bad = Distribution(id="b", players=6, roles=base.roles, options={"elite": {"servant": 1}})
    with pytest.raises(ValueError):
        RS.pick_distribution(7, 1, (bad,))


def test_transcript_start_and_end_lines() -> None:
    state = night_one()
    start = RS.transcript_start(state)
    assert start is not None and start["start"] is True and start["events"][0]["type"] == "setup"
    roles = [e for e in start["events"] if e["type"] == "role"]
    assert [e["player"] for e in roles] == [s.name for s in SEATS]
    assert roles[0]["partners"] == ["Bea"] and roles[2]["partners"] == []
    end = RS.transcript_end(state)
    assert end["end"] is False and end["roles"]["Bea"] == "citizen+mafia" and end["outcomes"] == {}


def test_a_killers_living_partners_learn_the_victims_team() -> None:
    """RULING (docs/rules/mafia.md §7.4.11, rulings 24 and 41): the side shares its kills."""
    state = night_one()
    verdict = RS.apply(state, Vote("Bea", ("Ivy",), keywords=frozenset({"kill"})))
    assert isinstance(verdict, Accepted)
    events = [e for e in RS.resolve(verdict.state).events if e.type == "victim_team"]
    assert [e.to_dict() for e in events] == [
        {
            "type": "victim_team",
            "player": "Bea",
            "target": "Ivy",
            "team": "red",
            "partners": ["Anna"],
        }
    ]
    assert RS.recipients(verdict.state, events[0].audience) == frozenset({"Bea", "Anna"})


@pytest.mark.parametrize(
    ("at_night", "cause", "shown"),
    [(True, "maniac", "doctor"), (False, "lynch", "doctor+mafia")],
)
def test_a_death_shows_the_village_what_its_event_reveals(
    at_night: bool, cause: str, shown: str
) -> None:
    """§8.1: a night death shows only the peaceful role, a day death both; `shown_role` (what
    the narrator puts beside the dead in every roster) says the same as the death event."""
    from rules.mafia import deaths

    state = night_one()
    assert RS.shown_role(state, "Anna") is None  # alive: nothing shown
    state, events = deaths.kill(state, [("Anna", cause)], at_night=at_night)
    death = next(e for e in events if getattr(e, "player", None) == "Anna")
    assert RS.shown_role(state, "Anna") == shown
    assert "+".join(v for k, v in death.revealed.items() if k != "team") == shown
