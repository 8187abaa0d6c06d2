"""``choices`` shares its per-step work between the players of a state without changing a result.

The names valid for everybody are computed once per state (``GameState.shared_targets``); these
tests compare every player's choices, asked in any order, with a plain per-player computation
(the engine's code before the sharing) over random games.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from rules import Accepted, ActionChoice, Choices, Seat, Settings, Vote
from rules.wakkerdam import actions
from rules.wakkerdam.state import GameState, Player
from tests.rules.strategies import (
    RS,
    STRANGER,
    Policy,
    Setup,
    attempts_for_step,
    names_for,
    policies,
    random_setups,
    setups,
)


def reference_choices(state: GameState, name: str) -> Choices:
    """What ``name`` may send now, every target checked on its own for this voter."""
    player = state.find(name)
    if player is None:
        return Choices(player=name, step=state.step)
    result: list[ActionChoice] = []
    for action in actions.actions_for(state, player):
        usable = {True: player.elixir, False: player.poison}
        targets = tuple(
            other.name
            for other in state.players
            if not actions.target_error(state, player, action, other)
            and not (
                action.no_repeat and action.max_names == 1 and player.last_choice == (other.name,)
            )
            and (not action.potions or usable[other.name in state.wounded_names])
        )
        result.append(
            ActionChoice(
                action=action.action,
                keyword=action.keyword,
                targets=targets,
                min_names=max(action.min_names, 1) if action.min_names else 0,
                max_names=min(action.max_names, len(targets))
                if action.min_names == 0
                else action.max_names,
                blanco=not (action.no_repeat and player.last_choice == ()),
                previous=player.last_choice if action.no_repeat else None,
                extra={
                    "wounded": [n for n, _c in state.wounded],
                    "elixir": player.elixir,
                    "poison": player.poison,
                }
                if action.potions
                else {},
            )
        )
    return Choices(player=player.name, step=state.step, actions=tuple(result))


def check_same_choices(state: GameState, rng: random.Random) -> None:
    """Every player's (and a stranger's) choices equal the reference, whatever the order."""
    names = [p.name for p in state.players] + [STRANGER]
    expected = {name: reference_choices(state, name) for name in names}
    forward = {name: RS.choices(state, name) for name in names}
    assert forward == expected
    shuffled = list(names)
    rng.shuffle(shuffled)
    fresh = replace(state, table=None)  # a new state object: its views are computed afresh
    assert fresh.views is not state.views
    spelt = {name: name.casefold() if name != STRANGER else name for name in shuffled}
    assert {name: RS.choices(fresh, spelt[name]) for name in shuffled} == expected
    asked = set(RS.asked(state))
    assert {name for name, choice in forward.items() if choice.is_asked} == asked
    assert set(actions.shared_targets_table(state)) == every_target_key(state)


def every_target_key(state: GameState) -> set[object]:
    """The key of the shared list of every vote any player is asked (all players gone over)."""
    return {
        actions._target_key(action, player)
        for player in state.players
        for action in actions.actions_for(state, player)
    }


def play_and_compare(setup: Setup, policy: Policy) -> None:
    """Play a random game, comparing choices as each step opens and once its votes are in."""
    rng = random.Random(policy.seed)
    state: GameState = RS.new_game(setup.seats, setup.settings)
    for _ in range(policy.random_steps):
        if state.is_over:
            break
        check_same_choices(state, rng)
        for attempt in attempts_for_step(state, rng, policy):
            verdict = RS.apply(state, attempt.vote)
            if isinstance(verdict, Accepted):
                state = verdict.state
        check_same_choices(state, rng)
        state = RS.resolve(state).state


@pytest.mark.slow  # property-based games (`make test-fast` leaves them out)
@settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(setup=setups(), policy=policies(max_random_steps=60))
def test_shared_choices_equal_the_per_player_computation(setup: Setup, policy: Policy) -> None:
    """Built-in and random distributions: the shared lists change no player's choices."""
    play_and_compare(setup, policy)


@pytest.mark.slow  # property-based games (`make test-fast` leaves them out)
@settings(
    max_examples=15,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(setup=random_setups(low=41, high=150), policy=policies(max_random_steps=40))
def test_shared_choices_in_big_villages(setup: Setup, policy: Policy) -> None:
    """41..150 players: more voters share a list, more of them leave out a name."""
    play_and_compare(setup, policy)


def test_voters_share_one_list_unless_they_leave_out_a_name() -> None:
    """Wolves share the same tuple; each ziener's list leaves out himself only."""
    roles = ("ziener", "ziener", "weerwolf", "weerwolf", "burger", "burger")
    seats = [Seat(name, role) for name, role in zip(names_for(6), roles, strict=True)]
    state: GameState = RS.new_game(seats, Settings(seed=1, options={"mayor": False}, strictness=3))
    while state.step != "nacht":
        state = RS.resolve(state).state
    wolves = [RS.choices(state, name).targets for name in ("Carla", "Dirk")]
    assert wolves[0] == ("Anna", "Bram", "Eva", "Femke")
    assert wolves[0] is wolves[1]
    assert RS.choices(state, "Anna").targets == ("Bram", "Carla", "Dirk", "Eva", "Femke")
    assert RS.choices(state, "Bram").targets == ("Anna", "Carla", "Dirk", "Eva", "Femke")


def test_each_heks_gets_the_list_of_the_potions_she_has_left() -> None:
    """Two heksen in one state: the one without poison may only save the wounded."""
    roles = ("heks", "heks", "weerwolf", "burger", "burger")
    seats = [Seat(name, role) for name, role in zip(names_for(5), roles, strict=True)]
    state: GameState = RS.new_game(seats, Settings(seed=1, options={"mayor": False}, strictness=3))
    players = (replace(state.players[0], poison=False), *state.players[1:])
    state = replace(state, step="heks", night=1, players=players, wounded=(("Dirk", "weerwolven"),))
    assert RS.choices(state, "Anna").targets == ("Dirk",)
    assert RS.choices(state, "Bram").targets == ("Anna", "Bram", "Carla", "Dirk", "Eva")
    assert RS.choices(state, "Anna") == reference_choices(state, "Anna")


def test_a_vote_keeps_the_lists_of_the_state_it_was_cast_in() -> None:
    """Votes change no valid name: the state after a vote reuses the lists already worked out
    (a vote in a 1,000-player game would otherwise cost O(players) again), and they are right
    (the property tests above compare them with the reference after every vote)."""
    roles = ("ziener", "ziener", "weerwolf", "weerwolf", "burger", "burger")
    seats = [Seat(name, role) for name, role in zip(names_for(6), roles, strict=True)]
    state: GameState = RS.new_game(seats, Settings(seed=1, options={"mayor": False}, strictness=3))
    while state.step != "nacht":
        state = RS.resolve(state).state
    before = RS.choices(state, "Carla").targets
    verdict = RS.apply(state, Vote("Carla", ("Anna",)))
    assert isinstance(verdict, Accepted)
    after = verdict.state
    assert after.votes != state.votes
    assert RS.choices(after, "Dirk").targets is before
    assert after.index is state.index
    assert RS.choices(after, "Dirk") == reference_choices(after, "Dirk")


@pytest.mark.parametrize("step", sorted(actions.SOLE_ACTIONS))
def test_a_step_of_one_vote_for_all_builds_its_list_from_the_first_asked(
    step: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lynch and the election ask everybody the same vote: the shared lists are built from
    the first player asked, the others are not gone over (a lone vote in a big game builds
    them for its voter's choices), and they are the lists of every player's vote."""
    seats = [Seat(name, "burger") for name in names_for(30)]
    seats[0] = Seat(seats[0].name, "weerwolf")
    state: GameState = RS.new_game(seats, Settings(seed=1, options={"mayor": True}, strictness=3))
    players = (replace(state.players[0], alive=False), *state.players[1:])
    state = replace(state, step=step, day=1, players=players, election_due=True, table=None)
    assert RS.asked(state)[0] == state.players[1].name
    expected = every_target_key(state)
    assert len(expected) == 1
    asked_of: list[str] = []
    actions_for = actions.actions_for

    def counted(state: GameState, player: Player) -> tuple[object, ...]:
        asked_of.append(player.name)
        return actions_for(state, player)

    monkeypatch.setattr(actions, "actions_for", counted)
    assert set(actions.shared_targets_table(state)) == expected
    assert asked_of == [state.players[0].name, state.players[1].name]
