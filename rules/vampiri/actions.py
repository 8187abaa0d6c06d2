"""Who may vote what in the current step: the vote slots, choices, and vote validation.

The rejection codes and their order are docs/rules/vampiri.md, "Rejection codes": the first
check that fails names the code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules.core import refusals
from rules.core.model import Accepted, ActionChoice, Choices, Rejected, Vote
from rules.core.refusals import Ballot, Pipeline, Refusal, Walk
from rules.core.view import JsonValue
from rules.vampiri.roles import DAY_SLOTS, HUNT_SLOTS, WEREWOLVES, day_slots, licantropo
from rules.vampiri.spec import Effect, Option, Slot
from rules.vampiri.state import GameState, Player

NIGHT_STEPS = ("votazione", "spareggio", "decisione")
DAY_STEP = "giorno"

KEYWORD_ORDER = ("caccia", "visita", "ospita", "agguato", "condanna", "risparmia")
"""The special votes' keyword ids, in the order a vote reports them."""

MAX_PLAYERS = 1000
"""The most players a game has: no approval vote can name more."""

APPROVAL = Slot(
    id="voto",
    options=(Option(action="voto", effect=Effect.APPROVE, max_names=MAX_PLAYERS),),
)
"""The approval vote of ``votazione`` and ``spareggio``: any number of suspects, or blank."""

DECISION = Slot(
    id="decisione",
    options=(
        Option(action="astengo", effect=Effect.ABSTAIN, max_names=0, names_need_keyword=True),
        Option(action="condanna", effect=Effect.CONDEMN, keyword="condanna", max_names=0),
        Option(action="risparmia", effect=Effect.SPARE, keyword="risparmia", max_names=0),
    ),
)
"""The ``decisione``: condemn all the tied, spare them all, or abstain (a blank)."""


ACTION_KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        option.action
        for slot in (
            APPROVAL,
            DECISION,
            *(slot for slots in DAY_SLOTS.values() for slot in slots),
            *licantropo.DEN_SLOTS,
            *(slot for slot in HUNT_SLOTS.values() if slot is not None),
        )
        for option in slot.options
    )
)
"""Every action a player may be asked (the ``action`` of the votes :func:`choices` offers)."""


def slots_for(state: GameState, player: Player) -> tuple[Slot, ...]:
    """Return the votes ``player`` is asked for in the current step (empty: not asked)."""
    step = state.step
    if step is None or not player.alive:
        return ()
    if step in NIGHT_STEPS:
        if player.name == state.silenced:
            return ()
        return (DECISION,) if step == "decisione" else (APPROVAL,)
    slots = day_slots(player.role, wolf_den=state.flag("wolf_den"))
    hunt = HUNT_SLOTS[player.role]
    if hunt is not None and player.name in state.group:
        slots = (*slots, hunt)
    return slots


def asked(state: GameState) -> tuple[str, ...]:
    """Return the players asked to act in the current step, in seat order."""
    return tuple(p.name for p in state.players if slots_for(state, p))


def vote_key(player: str, option: Option) -> str:
    """Return the key a vote for ``option`` is stored under (``Name`` or ``Name:keyword``)."""
    return player if option.keyword is None else f"{player}:{option.keyword}"


def slot_keys(player: str, slot: Slot) -> frozenset[str]:
    """Return every key an option of ``slot`` may be stored under."""
    return frozenset(vote_key(player, option) for option in slot.options)


def in_force(state: GameState, player: str, slot: Slot) -> tuple[Option, tuple[str, ...]] | None:
    """Return the option of ``slot`` the player's vote in force chose, with its names."""
    for option in slot.options:
        names = state.votes.get(vote_key(player, option))
        if names is not None:
            return option, names
    return None


def has_voted(state: GameState, player: Player) -> bool:
    """Whether a vote of ``player`` is in force in the current step (blank included)."""
    return any(in_force(state, player.name, slot) for slot in slots_for(state, player))


def all_voted(state: GameState) -> bool:
    """Whether every asked player has a vote in force for every slot he is asked for."""
    return all(
        in_force(state, player.name, slot) is not None
        for player in state.players
        for slot in slots_for(state, player)
    )


def select(
    slots: tuple[Slot, ...], keywords: Iterable[str]
) -> tuple[Slot, Option | None] | Rejected:
    """Return the slot and option a vote's keywords select (option None: no keyword was given
    and the player's first slot has no plain vote, as the Lamia's).

    Returns ``no-special-vote`` for a keyword that selects none of the player's options and
    ``keyword-conflict`` for keywords that select different options.
    """
    chosen: dict[Option, Slot] = {}
    for word in sorted({word.casefold() for word in keywords}):
        found = [(s, o) for s in slots for o in s.options if word in (o.keyword, *o.also)]
        if not found:
            return Rejected(Refusal.NO_SPECIAL_VOTE, f"{word!r} is no vote of yours now")
        chosen.update((option, slot) for slot, option in found)
    if len(chosen) > 1:
        return Rejected(Refusal.KEYWORD_CONFLICT, "these keywords exclude each other")
    if chosen:
        option, slot = next(iter(chosen.items()))
        return slot, option
    for slot in slots:
        if slot.plain is not None:
            return slot, slot.plain
    return slots[0], None


@dataclass(frozen=True)
class Checked:
    """What Vampiri's own stages read: the state, the voter, and the slot and option the
    vote's keywords selected (option None: the slot has no plain vote and none was named)."""

    state: GameState
    voter: Player
    slot: Slot
    option: Option | None


def keyword_needed(ballot: Ballot[Checked]) -> str:
    """``keyword-required`` for names where only a keyword vote is asked (``required`` for a
    blank there)."""
    option = ballot.context.option
    if option is None:
        return Refusal.KEYWORD_REQUIRED if ballot.names else Refusal.REQUIRED
    return Refusal.KEYWORD_REQUIRED if option.names_need_keyword and ballot.names else ""


def candidate(ballot: Ballot[Checked], _position: int, name: str) -> str:
    """``not-candidate``: in the ``spareggio`` a name outside the tied."""
    state = ballot.context.state
    target = state.find(name)
    if state.step != "spareggio" or target is None:
        return ""
    return "" if target.name in state.candidates else "not-candidate"


def ally(ballot: Ballot[Checked], _position: int, name: str) -> str:
    """``target-ally``: a known ally (see :func:`is_ally`)."""
    state, voter, option = ballot.context.state, ballot.context.voter, ballot.context.option
    target = state.find(name)
    if option is None or target is None:
        return ""
    return "target-ally" if is_ally(state, voter, option, target) else ""


VOTE_CHECK: Pipeline[Checked] = (
    keyword_needed,
    refusals.blank_with_names,
    refusals.count,
    refusals.blank_allowed,
    refusals.duplicate,
    *refusals.over_names(
        Walk.BY_CHECK,
        refusals.unknown,
        refusals.dead,
        refusals.self_named,
        candidate,
        ally,
    ),
    refusals.required,
)
"""Vampiri's vote check, in the order of docs/rules/vampiri.md, "Rejection codes": the
keywords and the number of names before any name is looked at; then the same name twice, and
each check over every name before the next; last, a blank where the vote is required."""


def is_ally(state: GameState, voter: Player, option: Option, target: Player) -> bool:
    """Whether ``target`` is a known ally ``voter`` may not name with ``option`` (the
    hunters' group in the hunters' vote; the other werewolf in a werewolf's kill)."""
    if option.effect is Effect.HUNT:
        return target.name in state.group
    if option.effect is Effect.KILL and voter.role in WEREWOLVES:
        return target.role in WEREWOLVES
    return False


def apply_vote(state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
    """Validate ``vote`` and return the state holding it (replacing the alternatives of the
    same slot), or the rejection with its code."""
    player = state.find(vote.player)
    slots = () if player is None else slots_for(state, player)
    if player is None or not slots:
        return Rejected(Refusal.NOT_ASKED, f"{vote.player!r} is not asked to vote now")
    picked = select(slots, vote.keywords)
    if isinstance(picked, Rejected):
        return picked
    slot, option = picked
    ballot = Ballot(
        voter=player.name,
        names=vote.targets,
        find=state.find,
        context=Checked(state, player, slot, option),
        blanco=vote.blanco,
        min_names=0,
        max_names=0 if option is None else option.max_names,
        blank_allowed=option is None or option.min_names == 0,
        required=slot.must and option is not None and option.keyword is None,
    )
    code = refusals.first_refusal(VOTE_CHECK, ballot)
    if code or option is None:  # option None always has a code; the test narrows its type
        return Rejected(code, f"{player.name}: {code} ({', '.join(vote.targets) or 'nessuno'})")
    names = ballot.canonical()
    replaced = slot_keys(player.name, slot)
    votes = {key: names for key, names in state.votes.items() if key not in replaced}
    votes[vote_key(player.name, option)] = names
    return Accepted(state.with_votes(votes))


def valid_targets(state: GameState, voter: Player, option: Option) -> tuple[str, ...]:
    """The names ``voter`` may give with ``option``, in seat order."""
    if option.max_names == 0:
        return ()
    # is_ally's cases, decided once for the voter and the option rather than seat by seat
    group = state.group if option.effect is Effect.HUNT else ()
    wolves = option.effect is Effect.KILL and voter.role in WEREWOLVES
    run_off = state.step == "spareggio"
    return tuple(
        p.name
        for p in state.players
        if p.alive
        and p.name != voter.name
        and (not run_off or p.name in state.candidates)
        and p.name not in group
        and not (wolves and p.role in WEREWOLVES)
    )


def choices(state: GameState, name: str) -> Choices:
    """Return every vote ``name`` may send now, with the valid names (seat order).

    ``extra`` says what the step mail needs beyond names: ``slot`` (options with the same slot
    replace each other), ``must`` (a blank is refused), ``also`` (keywords accepted as this
    plain vote), ``approval`` (name everyone you suspect), ``secret`` (the night's vote is
    secret: only its totals are told), ``candidates`` (the tied),
    ``group`` (the hunters' group, for the hunters' vote).
    """
    player = state.find(name)
    if player is None:
        return Choices(player=name, step=state.step)
    result: list[ActionChoice] = []
    for slot in slots_for(state, player):
        for option in slot.options:
            targets = valid_targets(state, player, option)
            also: list[JsonValue] = [*sorted(option.also)]
            extra: dict[str, JsonValue] = {
                "slot": slot.id,
                "effect": str(option.effect),
                "must": slot.must,
                "also": also,
            }
            if option.effect is Effect.APPROVE:
                extra["approval"] = True
            if slot.id in (APPROVAL.id, DECISION.id) and state.flag("secret_vote"):
                extra["secret"] = True  # Vampire Masquerade: only the totals are told
            if state.candidates:
                extra["candidates"] = list(state.candidates)
            if option.effect is Effect.HUNT:
                extra["group"] = list(state.group)
            result.append(
                ActionChoice(
                    action=option.action,
                    keyword=option.keyword,
                    targets=targets,
                    min_names=1 if option.max_names else 0,
                    max_names=min(option.max_names, len(targets)),
                    blanco=option.min_names == 0 and not (slot.must and option.keyword is None),
                    extra=extra,
                    move=slot.id,
                )
            )
    return Choices(player=player.name, step=state.step, actions=tuple(result))
