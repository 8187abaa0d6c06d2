"""The dawn resolution (§6): a declared pipeline of stages over one night's context."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from rules.core.events import Death, Event, RoleChange
from rules.core.pipeline import Stage, run_pipeline
from rules.lupus.appearances import apparent
from rules.lupus.blocks import OK, solve_blocks
from rules.lupus.common import aftermath, awaken_fantasmi
from rules.lupus.dice import Dice
from rules.lupus.events import (
    AuraSeen,
    Ghost,
    Knows,
    MysticSeen,
    Outcome,
    Resurrected,
    Seen,
    Tracked,
    Visitors,
    Watched,
)
from rules.lupus.ids import (
    ALIVE,
    BIANCA,
    DEAD,
    LUPI,
    NEGROMANTI,
    NIGHT_CAUSES,
    POPOLANI,
    SUCCESSORE,
)
from rules.lupus.intake import Action, night_actions
from rules.lupus.roles import LUPUS_ROLES
from rules.lupus.spec import Frequency
from rules.lupus.spettri import GHOST_POWERS
from rules.lupus.state import GameState, Marks, Player


@dataclass
class Dawn:
    """What the stages of one dawn decide; it lives only while :func:`resolve_night` runs.

    Every stage before ``apply`` reads ``snapshot`` (§1.1 "Information describes the past")
    and records its decisions here; ``apply`` builds the new state from them.
    """

    snapshot: GameState
    dice: Dice
    actions: tuple[Action, ...] = ()
    status: dict[int, str] = field(default_factory=dict)
    kidnapped: frozenset[int] = frozenset()
    success: dict[int, bool] = field(default_factory=dict)
    lupi: tuple[str, list[Action]] | None = None
    negromanti: tuple[str, str, list[Action]] | None = None
    confusions: dict[str, str] = field(default_factory=dict)
    flips: dict[str, int] = field(default_factory=dict)
    illusions: list[tuple[str, str]] = field(default_factory=list)
    visits: list[tuple[str, str]] = field(default_factory=list)
    protected: set[str] = field(default_factory=set)
    guarded: set[str] = field(default_factory=set)
    info: list[tuple[int, Event]] = field(default_factory=list)
    letters: set[str] = field(default_factory=set)
    amnesia: set[str] = field(default_factory=set)
    ipnosi: list[tuple[str, str]] = field(default_factory=list)
    frauds: list[tuple[str, str]] = field(default_factory=list)
    controllers: dict[str, str] = field(default_factory=dict)
    raised: set[str] = field(default_factory=set)
    takes: list[tuple[Action, Player]] = field(default_factory=list)
    ghostify: tuple[str, str, list[Action]] | None = None
    victims: dict[str, str] = field(default_factory=dict)
    corrupted: tuple[str, str] | None = None
    state: GameState | None = None
    events: list[Event] = field(default_factory=list)

    def ok(self, action: Action) -> bool:
        """Whether the action was neither blocked nor failed by contradiction."""
        return self.status[action.index] == OK

    def using(self, *powers: str) -> list[Action]:
        """The actions with one of ``powers``, in seat order."""
        return [a for a in self.actions if a.power in powers]

    def faction(self, name: str) -> str:
        """The real snapshot faction of ``name`` (faction checks never read appearances)."""
        return self.snapshot.get(name).faction

    def visitors(self, target: str, watcher: str) -> list[str]:
        """The players who acted on ``target`` besides ``watcher``, illusions included (§6.4),
        in seat order."""
        found = {user for user, name in self.visits if name == target and user != watcher}
        found |= {who for who, where in self.illusions if where == target and who != target}
        return [p.name for p in self.snapshot.players if p.name in found]


def _intake(dawn: Dawn) -> list[str]:
    dawn.actions = night_actions(dawn.snapshot)
    return [
        f"{a.user}:{a.power}{':' + a.word if a.word else ''} -> {list(a.names)}"
        for a in dawn.actions
    ]


def _blocks(dawn: Dawn) -> list[str]:
    result, trace = solve_blocks(dawn.actions, dawn.dice)
    dawn.status = dict(result.status)
    dawn.kidnapped = result.kidnapped
    dawn.success = {a.index: dawn.ok(a) for a in dawn.actions}
    return trace


def _group(
    dawn: Dawn, power: str, key: Callable[[Action], tuple[str, ...]]
) -> tuple[tuple[str, ...] | None, list[Action], list[str]]:
    """The group rule (§6.2): the agreed choice and the striking members, or None."""
    members = [a for a in dawn.using(power) if a.index not in dawn.kidnapped]
    if not members:
        return None, [], []
    for action in members:
        dawn.success[action.index] = False
    choices = {key(a) for a in members}
    if len(choices) > 1:
        return None, [], [f"{power}: the group disagrees, every action fails"]
    strikers = [a for a in members if dawn.ok(a)]
    if not strikers:
        return None, [], [f"{power}: every member was blocked"]
    choice = next(iter(choices))
    return choice, strikers, [f"{power}: {len(strikers)} strike {list(choice)}"]


def _groups(dawn: Dawn) -> list[str]:
    lupi, strikers, trace = _group(dawn, "lupo", lambda a: (a.first,))
    if lupi is not None:
        dawn.lupi = (lupi[0], strikers)
    pair, necro, more = _group(dawn, "negromante", lambda a: (a.first, a.word or ""))
    if pair is not None:
        dawn.negromanti = (pair[0], pair[1], necro)
    return trace + more


def _appearances(dawn: Dawn) -> list[str]:
    trace: list[str] = []
    for action in dawn.using("confusione", "fattucchiera", "illusione"):
        if not dawn.ok(action):
            continue
        if action.power == "confusione":
            dawn.confusions[action.first] = action.names[1]
            trace.append(f"{action.first} looks like {action.names[1]}")
        elif action.power == "fattucchiera":
            dawn.flips[action.first] = dawn.flips.get(action.first, 0) + 1
            trace.append(f"{action.first}'s aura flips")
        else:
            dawn.illusions.append((action.names[1], action.first))
            trace.append(f"illusion: {action.names[1]} acted on {action.first}")
    return trace


def _visits(dawn: Dawn) -> list[str]:
    dawn.visits = [
        (a.user, a.first) for a in dawn.actions if not a.ghost and a.index not in dawn.kidnapped
    ]
    return [f"visits {dawn.visits}"] if dawn.visits else []


def _guards(dawn: Dawn) -> list[str]:
    trace: list[str] = []
    for action in dawn.using("guardia", "custode"):
        if not dawn.ok(action):
            continue
        (dawn.protected if action.power == "guardia" else dawn.guarded).add(action.first)
        count = len(dawn.visitors(action.first, action.user))
        dawn.info.append(
            (action.seat, Visitors(player=action.user, target=action.first, count=count))
        )
        trace.append(f"{action.user} guards {action.first}")
    return trace


def _information(dawn: Dawn) -> list[str]:
    trace: list[str] = []
    for action in dawn.actions:
        if not dawn.ok(action):
            continue
        # The Diavolo fails on a negromante, the Visione on a lupo (real faction, FAQ 41).
        shielded = {"diavolo": NEGROMANTI, "visione": LUPI}.get(action.power)
        if shielded is not None and dawn.faction(action.first) == shielded:
            dawn.success[action.index] = False
            trace.append(f"{action.user}:{action.power} fails on {action.first}")
            continue
        event = _learn(dawn, action)
        if event is not None:
            dawn.info.append((action.seat, event))
    return trace


def _learn(dawn: Dawn, action: Action) -> Event | None:
    """The information result of a succeeding action, or None for a power that learns nothing."""
    target = action.first
    look = apparent(dawn.snapshot, target, dawn.confusions, dawn.flips)
    user = action.user
    if action.power in ("veggente", "investigatore"):
        return AuraSeen(player=user, target=target, aura=look.aura)
    if action.power == "mago":
        return MysticSeen(player=user, target=target, value=look.mystic)
    if action.power in ("diavolo", "medium", "visione"):
        return Seen(player=user, target=target, role=look.role)
    if action.power == "espansivo":
        return Knows(player=target, target=user, role="espansivo")
    if action.power == "stalker":
        illusion = [where for who, where in dawn.illusions if who == target]
        if illusion:
            visited = tuple(where for where in illusion[:1] if where != target)
        else:
            visited = tuple(name for who, name in dawn.visits if who == target)
        return Tracked(player=user, target=target, visited=visited)
    if action.power == "voyeur":
        seen = tuple(dawn.visitors(target, user))
        return Watched(player=user, target=target, visitors=seen)
    return None


def _marks(dawn: Dawn) -> list[str]:
    trace: list[str] = []
    by_target: dict[str, list[str]] = {}
    for action in dawn.actions:
        if not dawn.ok(action):
            continue
        if action.power == "avvocato":
            dawn.letters.add(action.first)
        elif action.power == "scrutatore":
            dawn.frauds.append((action.user, action.first))
        elif action.power == "amnesia":
            dawn.amnesia.add(action.first)
        elif action.power == "ipnosi":
            dawn.ipnosi.append((action.first, action.names[1]))
        elif action.power == "ipnotista":
            by_target.setdefault(action.first, []).append(action.user)
        else:
            continue
        trace.append(f"{action.power} marks {list(action.names)}")
    for target, ipnotisti in by_target.items():
        # Several Ipnotisti on one player act in a drawn order; the last keeps him (FAQ 30).
        dawn.controllers[target] = dawn.dice.pick(ipnotisti)
        trace.append(f"{dawn.controllers[target]} controls {target}")
    return trace


def _the_dead(dawn: Dawn) -> list[str]:
    trace: list[str] = []
    for action in dawn.using("messia", "trasformista", "necrofilo"):
        if not dawn.ok(action):
            continue
        corpse = dawn.snapshot.get(action.first)
        if action.power == "messia":
            if corpse.is_spettro:
                dawn.success[action.index] = False
                trace.append(f"messia {action.user} fails: {corpse.name} is a Spettro")
                continue
            dawn.raised.add(corpse.name)
            trace.append(f"{corpse.name} will be raised")
            continue
        if action.power == "trasformista":
            taken = LUPUS_ROLES[corpse.role].power
            fits = (
                (corpse.death_faction or corpse.faction) == POPOLANI
                and taken is not None
                and taken.frequency in (Frequency.EVERY_NIGHT, Frequency.ALTERNATE)
            )
        else:
            fits = corpse.faction == LUPI
        if fits:
            dawn.takes.append((action, corpse))
            trace.append(f"{action.user} takes the role {corpse.role} of {corpse.name}")
        else:
            dawn.success[action.index] = False
            trace.append(f"{action.power} {action.user} fails on {corpse.name}")
    if dawn.negromanti is not None:
        name, word, strikers = dawn.negromanti
        corpse = dawn.snapshot.get(name)
        fails = [
            reason
            for reason, failed in (
                ("not a popolano", corpse.faction != POPOLANI),
                ("not mystic", GHOST_POWERS[word].mystic_only and not corpse.mystic),
                ("guarded by a Custode", name in dawn.guarded),
                ("raised by a Messia", name in dawn.raised),
                ("power already given", word in dawn.snapshot.assigned),
            )
            if failed
        ]
        if fails:
            trace.append(f"negromanti fail on {name}: {', '.join(fails)}")
        else:
            dawn.ghostify = (name, word, strikers)
            for action in strikers:
                dawn.success[action.index] = True
            trace.append(f"{name} will be a Spettro with {word}")
    return trace


def _kills(dawn: Dawn) -> list[str]:
    trace: list[str] = []
    victims: list[tuple[str, str]] = []
    if dawn.lupi is not None:
        target, strikers = dawn.lupi
        dies = dawn.faction(target) == POPOLANI and target not in dawn.protected
        for action in strikers:
            dawn.success[action.index] = dies
        if dies:
            victims.append((target, "lupi"))
        trace.append(f"lupi on {target}: {'dies' if dies else 'survives'}")
    for action in dawn.using("assassino", "morte", "cacciatore"):
        if not dawn.ok(action):
            continue
        if action.power == "assassino":
            # Real visits only: illusions do not count for the Assassino (seed 001 FAQ 19).
            users = {u for u, name in dawn.visits if name == action.first and u != action.user}
            candidates = [p.name for p in dawn.snapshot.players if p.name in users]
            if candidates:
                victim = dawn.dice.pick(candidates)
                victims.append((victim, "assassino"))
                trace.append(f"assassino {action.user} draws {victim} among {candidates}")
        elif action.power == "morte":
            if dawn.faction(action.first) == POPOLANI:
                victims.append((action.first, "morte"))
            else:
                dawn.success[action.index] = False
        else:
            victims.append((action.first, "cacciatore"))
    for cause in NIGHT_CAUSES:
        for name, why in victims:
            if why == cause:
                dawn.victims.setdefault(name, cause)
    if dawn.victims:
        trace.append(f"victims {dawn.victims}")
    return trace


def _corruption(dawn: Dawn) -> list[str]:
    for action in dawn.using("corruzione"):
        if not dawn.ok(action):
            continue
        target = dawn.snapshot.get(action.first)
        fits = (
            target.alive
            and target.name not in dawn.victims
            and target.faction == POPOLANI
            and target.aura == BIANCA
            and target.mystic
        )
        dawn.success[action.index] = fits
        if fits:
            dawn.corrupted = (target.name, action.user)
            return [f"{target.name} is corrupted by {action.user}"]
        return [f"corruzione fails on {target.name}"]
    return []


def _apply(dawn: Dawn) -> list[str]:
    """Stage 11 (§6.11): every change of the night, in the order of the spec."""
    snap = dawn.snapshot
    night = snap.night
    players = {p.name: p for p in snap.players}
    for action in dawn.actions:
        player = players[action.user]
        if action.ghost:
            players[action.user] = replace(player, ghost_uses=(*player.ghost_uses, night))
        else:
            players[action.user] = replace(player, role_uses=(*player.role_uses, night))
    events = dawn.events
    order = [p.name for p in snap.players]
    dead_now = [name for name in order if name in dawn.victims]
    for name in dead_now:
        player = players[name]
        players[name] = replace(player, status=DEAD, death_faction=player.faction)
        events.append(Death(player=name, cause=dawn.victims[name]))
    for name in order:
        if name in dawn.raised:
            players[name] = replace(players[name], status=ALIVE, death_faction=None)
            events.append(Resurrected(player=name))
    for power in ("trasformista", "necrofilo"):
        for action, corpse in dawn.takes:
            if action.power != power:
                continue
            players[action.user] = replace(
                players[action.user],
                role=corpse.role,
                aura=corpse.aura,
                mystic=corpse.mystic,
                role_uses=(),
            )
            events.append(RoleChange(player=action.user, role=corpse.role))
            if power == "necrofilo":
                events.append(Knows(player=corpse.name, target=action.user, role="necrofilo"))
    if dawn.corrupted is not None:
        name, spettro = dawn.corrupted
        players[name] = replace(players[name], role="negromante", faction=NEGROMANTI, role_uses=())
        events.append(RoleChange(player=name, role="negromante"))
        events.append(Knows(player=name, target=spettro, role=None, power="corruzione"))
    assigned = snap.assigned
    if dawn.ghostify is not None:
        name, word, strikers = dawn.ghostify
        players[name] = replace(players[name], ghost_power=word, faction=NEGROMANTI, ghost_uses=())
        assigned = (*assigned, word)
        events.append(Ghost(player=name, power=word, via="negromanti"))
        events.extend(Knows(player=name, target=a.user, role="negromante") for a in strikers)
    for target, ipnotista in dawn.controllers.items():
        players[target] = replace(players[target], controller=ipnotista)
    died = set(dawn.victims)
    marks = Marks(
        letters=frozenset(dawn.letters),
        amnesia=frozenset(dawn.amnesia - died),
        ipnosi=tuple((x, y) for x, y in dawn.ipnosi if x not in died and y not in died),
        frauds=tuple((s, x) for s, x in dawn.frauds if x not in died),
    )
    state = replace(
        snap,
        players=tuple(players[name] for name in order),
        assigned=assigned,
        marks=marks,
        successor=_designation(snap),
    )
    state, ghosts, trace = awaken_fantasmi(state, dead_now, dawn.dice)
    events.extend(ghosts)
    events.extend(
        Outcome(player=a.user, power=a.power, success=dawn.success[a.index]) for a in dawn.actions
    )
    events.extend(event for _, event in sorted(dawn.info, key=lambda item: item[0]))
    dawn.state = state
    return trace


def _designation(state: GameState) -> str | None:
    """The successor in force after the Sindaco's ``successore`` vote of this step, if any."""
    for key, names in state.votes:
        voter, _, word = key.partition(":")
        if word == SUCCESSORE and voter == state.mayor:
            return names[0] if names else None
    return state.successor


def _aftermath(dawn: Dawn) -> list[str]:
    assert dawn.state is not None
    state, events, trace = aftermath(dawn.state, dawn.dice)
    dawn.state = state
    dawn.events.extend(events)
    return trace


def _stage(name: str, run: Callable[[Dawn], Sequence[str]]) -> Stage[Dawn]:
    def step(dawn: Dawn) -> tuple[Dawn, Sequence[str]]:
        return dawn, run(dawn)

    return Stage(name, step)


STAGES: tuple[Stage[Dawn], ...] = (
    _stage("intake", _intake),
    _stage("blocks", _blocks),
    _stage("groups", _groups),
    _stage("appearances", _appearances),
    _stage("visits", _visits),
    _stage("guards", _guards),
    _stage("information", _information),
    _stage("marks", _marks),
    _stage("the dead", _the_dead),
    _stage("kills", _kills),
    _stage("corruption", _corruption),
    _stage("apply", _apply),
    _stage("aftermath", _aftermath),
)
"""The stages of §6, in order; only ``apply`` and ``aftermath`` build the new state."""


def resolve_night(state: GameState) -> tuple[GameState, list[Event], tuple[str, ...]]:
    """Resolve the dawn of ``state``'s night: the new state (votes not yet cleared), events,
    trace."""
    dawn = Dawn(snapshot=state, dice=Dice(state.seed, state.draws))
    dawn, trace = run_pipeline(STAGES, dawn)
    assert dawn.state is not None
    return replace(dawn.state, draws=dawn.dice.counter), dawn.events, trace
