"""The `nacht` resolution (spec §6.3) as a declared pipeline of pure stages with a trace."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from rules.core.events import Event
from rules.core.pipeline import Stage, run_pipeline
from rules.core.rng import draw_from
from rules.core.votes import count, plurality
from rules.wakkerdam.actions import actions_for, vote_key
from rules.wakkerdam.events import Burns, Saved, Seen, Tally
from rules.wakkerdam.roles import BURNS, dwaas
from rules.wakkerdam.state import GameState

ATTACK_ORDER = ("weerwolven", "vampiers", "psychopaat", "witte_weerwolf")


@dataclass(frozen=True)
class Attack:
    """An attack aimed at ``aimed``'s bed that landed in ``landing``'s bed."""

    cause: str
    aimed: str
    landing: str


@dataclass(frozen=True)
class NightContext:
    """What the night pipeline knows so far; each stage returns a new one.

    ``acts`` maps an action id to the (actor, names) votes cast, in seat order.
    """

    state: GameState
    acts: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]]
    draws: int
    beds: Mapping[str, str | None] = field(default_factory=dict)
    redirect: Mapping[str, str] = field(default_factory=dict)
    tallies: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    attacks: tuple[Attack, ...] = ()
    hits: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    protected: frozenset[str] = frozenset()
    elder_spent: tuple[str, ...] = ()
    saved: tuple[str, ...] = ()
    hurt: tuple[tuple[str, str], ...] = ()
    info: tuple[Event, ...] = ()

    def single(self, action: str) -> tuple[tuple[str, str], ...]:
        """Return (actor, target) for every one-name vote of ``action``."""
        return tuple((actor, names[0]) for actor, names in self.acts.get(action, ()) if names)


def collect_acts(state: GameState) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """Group the step's votes by action id, actors in seat order."""
    acts: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for player in state.players:
        for action in actions_for(state, player):
            names = state.votes.get(vote_key(player.name, action))
            if names is not None:
                acts.setdefault(action.action, []).append((player.name, names))
    return {action: tuple(items) for action, items in acts.items()}


def stage_beds(ctx: NightContext) -> tuple[NightContext, Sequence[str]]:
    """Who sleeps where: slet visits, verleidster lures; doubly moved players are in no bed."""
    visits = dict(ctx.single("slet"))
    lured: dict[str, list[str]] = {}
    for seductress, target in ctx.single("verleidster"):
        lured.setdefault(target, []).append(seductress)
    beds: dict[str, str | None] = {}
    lines: list[str] = []
    for slet, host in visits.items():
        beds[slet] = host
    for target, seductresses in lured.items():
        if len(seductresses) > 1 or target in visits:
            beds[target] = None
        else:
            beds[target] = seductresses[0]
    for name, bed in beds.items():
        lines.append(f"{name} sleeps in {bed}'s bed" if bed else f"{name} is in no bed")
    return replace(ctx, beds=beds), lines


def stage_swaps(ctx: NightContext) -> tuple[NightContext, Sequence[str]]:
    """Goochelaar swaps, in seat order, composed into one aimed-bed -> landing-bed map."""
    landing: dict[str, str] = {}
    aimed_at: dict[str, str] = {}
    lines: list[str] = []
    for magician, names in ctx.acts.get("goochelaar", ()):
        if len(names) != 2:
            continue
        a, b = names
        from_a, from_b = aimed_at.get(a, a), aimed_at.get(b, b)
        landing[from_a], landing[from_b] = b, a
        aimed_at[b], aimed_at[a] = from_a, from_b
        lines.append(f"{magician} swaps the beds of {a} and {b}")
    return replace(ctx, redirect=landing), lines


def _pack_victim(ctx: NightContext, action: str) -> tuple[str | None, dict[str, int]]:
    names = [names[0] for _actor, names in ctx.acts.get(action, ()) if names]
    return plurality(names), count(names)


def stage_attacks(ctx: NightContext) -> tuple[NightContext, Sequence[str]]:
    """The attacks in order: werewolf pack, vampire pack, each psychopaat, each white wolf."""
    aims: list[tuple[str, str]] = []
    tallies: dict[str, dict[str, int]] = {}
    lines: list[str] = []
    for pack, action in (("weerwolven", "weerwolf"), ("vampiers", "vampier")):
        victim, counts = _pack_victim(ctx, action)
        tallies[pack] = counts
        lines.append(f"{pack} tally {counts} -> {victim or 'no victim'}")
        if victim is not None:
            aims.append((pack, victim))
    aims.extend(("psychopaat", target) for _actor, target in ctx.single("psychopaat"))
    aims.extend(("witte_weerwolf", target) for _actor, target in ctx.single("witte"))
    occupants: dict[str, list[str]] = {}
    for name, bed in ctx.beds.items():
        if bed is not None:
            occupants.setdefault(bed, []).append(name)
    attacks: list[Attack] = []
    hits: dict[str, list[str]] = {}
    for cause, aimed in aims:
        bed = ctx.redirect.get(aimed, aimed)
        attacks.append(Attack(cause, aimed, bed))
        inside = [bed] if bed not in ctx.beds and ctx.state.player(bed).alive else []
        inside.extend(occupants.get(bed, ()))
        ordered = sorted(inside, key=ctx.state.index.__getitem__)
        lines.append(
            f"{cause} attack {aimed}'s bed, lands in {bed}'s bed: hits {ordered or 'nobody'}"
        )
        for name in ordered:
            hits.setdefault(name, []).append(cause)
    frozen_hits = {name: tuple(causes) for name, causes in hits.items()}
    return replace(ctx, attacks=tuple(attacks), hits=frozen_hits, tallies=tallies), lines


def stage_protection(ctx: NightContext) -> tuple[NightContext, Sequence[str]]:
    """Genezer protection (player-specific) and the dorpsoudste's one extra life."""
    protected = frozenset(target for _healer, target in ctx.single("genezer"))
    saved: list[str] = []
    spent: list[str] = []
    hurt: list[tuple[str, str]] = []
    lines: list[str] = []
    for name in sorted(ctx.hits, key=ctx.state.index.__getitem__):
        causes = ctx.hits[name]
        player = ctx.state.player(name)
        if name in protected:
            saved.append(name)
            lines.append(f"{name} is protected by a genezer")
        elif player.role == "dorpsoudste" and not player.elder_hit and len(causes) == 1:
            saved.append(name)
            spent.append(name)
            lines.append(f"dorpsoudste {name} survives his first attack")
        else:
            hurt.append((name, causes[0]))
            lines.append(f"{name} is mortally wounded ({causes[0]})")
    return replace(
        ctx, protected=protected, saved=tuple(saved), elder_spent=tuple(spent), hurt=tuple(hurt)
    ), lines


def stage_information(ctx: NightContext) -> tuple[NightContext, Sequence[str]]:
    """Ziener, dwaas, priester and onschuldige meisje learn (roles as at the night's start)."""
    state = ctx.state
    info: list[Event] = []
    draws = ctx.draws
    for seer, target in ctx.single("ziener"):
        info.append(Seen(player=seer, target=target, role=state.role_at_night_start(target)))
    for fool, target in ctx.single("dwaas"):
        options = dwaas.vision_options(state.distribution_roles, state.role_at_night_start(target))
        vision = draw_from(state.settings.seed, draws, options)
        draws += 1
        info.append(Seen(player=fool, target=target, role=vision))
    for priest, target in ctx.single("priester"):
        burns = state.role_at_night_start(target) in BURNS
        info.append(Burns(player=priest, target=target, value=burns))
    voting_packs = [
        pack
        for pack, action in (("weerwolven", "weerwolf"), ("vampiers", "vampier"))
        if _pack_was_asked(state, action)
    ]
    for girl in state.players:
        if girl.alive and girl.role == "onschuldige_meisje" and girl.name not in state.asleep:
            for pack in voting_packs:
                counts = dict(ctx.tallies.get(pack, {}))
                info.append(Tally(player=girl.name, pack=pack, counts=counts))
    lines = [f"{event.type}: {event.to_dict()}" for event in info]
    return replace(ctx, info=tuple(info), draws=draws), lines


def _pack_was_asked(state: GameState, action: str) -> bool:
    return any(
        any(a.action == action for a in actions_for(state, player)) for player in state.players
    )


NIGHT_PIPELINE: tuple[Stage[NightContext], ...] = (
    Stage("beds", stage_beds),
    Stage("goochelaar", stage_swaps),
    Stage("attacks", stage_attacks),
    Stage("protection", stage_protection),
    Stage("information", stage_information),
)
"""The order of §6.3; the wounds and bodyguard substitution are applied by the engine."""


def resolve_night(state: GameState) -> tuple[NightContext, tuple[str, ...]]:
    """Run the night pipeline on a state at step ``nacht``; return its result and trace."""
    context = NightContext(state=state, acts=collect_acts(state), draws=state.draws)
    return run_pipeline(NIGHT_PIPELINE, context)


def saved_events(ctx: NightContext) -> tuple[Event, ...]:
    """Return a ``saved`` event for every player hit and not harmed."""
    return tuple(Saved(player=name, extra_life=name in ctx.elder_spent) for name in ctx.saved)
