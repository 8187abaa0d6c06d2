"""Who may vote what in the current step: action lookup, choices, and vote validation."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from itertools import chain
from types import MappingProxyType
from typing import TYPE_CHECKING

from rules.core import refusals
from rules.core.model import Accepted, ActionChoice, Choices, Rejected, Vote
from rules.core.refusals import Ballot, Life, Pipeline, Refusal, Walk
from rules.core.view import JsonValue
from rules.wakkerdam.roles import PACKS, ROLE_ACTIONS, witte_weerwolf
from rules.wakkerdam.spec import ActionSpec, Targets

if TYPE_CHECKING:  # the state imports this module (its table of shared targets)
    from rules.wakkerdam.state import GameState, Player

NIGHT_STEPS = frozenset({"grafrover", "klaas_vaak", "nacht", "heks", "ochtend"})
DEAD_STEPS = frozenset({"doden", "na_brandstapel"})
SOLE_ACTIONS = frozenset({"brandstapel", "burgemeesterverkiezing"})
"""The steps whose only vote is the same for everybody asked (:func:`actions_for` gives
:data:`LYNCH` or :data:`ELECTION` alone, or nothing)."""
KEYWORD_ORDER = ("witte", "burgemeester")
"""The special votes' keyword ids, in the order a vote reports them."""
KEYWORDS = frozenset(KEYWORD_ORDER)

ELECTION = ActionSpec(action="burgemeesterverkiezing", step="burgemeesterverkiezing")
LYNCH = ActionSpec(action="brandstapel", step="brandstapel", lynch=True)
TESTAMENT = ActionSpec(action="testament", step="doden")
TESTAMENT_KEYWORD = replace(TESTAMENT, keyword="burgemeester")
JAGER_SHOT = ROLE_ACTIONS["jager"][0]
ZONDEBOK = ActionSpec(action="zondebok", step="na_brandstapel", min_names=0, max_names=1_000_000)

ACTION_KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        spec.action
        for spec in (
            *(spec for specs in ROLE_ACTIONS.values() for spec in specs),
            witte_weerwolf.SOLO,
            ELECTION,
            LYNCH,
            TESTAMENT,
            ZONDEBOK,
        )
    )
)
"""Every action a player may be asked (the ``action`` of the votes :func:`choices` offers)."""


def actions_for(state: GameState, player: Player) -> tuple[ActionSpec, ...]:
    """Return the votes ``player`` may cast in the current step (empty: he is not asked)."""
    step = state.step
    if step is None:
        return ()
    if step in DEAD_STEPS:
        return _dead_actions(step, player) if not player.alive else ()
    if not player.alive or (step in NIGHT_STEPS and player.name in state.asleep):
        return ()
    if step == "burgemeesterverkiezing":
        needed = state.election_due and not state.elections_abolished and state.has_mayor
        return (ELECTION,) if needed and not player.fool_revealed else ()
    if step == "brandstapel":
        blocked = player.fool_revealed or player.name in state.jailed or player.name in state.guilty
        return () if blocked else (LYNCH,)
    role_actions = tuple(a for a in ROLE_ACTIONS[player.role] if a.step == step)
    if not role_actions:
        return ()
    if step == "grafrover" and (player.gift_used or state.night < 2 or not state.any_dead):
        return ()
    if step == "heks" and player.role == "heks":
        usable = player.poison or (player.elixir and bool(state.wounded))
        return role_actions if usable else ()
    if step == "heks" and player.role == "fluitspeler":
        return role_actions if state.enchantable else ()
    if (
        step == "nacht"
        and player.role == "witte_weerwolf"
        and witte_weerwolf.has_solo_kill(state.night)
    ):
        return (*role_actions, witte_weerwolf.SOLO)
    return role_actions


def _dead_actions(step: str, player: Player) -> tuple[ActionSpec, ...]:
    actions: list[ActionSpec] = []
    if "jager" in player.due:
        actions.append(JAGER_SHOT)
    if step == "doden" and "testament" in player.due:
        actions.append(TESTAMENT_KEYWORD if actions else TESTAMENT)
    if step == "na_brandstapel" and "zondebok" in player.due:
        actions.append(ZONDEBOK)
    return tuple(actions)


def vote_key(player: str, action: ActionSpec) -> str:
    """Return the key under which a vote for ``action`` is stored (``Name`` or ``Name:kw``)."""
    return player if action.keyword is None else f"{player}:{action.keyword}"


def asked(state: GameState) -> tuple[str, ...]:
    """Return the players asked to act in the current step, in seat order."""
    if state.step is None:
        return ()
    return tuple(p.name for p in state.players if actions_for(state, p))


def is_pack_member(state: GameState, player: Player, pack: str) -> bool:
    """Whether ``player`` is an awake, living member of ``pack`` (so his pack can't name him)."""
    return player.alive and player.role in PACKS[pack] and player.name not in state.asleep


def target_error(state: GameState, voter: Player, action: ActionSpec, target: Player) -> str:
    """Return the rejection code for naming ``target`` in ``action`` (the per-name checks of
    :data:`VOTE_CHECK`), or ``""`` when valid."""
    return refusals.first_refusal(
        NAME_CHECK, _ballot(state, voter, action, Vote(voter.name, (target.name,)))
    )


def _status_error(state: GameState, action: ActionSpec, target: Player) -> str:
    """The checks of :func:`target_error` that are the same whoever votes."""
    if action.pack is not None and is_pack_member(state, target, action.pack):
        return "pack-member"
    if action.lynch:
        if target.name in state.jailed:
            return "target-jailed"
        if target.fool_revealed:
            return "target-fool"
    if action.charm:
        if target.role == "fluitspeler":
            return "target-fluitspeler"
        if target.enchanted:
            return "target-enchanted"
    return ""


def _taken(state: GameState, voter: Player, action: ActionSpec) -> set[str]:
    taken: set[str] = set()
    for key, targets in state.votes.items():
        if key == voter.name or ":" in key:
            continue
        other = state.find(key)
        if other is not None and action in actions_for(state, other):
            taken.update(targets)
    return taken


@dataclass(frozen=True)
class Checked:
    """What Wakkerdam's own stages read: the state, the voter and the action voted."""

    state: GameState
    voter: Player
    action: ActionSpec


def status(ballot: Ballot[Checked], _position: int, name: str) -> str:
    """The checks of a name that are the same whoever votes (:func:`_status_error`)."""
    state, action = ballot.context.state, ballot.context.action
    target = state.find(name)
    return "" if target is None else _status_error(state, action, target)


def potions(ballot: Ballot[Checked]) -> str:
    """The Heks's potions: one wounded and one healthy name at most, each with its potion
    left (``wounded``, ``not-wounded``, ``potion-used``)."""
    if not ballot.context.action.potions:
        return ""
    return _potion_error(ballot.context.state, ballot.context.voter, ballot.canonical())


NAME_CHECK: Pipeline[Checked] = refusals.over_names(
    Walk.BY_NAME, refusals.life, refusals.self_named, status
)
"""The checks of each name, name by name: living or dead as the action asks, not the voter
(where he may not name himself), then :func:`status`."""

VOTE_CHECK: Pipeline[Checked] = (
    refusals.blank_with_names,
    *refusals.over_names(Walk.BY_NAME, refusals.unknown),
    refusals.count,
    refusals.duplicate,
    *NAME_CHECK,
    refusals.taken,
    potions,
    refusals.repeat,
)
"""Wakkerdam's vote check, in its order: blank and a name; every name a player; the number of
names; the same name twice; :data:`NAME_CHECK`; a name another voter of an exclusive action
took; the Heks's potions; last the same choice as last time (a blank repeats a blank)."""


def _ballot(state: GameState, voter: Player, action: ActionSpec, vote: Vote) -> Ballot[Checked]:
    return Ballot(
        voter=voter.name,
        names=vote.targets,
        find=state.find,
        context=Checked(state, voter, action),
        blanco=vote.blanco,
        min_names=max(action.min_names, 1),
        max_names=action.max_names,
        allow_self=action.allow_self,
        lives=(Life.DEAD,) if action.targets is Targets.DEAD else (Life.LIVING,),
        previous=voter.last_choice if action.no_repeat else None,
        taken=(lambda: _taken(state, voter, action)) if action.exclusive else None,
    )


def _potion_error(state: GameState, heks: Player, targets: Iterable[str]) -> str:
    wounded = [name for name in targets if name in state.wounded_names]
    healthy = [name for name in targets if name not in state.wounded_names]
    if len(wounded) > 1:
        return "wounded"
    if len(healthy) > 1:
        return "not-wounded"
    if (wounded and not heks.elixir) or (healthy and not heks.poison):
        return "potion-used"
    return ""


def select_action(
    state: GameState, player: Player, keywords: frozenset[str]
) -> ActionSpec | Rejected:
    """Pick the action a vote is meant for from its keywords (see docs, "Special votes")."""
    actions = actions_for(state, player)
    if not actions:
        return Rejected(Refusal.NOT_ASKED, f"{player.name} is not asked to vote now")
    special = {word.casefold() for word in keywords} & KEYWORDS
    if "witte" in special:
        for action in actions:
            if action.keyword == "witte":
                return action
        return Rejected(Refusal.NO_SPECIAL_VOTE, "there is no 'witte' vote for you now")
    if "burgemeester" in special:
        for action in actions:
            if action.action == "testament":
                return action
        if state.step == "doden":
            return Rejected(Refusal.NO_SPECIAL_VOTE, "you have no testament to write")
    for action in actions:
        if action.keyword is None:
            return action
    return Rejected(Refusal.KEYWORD_REQUIRED, f"the vote needs the keyword {actions[0].keyword!r}")


def apply_vote(state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
    """Validate ``vote`` and return the state holding it, or the rejection."""
    player = state.find(vote.player)
    if player is None:
        return Rejected(Refusal.NOT_ASKED, f"{vote.player!r} is not a player of this game")
    chosen = select_action(state, player, vote.keywords)
    if isinstance(chosen, Rejected):
        return chosen
    ballot = _ballot(state, player, chosen, vote)
    targets = ballot.canonical()
    code = refusals.first_refusal(VOTE_CHECK, ballot)
    if code:
        return Rejected(code, f"{player.name}: {code} ({', '.join(targets) or 'blanco'})")
    key = vote_key(player.name, chosen)
    votes = dict(state.votes)
    votes.pop(key, None)
    votes[key] = targets
    return Accepted(state.with_votes(votes))


def choices(state: GameState, name: str) -> Choices:
    """Return every vote ``name`` may send now, with the valid names (seat order).

    The names valid for everybody are computed once per state and action (see
    :func:`_shared_targets`), so the choices of all asked players cost O(players) together
    (plus copying the list for a voter who must not name himself or repeat his last choice).
    """
    player = state.find(name)
    if player is None:
        return Choices(player=name, step=state.step)
    result: list[ActionChoice] = []
    for action in actions_for(state, player):
        targets = _voter_targets(state, player, action)
        heks = action.potions
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
                extra=_potions(state, player) if heks else {},
            )
        )
    return Choices(player=player.name, step=state.step, actions=tuple(result))


def _potions(state: GameState, heks: Player) -> dict[str, JsonValue]:
    """What the Heks's step mail shows: tonight's wounded and the potions she still has."""
    return {
        "wounded": [name for name, _cause in state.wounded],
        "elixir": heks.elixir,
        "poison": heks.poison,
    }


SharedTargets = tuple[tuple[str, ...], Mapping[str, int]]


def _voter_targets(state: GameState, voter: Player, action: ActionSpec) -> tuple[str, ...]:
    """The names ``voter`` may give in ``action``: the shared ones less himself and a repeat."""
    names, seats = _shared_targets(state, action, voter)
    left_out = set()
    if not action.allow_self:
        left_out.add(voter.name)
    last = voter.last_choice
    if action.no_repeat and action.max_names == 1 and last is not None and len(last) == 1:
        left_out.add(last[0])
    cuts = sorted(seats[name] for name in left_out if name in seats)
    if not cuts:
        return names
    pieces: list[tuple[str, ...]] = []
    start = 0
    for cut in cuts:
        pieces.append(names[start:cut])
        start = cut + 1
    pieces.append(names[start:])
    return tuple(chain.from_iterable(pieces))


def _target_key(action: ActionSpec, voter: Player) -> Hashable:
    """The Heks's list also depends on which potions she has left."""
    return (action, (voter.elixir, voter.poison) if action.potions else None)


def _compute_shared(state: GameState, action: ActionSpec, voter: Player) -> SharedTargets:
    """The names valid in ``action`` whoever votes: living or dead as the action asks, then
    :func:`_status_error`'s checks, and for the Heks a name her potions left allow (the
    elixir for a wounded name, the poison for another).  The checks are written out over the
    seats with what they read of the action and the state taken once (three calls a seat
    cost twice as much); tests/rules/test_choices.py compares every list with
    :func:`target_error`, name by name."""
    dead = action.targets is Targets.DEAD
    pack = PACKS[action.pack] if action.pack is not None else frozenset()
    asleep = state.asleep
    lynch, charm, potions = action.lynch, action.charm, action.potions
    jailed = state.jailed
    wounded = state.wounded_names if potions else frozenset()
    names: list[str] = []
    for other in state.players:
        alive = other.alive
        if alive == dead:  # a living target where a dead one is asked, or the other way
            continue
        name = other.name
        if alive and other.role in pack and name not in asleep:  # is_pack_member
            continue
        if lynch and (name in jailed or other.fool_revealed):
            continue
        if charm and (other.role == "fluitspeler" or other.enchanted):
            continue
        if potions and not (voter.elixir if name in wounded else voter.poison):
            continue
        names.append(name)
    return tuple(names), MappingProxyType({name: seat for seat, name in enumerate(names)})


def shared_targets_table(state: GameState) -> Mapping[Hashable, SharedTargets]:
    """The names valid whoever votes, for every vote asked in the current step (computed once
    per distinct action: the choices of all asked players cost O(players) together).

    In a step that asks everybody the same one vote (:data:`SOLE_ACTIONS`) the first player
    asked gives the table's only entry: the others are not gone over (a lone vote in a big
    game builds this table for its voter's choices).
    """
    table: dict[Hashable, SharedTargets] = {}
    sole = state.step in SOLE_ACTIONS
    for player in state.players:
        for action in actions_for(state, player):
            key = _target_key(action, player)
            if key not in table:
                table[key] = _compute_shared(state, action, player)
        if sole and table:
            break
    return MappingProxyType(table)


def _shared_targets(state: GameState, action: ActionSpec, voter: Player) -> SharedTargets:
    """The names valid in ``action`` whoever votes (seat order) and their positions."""
    found = state.shared_targets.get(_target_key(action, voter))
    return found if found is not None else _compute_shared(state, action, voter)
