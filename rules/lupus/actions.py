"""Who is asked, what each player may send, and vote validation (§4, §5)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.core import refusals
from rules.core.model import Accepted, ActionChoice, Choices, Rejected, Vote
from rules.core.refusals import Ballot, Life, Pipeline, Refusal, Walk
from rules.core.view import JsonValue
from rules.lupus.ids import GHOST_POWERS, GIORNO, NOTTE, SINDACO, SUCCESSORE
from rules.lupus.roles import LUPUS_ROLES
from rules.lupus.spec import Names, PowerSpec
from rules.lupus.spettri import GHOST_POWERS as GHOST_SPECS
from rules.lupus.state import GameState, Player

NEGROMANTE = "negromante"


def night_power(state: GameState, player: Player) -> PowerSpec | None:
    """Return the power ``player`` may use tonight, or None (§1.1, §4).

    A living player uses his role's power, a Spettro his supernatural power; the power must be
    usable tonight, have at least one valid name for each slot, and a Negromante needs an
    unassigned power left.
    """
    if player.alive:
        spec = LUPUS_ROLES[player.role].power
        uses = player.role_uses
    elif player.is_spettro and player.ghost_power is not None:
        spec = GHOST_SPECS[player.ghost_power]
        uses = player.ghost_uses
    else:
        return None
    if spec is None or not spec.is_usable(state.night, uses):
        return None
    if spec.id == NEGROMANTE and len(state.assigned) == len(GHOST_POWERS):
        return None
    slots = [valid_names(state, player, kind) for kind in spec.names]
    if any(not names for names in slots):
        return None
    if len(slots) == 2 and len(set(slots[0]) | set(slots[1])) < 2:
        return None
    return spec


def valid_names(state: GameState, player: Player, kind: Names) -> tuple[str, ...]:
    """The names one slot of ``player``'s power may take: never himself or an exile."""
    return tuple(
        p.name
        for p in state.players
        if p.name != player.name
        and not p.exiled
        and (kind is Names.ANY or p.alive == (kind is Names.LIVING))
    )


def is_mayor(state: GameState, name: str) -> bool:
    """Whether ``name`` is the living Sindaco (who may always send ``successore``)."""
    if not state.has_mayor or state.mayor != name:
        return False
    player = state.find(name)
    return player is not None and player.alive


def asked(state: GameState) -> tuple[str, ...]:
    """Return who may vote in the current step, in seat order (§4)."""
    if state.step == GIORNO:
        return tuple(p.name for p in state.players if p.alive)
    if state.step == NOTTE:
        return tuple(
            p.name
            for p in state.players
            if night_power(state, p) is not None or is_mayor(state, p.name)
        )
    return ()


def main_voters(state: GameState) -> tuple[str, ...]:
    """Those asked for a main action (a power, or the rogo ballot): close_early waits for them."""
    if state.step == GIORNO:
        return tuple(p.name for p in state.players if p.alive)
    if state.step == NOTTE:
        return tuple(p.name for p in state.players if night_power(state, p) is not None)
    return ()


ACTION_KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            *(role.power.id for role in LUPUS_ROLES.values() if role.power is not None),
            *(spec.id for spec in GHOST_SPECS.values()),
            "rogo",
            SINDACO,
            SUCCESSORE,
        )
    )
)
"""Every action a player may be asked (the ``action`` of the votes :func:`choices` offers):
the roles' and the Spettri's powers, the rogo, the Sindaco's ballot and the successor."""


def choices(state: GameState, name: str) -> Choices:
    """Return what ``name`` may send now; the Negromante's powers left are in ``extra``."""
    player = state.find(name)
    actions: list[ActionChoice] = []
    if player is None or state.step is None:
        return Choices(player=name, step=state.step)
    if state.step == NOTTE:
        spec = night_power(state, player)
        if spec is not None:
            actions.append(_power_choice(state, player, spec))
    elif player.alive:
        ballot = _living(state)  # one list for both ballots (each an O(players) loop)
        actions.append(
            ActionChoice(
                action="rogo",
                keyword=None,
                targets=ballot,
                min_names=1,
                max_names=1,
                blanco=True,
            )
        )
        if state.has_mayor:
            actions.append(
                ActionChoice(
                    action=SINDACO,
                    keyword=SINDACO,
                    targets=ballot,
                    min_names=1,
                    max_names=1,
                    blanco=True,
                )
            )
    if is_mayor(state, name):
        actions.append(
            ActionChoice(
                action=SUCCESSORE,
                keyword=SUCCESSORE,
                targets=valid_names(state, player, Names.LIVING),  # gone over for him alone
                min_names=1,
                max_names=1,
                blanco=True,
                extra={"designated": state.successor},
            )
        )
    return Choices(player=name, step=state.step, actions=tuple(actions))


def _living(state: GameState) -> tuple[str, ...]:
    """Every living player in play, the voter included (the rogo and election ballots)."""
    return tuple(p.name for p in state.players if p.alive)


def _power_choice(state: GameState, player: Player, spec: PowerSpec) -> ActionChoice:
    slots = [valid_names(state, player, kind) for kind in spec.names]
    allowed = {name for slot in slots for name in slot}
    targets = tuple(p.name for p in state.players if p.name in allowed)
    extra: dict[str, JsonValue] = {
        "power": spec.id,
        "slots": [list(slot) for slot in slots],
        "frequency": spec.frequency.value,
    }
    if spec.id == NEGROMANTE:
        extra["powers"] = [p for p in GHOST_POWERS if p not in state.assigned]
    return ActionChoice(
        action=spec.id,
        keyword=None,
        targets=targets,
        min_names=len(spec.names),
        max_names=len(spec.names),
        blanco=True,
        extra=extra,
    )


def apply_vote(state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
    """Validate ``vote`` and store it in place of the player's earlier vote for that action.

    Only what the voter can know is checked (§1.1); the rest shows at dawn as a failure.
    """
    player = state.find(vote.player)
    if player is None or state.step is None:
        return Rejected(Refusal.NOT_ASKED, "no such player, or the game is over")
    specials = vote.keywords & {SINDACO, SUCCESSORE}
    words = vote.keywords & set(GHOST_POWERS)
    if len(specials) > 1:
        return Rejected(Refusal.NOT_ASKED, "one mail is one vote: sindaco or successore, not both")
    if specials:
        keyword = next(iter(specials))
        return _keyword_vote(state, player, vote, keyword)
    if state.step == GIORNO:
        if not player.alive:
            return Rejected(Refusal.NOT_ASKED, "only living players send a rogo ballot")
        checked = _check_names(state, player, vote, (Names.LIVING,), allow_self=True)
        return checked if isinstance(checked, Rejected) else _store(state, player.name, "", vote)
    spec = night_power(state, player)
    if spec is None:
        return Rejected(Refusal.NOT_ASKED, "no power usable tonight")
    if spec.id != NEGROMANTE:
        # A power word from anybody but a Negromante is an ordinary word of his mail (§12).
        checked = _check_names(state, player, vote, spec.names, allow_self=False)
        return checked if isinstance(checked, Rejected) else _store(state, player.name, "", vote)
    checked = _check_names(state, player, vote, spec.names, allow_self=False, words=words)
    if isinstance(checked, Rejected):
        return checked
    word = "" if vote.is_blanco else next(iter(words))
    return _store(state, player.name, word, vote)


def _keyword_vote(
    state: GameState, player: Player, vote: Vote, keyword: str
) -> Accepted[GameState] | Rejected:
    if keyword == SINDACO:
        if state.step != GIORNO or not state.has_mayor or not player.alive:
            return Rejected(Refusal.NOT_ASKED, "election ballots are sent by day by living players")
        allow_self = True
    else:
        if not is_mayor(state, player.name):
            return Rejected(Refusal.NOT_ASKED, "only the Sindaco designates a successor")
        allow_self = False
    checked = _check_names(state, player, vote, (Names.LIVING,), allow_self=allow_self)
    return checked if isinstance(checked, Rejected) else _store(state, player.name, keyword, vote)


@dataclass(frozen=True)
class Checked:
    """What Lupus's own stages read: the state, and the power words of a Negromante's vote
    (None for anybody else's)."""

    state: GameState
    words: frozenset[str] | None = None


def power_word(ballot: Ballot[Checked]) -> str:
    """A Negromante naming somebody names exactly one power word (``power-missing``) that is
    not assigned yet (``power-taken``)."""
    words = ballot.context.words
    if words is None or ballot.blanco or not ballot.names:
        return ""
    if len(words) != 1:
        return "power-missing"
    return "power-taken" if next(iter(words)) in ballot.context.state.assigned else ""


VOTE_CHECK: Pipeline[Checked] = (
    power_word,
    refusals.blank_with_names,
    refusals.count,
    *refusals.over_names(
        Walk.BY_NAME,
        refusals.unknown,
        refusals.exiled,
        refusals.self_named,
        refusals.dead,
        refusals.alive,
    ),
    refusals.duplicate,
)
"""Lupus's vote check, in its order (§5): the Negromante's power word; blank and a name; the
number of names; name by name a player, not exiled, not the voter (where he may not name
himself), living or dead as the slot asks; last, the same name twice."""


def _check_names(
    state: GameState,
    player: Player,
    vote: Vote,
    kinds: tuple[Names, ...],
    *,
    allow_self: bool,
    words: frozenset[str] | None = None,
) -> Rejected | None:
    """Return the rejection of the vote (its names for slots ``kinds``), or None when valid."""
    ballot = Ballot(
        voter=player.name,
        names=vote.targets,
        find=state.find,
        context=Checked(state, words),
        blanco=vote.blanco,
        min_names=len(kinds),
        max_names=len(kinds),
        allow_self=allow_self,
        lives=tuple(Life(kind.value) for kind in kinds),
        exiled=frozenset(p.name for p in state.players if p.exiled),
    )
    code = refusals.first_refusal(VOTE_CHECK, ballot)
    if code:
        return Rejected(code, f"{player.name}: {code} ({', '.join(vote.targets) or 'nessuno'})")
    return None


def _store(state: GameState, name: str, keyword: str, vote: Vote) -> Accepted[GameState]:
    """Replace the player's earlier vote for the same action (a power word is no new action)."""
    main = keyword not in (SINDACO, SUCCESSORE)

    def same_action(key: str) -> bool:
        voter, _, word = key.partition(":")
        if voter != name:
            return False
        return word not in (SINDACO, SUCCESSORE) if main else word == keyword

    key = f"{name}:{keyword}" if keyword else name
    kept = tuple(item for item in state.votes if not same_action(item[0]))
    names = () if vote.is_blanco else vote.targets
    return Accepted(replace(state, votes=(*kept, (key, names))))
