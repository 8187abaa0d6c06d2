"""A state's vote-free views live in a table of their own: a vote's new state holds the same
table (by identity, no copying), any other change gets a new one, and it is never stored."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from rules import Accepted, Settings, Vote, get_ruleset
from rules.vampiri.state import CODEC as VAMPIRI_CODEC
from rules.wakkerdam.state import CODEC as WAKKERDAM_CODEC

CODECS = {"wakkerdam": WAKKERDAM_CODEC, "vampiri": VAMPIRI_CODEC}


def _voting_state(ruleset_id: str, players: int = 12) -> Any:
    rules = get_ruleset(ruleset_id)
    names = [f"P{seat:02d}" for seat in range(players)]
    seats = rules.deal(names, rules.pick_distribution(players, 3), 3)
    state = rules.new_game(seats, Settings(seed=3, options={}, strictness=99))
    for _ in range(20):
        if len(rules.asked(state)) > players // 2:
            return state
        state = rules.resolve(state).state
    raise AssertionError("no step asks most players")


def _vote(ruleset_id: str, state: Any) -> Any:
    rules = get_ruleset(ruleset_id)
    voter = rules.asked(state)[0]
    action = rules.choices(state, voter).actions[0]
    keywords = frozenset({action.keyword} - {"", None})
    verdict = rules.apply(state, Vote(voter, (action.targets[-1],), False, keywords))
    assert isinstance(verdict, Accepted), verdict
    return verdict.state


@pytest.mark.parametrize("ruleset_id", sorted(CODECS))
def test_a_vote_shares_the_table_and_another_change_builds_a_new_one(ruleset_id: str) -> None:
    state = _voting_state(ruleset_id)
    table = state.views
    index = table.index
    voted = _vote(ruleset_id, state)
    assert voted.votes != state.votes
    assert voted.views is table and voted.index is index
    moved = replace(voted, players=tuple(reversed(voted.players)))
    assert moved.views is not table
    assert moved.index == {p.name: seat for seat, p in enumerate(moved.players)}
    assert moved.views.state.table is None  # the stale table keeps no ancestor alive
    assert replace(voted, votes={}).views is table


@pytest.mark.parametrize("ruleset_id", sorted(CODECS))
def test_the_table_is_neither_stored_nor_compared(ruleset_id: str) -> None:
    codec = CODECS[ruleset_id]
    voted = _vote(ruleset_id, _voting_state(ruleset_id))
    assert voted.table is not None
    data = codec.dump(voted)
    assert "table" not in data
    loaded = codec.load(json.loads(json.dumps(data)))
    assert loaded.table is None and loaded == voted
    assert json.dumps(codec.dump(loaded)) == json.dumps(data)


@pytest.mark.parametrize("ruleset_id", sorted(CODECS))
def test_a_vote_s_state_is_the_old_one_with_other_votes_and_the_shared_table(
    ruleset_id: str,
) -> None:
    """``with_votes`` copies the state without its ``__init__`` (``copy_with``): the same
    state as ``replace`` would give, every other field the same object, and no view of the old
    state carried over but through its table."""
    state = _voting_state(ruleset_id)
    table = state.views  # cached on the old state
    voted = _vote(ruleset_id, state)
    assert voted == replace(state, votes=voted.votes, table=table)
    assert type(voted) is type(state)
    for name in type(state).__dataclass_fields__:
        if name not in {"votes", "table"}:
            assert getattr(voted, name) is getattr(state, name), name
    assert set(vars(voted)) == set(type(state).__dataclass_fields__)  # no cached views
    assert voted.table is table and voted.views is table


def test_copy_with_is_replace_without_the_init() -> None:
    """A field not of the class goes to ``replace`` (its TypeError); a state's cached views are
    not carried over; a mafia vote's state equals the one ``replace`` makes."""
    from rules.core.votefree import copy_with

    state = _voting_state("wakkerdam")
    assert state.views is not None and "views" in vars(state)
    copy = copy_with(state, draws=3)
    assert copy == replace(state, draws=3) and "views" not in vars(copy)
    with pytest.raises(TypeError):
        copy_with(state, nonsense=1)
    mafia = get_ruleset("mafia")
    names = [f"P{seat:02d}" for seat in range(12)]
    game = mafia.new_game(mafia.deal(names, mafia.pick_distribution(12, 3), 3), Settings(seed=3))
    for _ in range(10):
        if mafia.asked(game):
            break
        game = mafia.resolve(game).state
    voter = mafia.asked(game)[0]
    action = mafia.choices(game, voter).actions[0]
    keywords = frozenset({action.keyword} - {"", None})
    verdict = mafia.apply(game, Vote(voter, (action.targets[0],), False, keywords))
    assert isinstance(verdict, Accepted), verdict
    assert verdict.state == replace(game, votes=verdict.state.votes)
    assert verdict.state.votes != game.votes
