"""The story tells more than the rules' events: the dead's roles, who voted for whom."""

from __future__ import annotations

from narrator.service.story_context import audience_dicts, with_story_facts
from rules import Seat, Settings, Vote, get_ruleset
from rules.core.model import Accepted

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
    after = RULES.view(resolution.state)
    return with_story_facts(events, RULES, state, after, reveal_roles=reveal_roles)


def test_a_lynch_tells_who_voted_for_whom() -> None:
    lynch = next(e for e in _told(True) if e["type"] == "lynch")
    assert lynch["player"] == "Anna"
    assert lynch["votes"] == {"Anna": ["Bram"], "Carla": ["Anna"], "Dirk": ["Anna"], "Eva": []}


def test_the_dead_players_role_is_told_only_when_the_game_reveals_roles() -> None:
    death = next(e for e in _told(True) if e["type"] == "death")
    assert (death["player"], death["role"]) == ("Anna", "weerwolf")
    hidden = next(e for e in _told(False) if e["type"] == "death")
    assert "role" not in hidden
