"""The validation of a vote (docs/rules/mafia.md §5.3): selection, names, role rules, storage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.core import refusals
from rules.core.model import Accepted, Rejected, Vote
from rules.core.refusals import Ballot, Life, Pipeline, Walk
from rules.core.votefree import copy_with
from rules.mafia import ledger, status
from rules.mafia.actions import (
    CANDIDATE_STEPS,
    DAY,
    LYNCH_VOTES,
    Action,
    actions_of,
)
from rules.mafia.ids import TEAMS, Code, Side, Step
from rules.mafia.roles import PEACEFUL, ROLES
from rules.mafia.spec import ActionSpec, Values
from rules.mafia.state import GameState, Player, StoredVote


def _select(state: GameState, found: Sequence[Action], vote: Vote) -> Action | Rejected:
    if len(vote.keywords) > 1:
        return Rejected(Code.NOT_ASKED, "two actions in one vote")
    if not vote.keywords:
        for action in found:
            if action.primary:
                return action
        if any(a.spec.group == "block" for a in found):
            return Rejected(Code.MODE_REQUIRED, "write arrest or protect")
        return Rejected(Code.KEYWORD_REQUIRED, "this vote needs its keyword")
    (keyword,) = vote.keywords
    matching = [a for a in found if a.spec.keyword == keyword]
    if not matching:
        return Rejected(Code.NOT_ASKED, f"no action {keyword!r} now")
    if len(matching) > 1:
        # RULING (docs/rules/mafia.md, Rulings): a black vigilante Investigator's `kill` is his
        # side's shot while the side has one, else his Investigator's shot.
        player = state.get(vote.player)
        side = player.side
        has_shot = side is not None and ledger.shots(state, side) > 0
        for action in matching:
            if action.is_negative == has_shot:
                return action
    return matching[0]


@dataclass(frozen=True)
class Checked:
    """What Mafia's own stages read: the state, the action selected and the vote."""

    state: GameState
    action: Action
    vote: Vote


def twice(ballot: Ballot[Checked]) -> str:
    """``wrong-count``: a name given twice (§5.3)."""
    names = ballot.names
    return Code.WRONG_COUNT if len(set(names)) != len(names) else ""


def values(ballot: Ballot[Checked]) -> str:
    """``bad-name`` for a word that is no role id, team or number of half votes where the
    action asks one (``blank-not-allowed`` for a blank where it asks a team or player)."""
    state, spec, names = ballot.context.state, ballot.context.action.spec, ballot.names
    if spec.values is Values.ROLES:
        return Code.BAD_NAME if any(name not in ROLES for name in names) else ""
    if spec.values is Values.SIDE:
        known = {p.name for p in state.players if not p.is_elite} | set(TEAMS)
        if any(name not in known for name in names):
            return Code.BAD_NAME
        return "" if names else Code.BLANK_NOT_ALLOWED
    if spec.values is Values.NUMBER:
        return Code.BAD_NAME if any(parse_half(name) is None for name in names) else ""
    return ""


def standing(ballot: Ballot[Checked]) -> str:
    """Who may not be named: an elite player (§1.3; the Agent is elected), the Mayor or the
    Secretary (``untouchable``), a player protected today (``protected``), in a candidates'
    vote somebody not a candidate (``not-candidate``)."""
    state, action, names = ballot.context.state, ballot.context.action, ballot.names
    mayor = state.mayor_in_office()
    secretary = state.secretary_in_office()
    elected = state.step in CANDIDATE_STEPS | {Step.ELECTION} and action.role == DAY
    for name in names:  # §1.3: no action or vote may name an elite player (the Agent: posts)
        player = state.get(name)
        if player.is_elite and not (elected and player.peaceful == "agent"):
            return Code.UNTOUCHABLE
    if mayor in names or (action.spec.secretary_untouchable and secretary in names):
        return Code.UNTOUCHABLE
    if state.step in LYNCH_VOTES and set(names) & set(status.protected_today(state)):
        return Code.PROTECTED
    outsiders = [name for name in names if name not in state.today.candidates]
    if state.step in CANDIDATE_STEPS and action.role == DAY and outsiders:
        return Code.NOT_CANDIDATE
    return ""


def role_rules(ballot: Ballot[Checked]) -> str:
    """The rules of the action's role and side (:func:`_role_rules`)."""
    refusal = _role_rules(ballot.context.state, ballot.context.action, ballot.context.vote)
    return "" if refusal is None else refusal.code


VALUE_CHECK: Pipeline[Checked] = (twice, refusals.count, values, role_rules)
"""Mafia's check of a vote naming role ids, a team or a number of half votes (§5.3)."""

PLAYER_CHECK: Pipeline[Checked] = (
    twice,
    refusals.count,
    *refusals.over_names(Walk.BY_CHECK, refusals.renamed_each(Code.BAD_NAME, refusals.unknown)),
    refusals.renamed(Code.BLANK_NOT_ALLOWED, refusals.blank_allowed),
    *refusals.over_names(
        Walk.BY_CHECK,
        refusals.renamed_each(Code.DEAD, refusals.dead),
        refusals.renamed_each(Code.SELF, refusals.self_named),
    ),
    standing,
    role_rules,
)
"""Mafia's check of a vote naming players, in the §5.3 order, each check over every name: the
same name twice, the number of names, a player, a blank where one is asked, living (unless
the action takes the dead), not the voter, :func:`standing`, then :func:`role_rules`."""


def _check(state: GameState, action: Action, vote: Vote) -> Rejected | None:
    """Walk the vote through the pipeline for what its names are; the refusal, or None."""
    spec = action.spec
    ballot = Ballot(
        voter=vote.player,
        names=vote.targets,
        find=state.find,
        context=Checked(state, action, vote),
        min_names=spec.min_names,
        max_names=spec.max_names,
        blank_allowed=spec.min_names == 0 or spec.blank,
        allow_self=spec.allow_self and not (spec.action == "heal" and len(vote.targets) > 1),
        lives=(Life.ANY,) if spec.dead_ok else (Life.LIVING,),
    )
    pipeline = PLAYER_CHECK if spec.values is Values.PLAYERS else VALUE_CHECK
    code = refusals.first_refusal(pipeline, ballot)
    if not code:
        return None
    return Rejected(code, f"{vote.player}: {code} ({', '.join(vote.targets) or 'blank'})")


def _role_rules(state: GameState, action: Action, vote: Vote) -> Rejected | None:
    spec, names, player = action.spec, vote.targets, state.get(vote.player)
    if action.role == "cultist" and spec.action == "heal" and names:
        cost = (2 if names[0] == player.name else 1) - 1  # at least the cost of a heal not needed
        if state.memory_of("cultist").souls < max(cost, 1) or len(names) > 1:
            return Rejected(Code.NOT_NOW, "not enough souls for that heal")
    captive = state.captive
    held = captive is not None and captive.night == state.night and captive.target != player.name
    if spec.action == "destroy" and names and held and captive and names[0] not in captive.targets:
        return Rejected(Code.NOT_ELIGIBLE, "holding a captive, you may destroy only him")
    if spec.action == "poison" and state.poisoned:
        return Rejected(Code.NOT_NOW, "your earlier victim is still poisoned")
    if spec.action == "fire" and not status.madman_may_fire(state):
        return Rejected(Code.NOT_NOW, "the Madman's fire burns from night 3")
    if spec.action == "company" and player.name in names:
        last = state.memory_of("geisha").self_company_night
        if last and last == state.night - 1:
            return Rejected(Code.REPEAT, "not herself two nights in a row")
    if spec.action == "drink":
        memory = state.memory_of("bum")
        if memory.no_drink or memory.drank_night == state.night - 1:
            return Rejected(Code.NOT_NOW, "not two nights in a row (nor ever, once shot at drunk)")
    if spec.action == "save" and names:
        pending = state.today.pending
        named = {t for b in (pending.ballots if pending else ()) for t in b.targets}
        if names[0] not in named:
            return Rejected(Code.NOT_CANDIDATE, "nobody voted against that player")
    hero_take = spec.action == "take" and action.role == "hero"
    if hero_take and names and names[0] not in state.today.takeable:
        return Rejected(Code.NOT_CANDIDATE, "only a player whose ballot named you")
    if spec.kill and names and action.is_negative and status.lost_kill(state, player):
        return Rejected(Code.NOT_NOW, "your kill of tonight is lost (a kill through your role)")
    if spec.kill and names and spec.group != "last" and _hero_bars(state, player.name):
        return Rejected(Code.NOT_NOW, "no kill move the night after the Hero's save")
    if action.role == "inquisitor" and spec.kill and names:
        refusal = _inquisitor_rules(state, player, spec, names[0])
        if refusal is not None:
            return refusal
    if action.role == "investigator" and spec.action == "kill" and not status.is_vigilante(state):
        return Rejected(Code.NOT_NOW, "the Investigator shoots only when both checkers are gone")
    if spec.action == "verify" and names and names[0] not in state.memory_of(action.role).passed:
        return Rejected(Code.NOT_ELIGIBLE, "no passed check on that player")
    if action.role == "immortal":
        memory = state.memory_of("immortal")
        if spec.action == "link" and memory.link_used:
            return Rejected(Code.NOT_NOW, "the link is made once per game")
        if spec.action == "unlink" and memory.linked is None:
            return Rejected(Code.NOT_NOW, "no link to break")
    if spec.action == "guard" and names and not player.is_black and not player.faceless:
        memory = state.memory_of("bodyguard")
        if memory.last_guard == names and memory.last_guard_night == state.night - 1:
            return Rejected(Code.REPEAT, "not the same player two nights in a row")
    if spec.action == "hidden" and names:
        scandal = state.vote_of(player.name, "scandal")
        others = [n for n in (scandal.targets if scandal else ()) if n != player.name]
        if len(names) > len(others):
            return Rejected(Code.WRONG_COUNT, "one hidden ballot per other scandalised player")
    bank = state.memory_of("drug_dealer").bank
    if spec.action == "defend" and names:
        memory = state.memory_of("advocate")
        allowed = (
            memory.passed
            if player.is_black
            else tuple(n for n in memory.passed if n not in memory.passed_black)
        )
        if names[0] not in allowed:
            return Rejected(Code.NOT_ELIGIBLE, "no passed (red) check on that player")
    if spec.action == "buy" and names and (parse_half(names[0]) or 0) > bank:
        return Rejected(Code.NOT_ELIGIBLE, "more than the bank holds")
    if spec.action == "triple" and player.name in names:
        return Rejected(Code.SELF, "no triple dose for yourself")
    if spec.action == "examine" and names and names[0] not in state.killers:
        return Rejected(Code.NOT_ELIGIBLE, "not a player who died at night")
    if spec.action == "samples":
        memory = state.memory_of("criminalist")
        if memory.corpse is None or memory.corpse_day != state.night:
            return Rejected(Code.NOT_NOW, "no corpse examined today")
    if spec.action == "successor" and names and state.get(names[0]).negative != "mafia":
        return Rejected(Code.NOT_ELIGIBLE, "the successor must be a living Mafia")
    if action.role == "journalist":
        refusal = _journalist_rules(state, spec.action, names)
        if refusal is not None:
            return refusal
    if spec.values is Values.ROLES and any(name not in PEACEFUL for name in names):
        return Rejected(Code.NOT_ELIGIBLE, "not a peaceful role")
    if spec.action == "heal" and names:
        memory = state.memory_of("doctor")
        if memory.last_heal and memory.last_heal_night == state.night - 1:
            alone_twice = names == (player.name,) and memory.last_heal == (player.name,)
            if alone_twice or (len(names) == 2 and len(memory.last_heal) == 2):
                return Rejected(Code.REPEAT, "not the same kind of heal two nights in a row")
    if spec.kill and names and spec.group != "last":
        return _shot_rules(state, action, vote)
    if spec.action in ("rumour", "insure") and action.is_negative:
        return _side_single(state, action, vote)
    return None


def _journalist_rules(state: GameState, action: str, names: tuple[str, ...]) -> Rejected | None:
    """§15.7: `verify` needs a last pair; the night after a result one name must be of it."""
    memory = state.memory_of("journalist")
    if action == "verify" and not memory.pair:
        return Rejected(Code.NOT_ELIGIBLE, "no comparison to verify yet")
    follows = memory.pair and memory.pair_night == state.night - 1
    if action == "compare" and names and follows and not set(names) & set(memory.pair):
        return Rejected(Code.NOT_ELIGIBLE, "one name must be of your last pair, or verify")
    return None


def _hero_bars(state: GameState, name: str) -> bool:
    """§15.16: a black Hero and the black he saved make no kill move on the next night."""
    memory = state.memory_of("hero")
    return name in memory.no_kill and memory.no_kill_night == state.night


def _inquisitor_rules(
    state: GameState, player: Player, spec: ActionSpec, target: str
) -> Rejected | None:
    """§15.10: a burn only on the night its check allows; the last kill only on a verified
    black, unless a black Inquisitor burned a true black."""
    memory = state.memory_of("inquisitor")
    if spec.group == "last":
        if memory.burned_true_black and player.is_black:
            return None
        if target not in memory.verified_black:
            return Rejected(Code.NOT_ELIGIBLE, "only a player you verified black")
        return None
    if memory.burns.get(target) != state.night:
        return Rejected(Code.NOT_ELIGIBLE, "no check that allows burning this player tonight")
    return None


def parse_half(text: str) -> float | None:
    """The number of a `buy` vote: a positive multiple of 0.5 (``1.5``, ``2``), else None."""
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        return None
    return value if value > 0 and (value * 2).is_integer() else None


def _side_votes(state: GameState, side: Side, voter: str, action: str) -> list[StoredVote]:
    members = {p.name for p in state.side_members(side)} - {voter}
    return [v for v in state.votes if v.player in members and v.action == action and v.targets]


def _shot_rules(state: GameState, action: Action, vote: Vote) -> Rejected | None:
    player = state.get(vote.player)
    side = player.side
    if side is None:
        return None  # a red Investigator's shot is no side's shot
    shots = ledger.shots(state, side)
    if side is Side.MANIAC and action.is_negative:
        if shots == 0:
            return Rejected(Code.NO_SHOT, "no shot tonight")
        if len(vote.targets) > shots:
            return Rejected(Code.WRONG_COUNT, f"{shots} shot(s) tonight")
        return None
    others = sum(len(v.targets) for v in _side_votes(state, side, player.name, "kill"))
    if not action.is_negative:
        # §7.4.9: a black's peaceful kill is one of his side's kill moves (or a debt at 0).
        if shots > 0 and others + 1 > shots:
            return Rejected(Code.TAKEN, "the side's shots are taken")
        return None
    if shots == 0:
        return Rejected(Code.NO_SHOT, "no shot tonight")
    if others + 1 > shots:
        return Rejected(Code.TAKEN, "a partner already sent the side's shot")
    return None


def _side_single(state: GameState, action: Action, vote: Vote) -> Rejected | None:
    """The side's one rumour, and a cross-side insurance: the first valid vote wins (§5.2)."""
    player = state.get(vote.player)
    side = player.side
    if side is None:
        return None
    if action.spec.action == "insure" and ledger.has_night(state, side, state.night):
        return None  # a partner insurance: every partner may say whom he would shoot
    if action.spec.action == "insure" and len(state.side_members(side)) >= 3:
        # §16.1: with three members one may insure a partner's reserve shot and the third the
        # Maniac; which insure is which is settled at the deadline (rules.mafia.night).
        return None
    if _side_votes(state, side, player.name, action.spec.action):
        return Rejected(Code.TAKEN, "a partner's vote came first")
    return None


def _fire_too_early(state: GameState, vote: Vote, found: Sequence[Action]) -> Rejected | None:
    """§15.20, ruling 87: before night 3 the Madman is not asked for his fire (nothing he could
    send counts yet), but a `fire` he sends (or, not asked at all, a vote without keyword) is
    told `not-now`: the move exists, its night has not come."""
    player = state.find(vote.player)
    if player is None or not player.alive or player.peaceful != "madman":
        return None
    if state.step != Step.NIGHT or state.night >= 3 or state.memory_of("madman").madman_done:
        return None
    if tuple(vote.keywords) == ("fire",) or (not vote.keywords and not found):
        return Rejected(Code.NOT_NOW, "the Madman's fire burns from night 3")
    return None


def apply_vote(state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
    """Validate ``vote`` (§5.3 order) and store it in place of the same group's earlier vote."""
    found = actions_of(state, vote.player)
    early = _fire_too_early(state, vote, found)
    if not found:
        return early or Rejected(Code.NOT_ASKED, "you are not asked now")
    action = _select(state, found, vote)
    if isinstance(action, Rejected):
        return early if early is not None and action.code == Code.NOT_ASKED else action
    refusal = _check(state, action, vote)
    if refusal is not None:
        return refusal
    group = action.spec.group
    kept = tuple(v for v in state.votes if not (v.player == vote.player and v.group == group))
    stored = StoredVote(vote.player, group, action.spec.action, tuple(vote.targets))
    return Accepted(copy_with(state, votes=(*kept, stored)))
