"""Who may send what now, and the step mail's choices (docs/rules/mafia.md §4, §5.1, §7.1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from rules.core.model import ActionChoice, Choices
from rules.core.view import JsonValue
from rules.mafia import ledger, status, tally
from rules.mafia.ids import TEAMS, WEREWOLVES, Step
from rules.mafia.roles import ACTIONS, PEACEFUL, ROLES
from rules.mafia.spec import ActionSpec, Holder, Values
from rules.mafia.state import GameState, Player, StoredVote

DAY = "day"
"""The pseudo-role of the day votes (they belong to no role)."""

# The day votes of §6, one spec per step (the name rules that differ by step are below).
_DAY_VOTE: Mapping[str, ActionSpec] = {
    Step.ELECTION: ActionSpec(action="vote", group="vote"),
    Step.RUNOFF: ActionSpec(action="vote", group="vote"),
    Step.SECRETARY: ActionSpec(action="vote", group="vote", blank=False),
    Step.LYNCH: ActionSpec(action="vote", group="vote", allow_self=True, blank=False),
    Step.EXTRA_VOTE: ActionSpec(action="vote", group="vote", allow_self=True, blank=False),
    Step.REVOTE: ActionSpec(action="vote", group="vote"),
    Step.HUNT: ActionSpec(action="vote", group="vote", max_names=2, allow_self=True),
}
VERTICAL = ActionSpec(action="vertical", group="vertical")
HUNT_APPROVAL = ActionSpec(action="hunt", group="hunt", min_names=0, max_names=0)
VOUCH = ActionSpec(action="vouch", group="vouch", max_names=4)
EXAMINE = ActionSpec(action="examine", group="examine", dead_ok=True)
BUY = ActionSpec(action="buy", group="buy", values=Values.NUMBER)
DEFEND = ActionSpec(action="defend", group="defend")
"""The Advocate's legal protection (§15.9): a player with a passed check, not himself."""
NOBONUS = ActionSpec(action="nobonus", group="nobonus", min_names=0, max_names=0)
"""A black Advocate cancels his +1 for this vote (§15.9)."""
SUPPORT = ActionSpec(action="support", group="support", max_names=2)
"""The Politician's supporters for today (§15.1): up to his current cap, not himself."""
SHADOW = ActionSpec(action="shadow", group="shadow")
"""The Politician's shadow vertical (§15.1): one player, not himself, or blank."""
ARM = ActionSpec(action="detonate", group="detonate", min_names=0, max_names=0)
"""The Terrorist arms his detonator in the pre-vote (§15.6), once per game."""
DETONATE = ActionSpec(action="detonate", group="detonate")
"""The armed Terrorist names his detonator's target in `vote_moves` (§15.6)."""
FORGIVE = ActionSpec(action="forgive", group="forgive", min_names=0, max_names=0)
"""The Priest forgives the player his ballot named (§15.11), in `vote_moves`."""
INSTEAD = ActionSpec(action="instead", group="last", min_names=0, max_names=0)
"""The Priest lynched in a priest revote takes the rescued player with him (§15.11)."""
ANTIDOTE = ActionSpec(action="antidote", group="antidote", min_names=0, max_names=0)
"""The Poisoner's antidote in the pre-vote (§16.3)."""
DESTROY = ActionSpec(action="destroy", group="last")
"""The lynched Executor's berserk (§16.4): a player (only his captive while he holds one)."""
SIDE = ActionSpec(action="side", group="side", values=Values.SIDE, blank=False)
"""An elite player's side (§17): a team id or a player's name, final once accepted."""
FACELESS_SUICIDE = ActionSpec(action="suicide", group="suicide", min_names=0, max_names=0)
"""A Faceless peaceful killer's suicide on a night he has a kill (§16.6): he leaves with a draw."""
LAST_KILL = ActionSpec(action="kill", group="last", kill=True)
"""The Inquisitor's death-time kill in `last_moves` (§15.10): a verified black (or anyone)."""
LAST_TAKE = ActionSpec(action="take", group="last")
"""A lynched red Hero's death-time move (§15.16): one of the players whose ballot named him."""
SAVE = ActionSpec(action="save", group="save")
"""The Hero's vote-time save (§15.16): one of the players the provisional result lynches."""
SCANDAL = ActionSpec(action="scandal", group="scandal", max_names=2, allow_self=True)
"""The Liar's vote-time move (§15.13): one or two players' ballots count 0 this vote."""
HIDDEN = ActionSpec(action="hidden", group="hidden", max_names=2, allow_self=True)
"""A black Liar's hidden ballots (§15.13), at most one per scandalised other player."""
"""The Drug dealer's pre-vote move (§15.15): votes bought from his bank, a multiple of 0.5."""
"""The Criminalist's pre-vote move (§15.22): a player who died at night on an earlier night."""
"""The Witness's pre-vote move (§15.12): 1 to 4 players, not himself."""
ACTION_KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        spec.action
        for spec in (
            *_DAY_VOTE.values(),
            *(spec for specs in ACTIONS.values() for spec in specs),
            VERTICAL,
            HUNT_APPROVAL,
            VOUCH,
            EXAMINE,
            BUY,
            DEFEND,
            NOBONUS,
            SUPPORT,
            SHADOW,
            ARM,
            DETONATE,
            FORGIVE,
            INSTEAD,
            ANTIDOTE,
            DESTROY,
            SIDE,
            FACELESS_SUICIDE,
            LAST_KILL,
            LAST_TAKE,
            SAVE,
            SCANDAL,
            HIDDEN,
        )
    )
)
"""Every action a player may be asked (the ``action`` of the votes :func:`choices` offers)."""
CANDIDATE_STEPS = frozenset({Step.RUNOFF, Step.REVOTE, Step.SECRETARY})
LYNCH_VOTES = frozenset({Step.LYNCH, Step.EXTRA_VOTE, Step.REVOTE})
KEYWORD_ORDER: tuple[str, ...] = (
    "kill",
    "insure",
    "noinsure",
    "suicide",
    "victims",
    "approve",
    "rumour",
    "heal",
    "arrest",
    "protect",
    "check",
    "verify",
    "fake_red",
    "fake_black",
    "fake_invert",
    "fake",
    "track",
    "role",
    "request",
    "vertical",
    "hunt",
    "vouch",
    "hack",
    "compare",
    "successor",
    "link",
    "unlink",
    "examine",
    "samples",
    "guard",
    "allow",
    "alibi",
    "drug",
    "double",
    "triple",
    "buy",
    "scandal",
    "hidden",
    "defend",
    "nobonus",
    "save",
    "take",
    "favourite",
    "watch",
    "drink",
    "souls",
    "support",
    "shadow",
    "patronage",
    "safe",
    "detonate",
    "forgive",
    "instead",
    "hypnotize",
    "halt",
    "fire",
    "joker",
    "poison",
    "antidote",
    "capture",
    "release",
    "torture",
    "destroy",
    "company",
    "side",
    "slash",
)
# (`kill` also names the Inquisitor's burn and last kill.)


@dataclass(frozen=True)
class Action:
    """An action a player has now: its spec, the role that gives it, whether it is primary."""

    spec: ActionSpec
    role: str
    primary: bool = False

    @property
    def is_negative(self) -> bool:
        """Whether a negative role gives it."""
        return ROLES[self.role].has("negative") if self.role in ROLES else False


def _offered(state: GameState, spec: ActionSpec) -> bool:
    """Moves offered only at times (§15.17): the Fanatic's favourite on night 1, his revenge."""
    if spec.group == "favourite":
        return state.night == 1 and state.memory_of("fanatic").favourite is None
    if spec.group == "revenge":
        return status.revenge_active(state)
    if spec.group == "watch":  # the night after a chosen watch repeats it (§15.8)
        return status.bum_repeats(state) is None
    if spec.group == "patronage":  # the Politician as Mayor or Secretary (§15.1)
        holder = state.holder("politician")
        posts = (state.mayor_in_office(), state.secretary_in_office())
        return holder is not None and holder.name in posts
    if spec.group == "captive":  # §16.4: the evening after a capture
        captive = state.captive
        return captive is not None and captive.night == state.night - 1
    if spec.group == "antidote":  # §16.3: while his victim is poisoned
        return bool(state.poisoned)
    if spec.group == "fire":  # §15.20: from night 3, one fire per game (ruling 87)
        return status.madman_may_fire(state)
    if spec.group == "cult" and spec.kill:  # the devour, once, after 3 souls (§15.21)
        memory = state.memory_of("cultist")
        return memory.souls_gained >= 3 and not memory.devoured
    return True


def _held(spec: ActionSpec, player: Player) -> ActionSpec:
    """The holder's variant of a peaceful action: a black Madman may name three (§15.20), a
    Faceless one none (§16.6)."""
    if spec.group == "fire" and player.is_black:
        return replace(spec, max_names=3)
    if spec.group == "fire" and player.faceless:
        return replace(spec, max_names=0)
    return spec


def _faceless_fire(state: GameState, player: Player) -> bool:
    """§15.20: a Faceless Madman's lone suicide goes with his fire (from night 3, once)."""
    return player.faceless and status.madman_may_fire(state)


def _night_actions(state: GameState, player: Player) -> list[Action]:
    found = [
        Action(_held(spec, player), player.peaceful)
        for spec in ACTIONS[player.peaceful]
        if (spec.holder is Holder.ANY or player.is_black or player.faceless)
        and not (spec.group in ("victims", "allow") and not player.is_black)
        and not (
            spec.action == "suicide"
            and player.peaceful == "madman"
            and not _faceless_fire(state, player)
        )
        and _offered(state, spec)
    ]
    if player.faceless:  # the slash (§16.6)
        found.extend(Action(spec, "faceless") for spec in ACTIONS["faceless"])
        if status.faceless_has_kill(state, player):  # §16.6: a peaceful killer's suicide
            found.append(Action(FACELESS_SUICIDE, player.peaceful))
    side = player.side
    if player.negative is not None:
        for spec in ACTIONS[player.negative]:
            if spec.action == "kill" and player.negative in WEREWOLVES and not player.katana:
                continue  # §16.5, §7.4.7: a werewolf kills only once he holds the kill
            if spec.group == "capture" and ledger.is_shared_night(state, state.night):
                spec = replace(spec, max_names=2)  # §16.4: Extended nights 1 and 2
            if spec.group == "company" and player.peaceful == "prostitute":
                spec = replace(spec, max_names=2)  # §16.5: the double company
            if spec.group == "insure" and not status.geisha_insures(state, player):
                continue  # §16.5: the Geisha's cross-side insurance, on the Maniac's nights
            if spec.action == "suicide" and any(a.spec.action == "suicide" for a in found):
                continue  # §15.19: a black Kamikaze's `suicide X` replaces the black's suicide
            if spec.action == "rumour" and (
                side is None or not ledger.has_night(state, side, state.night)
            ):
                continue
            found.append(Action(spec, player.negative))
    default = [a for a in found if a.spec.default and not a.is_negative]
    if default:
        return [replace(default[0], primary=True), *(a for a in found if a is not default[0])]
    if len(found) == 1:
        return [replace(found[0], primary=True)]
    return found


def actions_of(state: GameState, name: str) -> tuple[Action, ...]:
    """Return what ``name`` may send in the current step (primary action first); an elite player
    without a side may also choose it in any step in which he is asked (§17)."""
    found = _actions_of(state, name)
    player = state.find(name)
    if found and player is not None and player.is_elite and name not in state.sides:
        return (*found, Action(SIDE, DAY))
    return found


def _actions_of(state: GameState, name: str) -> tuple[Action, ...]:
    player = state.find(name)
    if player is not None and state.step == Step.LAST_MOVES:
        # The only step that asks the dead: a lynched player's death-time move (§6.9, §8.2).
        if name not in state.today.last_movers:
            return ()
        if player.peaceful in ("hero", "fanatic"):
            return (Action(LAST_TAKE, player.peaceful, True),)
        if player.negative == "executor":
            return (Action(DESTROY, "executor", True),)
        if player.peaceful == "priest":
            return (Action(INSTEAD, "priest"),)
        return (Action(LAST_KILL, "inquisitor", True),)
    if player is None or not player.alive or state.step is None:
        return ()
    step = state.step
    if step == Step.NIGHT:
        return tuple(_night_actions(state, player))
    if step == Step.PRE_VOTE:
        found = []
        is_mayor = state.mayor_in_office() == name
        if is_mayor:
            found.append(Action(VERTICAL, DAY, primary=True))
        if player.peaceful == "witness":
            found.append(Action(VOUCH, "witness", primary=not is_mayor))
        if player.peaceful == "criminalist":
            found.append(Action(EXAMINE, "criminalist", primary=not is_mayor))
        if player.peaceful == "drug_dealer":
            found.append(Action(BUY, "drug_dealer", primary=not is_mayor))
        if player.peaceful == "advocate" and defensible(state, player):
            found.append(Action(DEFEND, "advocate", primary=not is_mayor))
        if player.peaceful == "politician":
            found.extend(_politician_pre_vote(state, is_mayor))
        if player.negative == "poisoner" and state.poisoned:
            found.append(Action(ANTIDOTE, "poisoner"))
        if player.peaceful == "terrorist" and not state.memory_of("terrorist").detonator_used:
            found.append(Action(ARM, "terrorist"))
        if status.is_hunt_possible(state) and not player.is_elite:
            found.append(Action(HUNT_APPROVAL, DAY))
        return tuple(found)
    if step == Step.SECRETARY:
        return (Action(_DAY_VOTE[step], DAY, True),) if name == state.mayor else ()
    if step == Step.VOTE_MOVES:
        if name == state.today.armed:
            return (Action(DETONATE, "terrorist", primary=True),)
        if state.is_role_blocked(name):
            return ()
        if player.peaceful == "advocate" and player.is_black:
            return (Action(NOBONUS, "advocate", primary=True),)
        if player.peaceful == "hero":
            hero = [Action(SAVE, "hero")] if status.hero_may_save(state) else []
            if player.faceless and status.faceless_hero_may_leave(state):
                hero.append(Action(FACELESS_SUICIDE, "hero"))
            if hero:
                return (replace(hero[0], primary=True), *hero[1:])
        if player.peaceful == "priest" and tally.priest_may_forgive(state):
            return (Action(FORGIVE, "priest"),)
        if player.peaceful != "liar":
            return ()
        moves = [Action(SCANDAL, "liar", primary=True)]
        black_rules = player.is_black or player.faceless  # §15.13, §16.6
        return tuple([*moves, Action(HIDDEN, "liar")] if black_rules else moves)
    if step in (Step.RUNOFF, Step.REVOTE) and name not in state.today.tied_asked:
        return ()
    if step == Step.ELECTION and player.peaceful == "mason":
        return ()  # ruling 11: the Mason is not asked in the election
    if step == Step.REVOTE and state.today.rescued is not None:
        return (Action(_DAY_VOTE[Step.LYNCH], DAY, True),)  # a priest revote (§15.11)
    if step in _DAY_VOTE:
        return (Action(_DAY_VOTE[step], DAY, True),)
    return ()


def _politician_pre_vote(state: GameState, is_mayor: bool) -> list[Action]:
    """§15.1: supporters (not as Mayor; up to his cap) and, while a Mayor is in office, the
    shadow vertical; a lone one of them is his primary action."""
    found = []
    cap = state.memory_of("politician").support_cap
    if not is_mayor and cap > 0:
        found.append(Action(replace(SUPPORT, max_names=cap), "politician"))
    if state.mayor_in_office() is not None:
        found.append(Action(SHADOW, "politician"))
    if len(found) == 1 and not is_mayor:
        found[0] = replace(found[0], primary=True)
    return found


def asked(state: GameState) -> tuple[str, ...]:
    """Return the players asked in the current step, in seat order."""
    return tuple(p.name for p in state.players if actions_of(state, p.name))


def vote_key(state: GameState, vote: StoredVote) -> str:
    """The scenario form of a vote's key: ``Name`` for the primary action, else
    ``Name:keyword``."""
    for action in actions_of(state, vote.player):
        if action.spec.action == vote.action and action.spec.group == vote.group:
            return vote.player if action.primary else f"{vote.player}:{vote.action}"
    return f"{vote.player}:{vote.action}"


def defensible(state: GameState, advocate: Player) -> tuple[str, ...]:
    """§15.9: whom the Advocate may defend today: a red check of his (any check when he is
    black), living, not himself (a role block stops the defence, not the asking, §8.5)."""
    memory = state.memory_of("advocate")
    return tuple(
        name
        for name in memory.passed
        if (advocate.is_black or name not in memory.passed_black)
        and name != advocate.name
        and state.get(name).alive
    )


def _targets(state: GameState, action: Action, name: str) -> tuple[str, ...]:
    spec = action.spec
    if spec.values is Values.ROLES:
        return tuple(role for role in PEACEFUL if role in state.peaceful_roles)
    if spec.values is Values.NUMBER:
        return ()
    if spec.values is Values.SIDE:
        return (*TEAMS, *(p.name for p in state.players if not p.is_elite and p.name != name))
    if state.step == Step.ELECTION and action.role == DAY:  # the Agent may be elected (§17.1)
        agents = [p.name for p in state.players if p.peaceful == "agent" and p.alive]
        return tuple(n for n in (*(p.name for p in state.living), *agents) if n != name)
    if state.step in CANDIDATE_STEPS and action.role == DAY:
        return tuple(c for c in state.today.candidates if state.get(c).alive)
    if spec.action == "verify":
        return state.memory_of(action.role).passed
    mayor = state.mayor_in_office()
    secretary = state.secretary_in_office() if spec.secretary_untouchable else None
    return tuple(
        p.name
        for p in state.living
        if p.name not in (mayor, secretary)
        and (spec.allow_self or p.name != name)
        and not (state.step in LYNCH_VOTES and p.name in status.protected_today(state))
    )


def _extra(state: GameState, action: Action, name: str) -> dict[str, JsonValue]:
    player = state.get(name)
    extra: dict[str, JsonValue] = {"role": action.role}
    if action.spec.kill and player.side is not None:
        extra["shots"] = ledger.shots(state, player.side)
    if action.spec.action == "buy":
        extra["bank"] = state.memory_of("drug_dealer").bank
    pending = state.today.pending
    if action.spec.action == "scandal" and pending is not None:
        # The step mail shows the ballots and the provisional result (§6.9).
        provisional = tally.weigh(state, pending.ballots, pending.auto)
        extra["ballots"] = provisional.ballots_form()
        extra["totals"] = dict(provisional.totals_form())
    if action.spec.action == "save" and player.faceless and pending is not None:
        # §15.16: a Faceless Hero's step mail gives the teams of the players he may save.
        named = dict.fromkeys(t for b in pending.ballots for t in b.targets)
        extra["teams"] = {n: state.get(n).team.value for n in named if n != name}
    if action.role == "investigator" and action.spec.action == "kill":
        extra["now"] = status.is_vigilante(state)  # the step mail says whether he may shoot
    if action.role in ("mafia", "son_of_boss"):
        extra["partners"] = list(state.partners(name))
    if (
        action.role == DAY
        and state.step in (*LYNCH_VOTES, Step.HUNT)
        and player.peaceful == "judge"
    ):
        extra["weight"] = state.memory_of("judge").weight
    return extra


def choices(state: GameState, name: str) -> Choices:
    """Return what ``name`` may send now, the primary action first (§5.1)."""
    found = actions_of(state, name)
    return Choices(
        player=name,
        step=state.step,
        actions=tuple(
            ActionChoice(
                action=action.spec.action,
                keyword=None if action.primary else action.spec.keyword,
                targets=_targets(state, action, name),
                min_names=action.spec.min_names,
                max_names=action.spec.max_names,
                blanco=action.spec.blank and action.spec.min_names > 0,
                extra=_extra(state, action, name),
                number=action.spec.values is Values.NUMBER,
                move=action.spec.group,
            )
            for action in found
        ),
    )
