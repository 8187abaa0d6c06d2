"""The story tells more than the rules' events: the dead's roles, who voted for whom."""

from __future__ import annotations

import itertools

import pytest

from narrator.service.story_context import audience_dicts, with_story_facts
from rules import Seat, Settings, Vote, get_ruleset
from rules.core.model import Accepted
from rules.core.registry import ruleset_ids

RULES = get_ruleset("wakkerdam")
SEATS = [
    Seat("Anna", "weerwolf", "vrouw"),
    Seat("Bram", "burger", "man"),
    Seat("Carla", "ziener", "vrouw"),
    Seat("Dirk", "burger", "man"),
    Seat("Eva", "burger", "vrouw"),
]


def _day(state):  # type: ignore[no-untyped-def]
    while RULES.view(state).step != "brandstapel":
        state = RULES.resolve(state).state
    return state


def _vote(state, player: str, *names: str):  # type: ignore[no-untyped-def]
    result = RULES.apply(state, Vote(player=player, targets=names, blanco=not names))
    assert isinstance(result, Accepted), result
    return result.state


def _told(reveal_roles: bool) -> list[dict]:  # type: ignore[type-arg]
    state = _day(RULES.new_game(SEATS, Settings(seed=1, strictness=9)))
    state = _vote(state, "Anna", "Bram")
    state = _vote(state, "Carla", "Anna")
    state = _vote(state, "Dirk", "Anna")
    state = _vote(state, "Eva")
    resolution = RULES.resolve(state)
    events = audience_dicts(resolution.state, resolution.events, RULES, told=True)
    return with_story_facts(events, RULES, state, resolution.state, reveal_roles=reveal_roles)


def test_a_lynch_tells_who_voted_for_whom() -> None:
    lynch = next(e for e in _told(True) if e["type"] == "lynch")
    assert lynch["player"] == "Anna"
    assert lynch["votes"] == {"Anna": ["Bram"], "Carla": ["Anna"], "Dirk": ["Anna"], "Eva": []}


def test_the_dead_players_role_is_told_only_when_the_game_reveals_roles() -> None:
    death = next(e for e in _told(True) if e["type"] == "death")
    assert (death["player"], death["role"]) == ("Anna", "weerwolf")
    hidden = next(e for e in _told(False) if e["type"] == "death")
    assert "role" not in hidden


def test_the_roster_and_the_death_show_a_night_victim_of_mafia_only_as_his_death_did() -> None:
    """A black player killed at night is shown with his peaceful role only (Mafia §8.1): the
    shared roster and the story's death event never tell his negative role."""
    from narrator.service.story_context import story_players
    from rules import Seat, get_ruleset
    from rules.mafia import deaths

    mafia = get_ruleset("mafia")
    seats = (
        Seat("Anna", "doctor+mafia"),
        Seat("Bea", "mafia"),
        Seat("Max", "maniac"),
        Seat("Cora", "commissar"),
        Seat("Ed", "blocker"),
        Seat("Ivy", "citizen"),
    )
    before = mafia.new_game(seats, Settings(seed=3, options={"mayor": False}))
    after, events = deaths.kill(before, [("Anna", "maniac")], at_night=True)
    told = with_story_facts(
        audience_dicts(after, events, mafia, told=True), mafia, before, after, reveal_roles=True
    )
    assert next(e for e in told if e["type"] == "death")["role"] == "doctor"

    class Seated:
        def __init__(self, name: str) -> None:
            self.name, self.gender = name, "man"

    players = story_players(
        mafia,
        [Seated(s.name) for s in seats],
        after,
        reveal_dead=True,  # type: ignore[list-item]
    )
    assert {p["name"]: p["role"] for p in players if not p["alive"]} == {"Anna": "doctor"}


def _resolved(state, *, reveal_roles: bool = True) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    resolution = RULES.resolve(state)
    events = audience_dicts(resolution.state, resolution.events, RULES, told=True)
    return with_story_facts(events, RULES, state, resolution.state, reveal_roles=reveal_roles)


def test_the_mayor_election_tells_who_voted_for_whom() -> None:
    state = RULES.new_game(SEATS, Settings(seed=1, strictness=9, options={"mayor": True}))
    while RULES.view(state).step != "burgemeesterverkiezing":
        state = RULES.resolve(state).state
    state = _vote(state, "Anna", "Bram")
    state = _vote(state, "Bram", "Carla")
    state = _vote(state, "Carla", "Bram")
    state = _vote(state, "Dirk")
    mayor = next(e for e in _resolved(state) if e["type"] == "mayor")
    assert mayor["player"] == "Bram"
    assert mayor["votes"] == {"Anna": ["Bram"], "Bram": ["Carla"], "Carla": ["Bram"], "Dirk": []}


def test_a_failed_election_tells_the_tie() -> None:
    state = RULES.new_game(SEATS, Settings(seed=1, strictness=9, options={"mayor": True}))
    while RULES.view(state).step != "burgemeesterverkiezing":
        state = RULES.resolve(state).state
    state = _vote(state, "Anna", "Bram")
    state = _vote(state, "Bram", "Anna")
    no_mayor = next(e for e in _resolved(state) if e["type"] == "no_mayor")
    assert no_mayor["votes"] == {"Anna": ["Bram"], "Bram": ["Anna"]}


def test_the_lynch_knows_the_mayor_who_voted_and_the_ravens_marks() -> None:
    seats = [*SEATS[:4], Seat("Eva", "raaf", "vrouw")]
    state = RULES.new_game(seats, Settings(seed=1, strictness=9, options={"mayor": True}))
    while RULES.view(state).step != "burgemeesterverkiezing":
        state = RULES.resolve(state).state
    state = _vote(state, "Anna", "Bram")
    state = _vote(state, "Bram", "Bram")
    state = RULES.resolve(state).state
    while RULES.view(state).step != "ochtend":
        state = RULES.resolve(state).state
    state = _vote(state, "Eva", "Dirk")
    state = _day(RULES.resolve(state).state)
    state = _vote(state, "Bram", "Anna")  # the mayor: 1.5
    state = _vote(state, "Carla", "Carla")  # 1 + 2 for Dirk's mark: Dirk 2, Anna 1.5, Carla 1
    lynch = next(e for e in _resolved(state) if e["type"] == "lynch")
    assert lynch["marked"] == ["Dirk"]
    assert lynch["mayor"] == "Bram"
    assert lynch["player"] == "Dirk"


def test_a_promoted_welp_is_told_the_pack_he_now_wakes_with() -> None:
    seats = [
        Seat("Anna", "weerwolf", "vrouw"),
        Seat("Bram", "welp", "man"),
        Seat("Carla", "weerwolf", "vrouw"),
        Seat("Dirk", "burger", "man"),
        Seat("Eva", "burger", "vrouw"),
        Seat("Gert", "burger", "man"),
    ]
    state = _day(RULES.new_game(seats, Settings(seed=1, strictness=9)))
    for voter in ("Dirk", "Eva", "Gert"):
        state = _vote(state, voter, "Anna")
    resolution = RULES.resolve(state)
    events = audience_dicts(resolution.state, resolution.events, RULES, told=True)
    told = with_story_facts(events, RULES, state, resolution.state, reveal_roles=False)
    change = next(e for e in told if e["type"] == "role_change")
    assert (change["player"], change["role"], change["mates"]) == ("Bram", "weerwolf", ["Carla"])


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
@pytest.mark.parametrize("reveal_all", [False, True])
def test_the_shared_cast_is_the_roster_as_stories_players(
    ruleset_id: str, reveal_all: bool
) -> None:
    """story_cast builds the stories' Players from the roster's rows without the dicts of
    story_players: the same players, names cleaned, roles shown as the roster shows them."""
    from types import SimpleNamespace

    from narrator.service.story_context import Reveal, roster, story_cast
    from stories.context import Cast

    rs = get_ruleset(ruleset_id)
    distribution = rs.pick_distribution(9, 1)
    names = [f"Speler{i}" for i in range(distribution.players - 1)] + ["Zoë\r\nBcc: x"]
    seats = rs.deal(names, distribution, 1)
    state = rs.new_game(seats, Settings(seed=2))
    people = [
        SimpleNamespace(name=n, gender="vrouw" if i % 2 else "man") for i, n in enumerate(names)
    ]
    states = [state]
    while not rs.view(state).over:  # every step of a game where nobody votes: deaths, the end
        state = rs.resolve(state).state
        states.append(state)
    for state, reveal_roles in itertools.product(states, (False, True)):
        game = SimpleNamespace(reveal_roles=reveal_roles)
        cast = story_cast(game, people, state, reveal_all=reveal_all, rules=rs)  # type: ignore[arg-type]
        reveal = Reveal(dead=reveal_all or reveal_roles, living=reveal_all)
        rows = roster(people, rs.view(state), rs.told_roles(state), reveal)  # type: ignore[arg-type]
        assert tuple(cast) == tuple(Cast(rows))
        assert cast[-1].name == "Zoë Bcc: x"
