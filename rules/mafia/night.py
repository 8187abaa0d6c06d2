"""The night resolution (§7.2): the slot table as a pipeline of stages, each tracing its work."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.core.pipeline import Stage
from rules.core.rng import draw_from
from rules.mafia import kills, ledger, status
from rules.mafia.ids import Stop
from rules.mafia.moves import Move, Night
from rules.mafia.roles import ACTIONS
from rules.mafia.state import GameState, RoleBlock, StoredVote

PEACEFUL_SHOT = -1
"""The shot id of a black's kill through his peaceful role (one of his side's kill moves)."""


def _vote(state: GameState, name: str, group: str) -> tuple[str, tuple[str, ...]] | None:
    vote = state.vote_of(name, group)
    return None if vote is None else (vote.action, vote.targets)


def successor(night: Night) -> tuple[Night, Sequence[str]]:
    """E5 (§16.1): the Son of the Boss names (or renames) his successor."""
    for player in night.state.living:
        vote = night.state.vote_of(player.name, "successor")
        if player.negative != "son_of_boss" or vote is None or not vote.targets:
            continue
        move = Move(player.name, "son_of_boss", "successor", vote.targets, 5, negative=True)
        if night.evening(move):
            night.state = replace(night.state, successor=vote.targets[0])
            return night, [f"{player.name} names {vote.targets[0]} his successor"]
    return night, []


def favourite(night: Night) -> tuple[Night, Sequence[str]]:
    """E6 (§15.17): the Fanatic names his favourite on night 1 (a missing one is drawn at R)."""
    holder = night.state.holder("fanatic")
    vote = night.state.vote_of(holder.name, "favourite") if holder else None
    if holder is None or vote is None or not vote.targets:
        return night, []
    if not night.evening(Move(holder.name, "fanatic", "favourite", vote.targets, slot=6)):
        return night, [f"{holder.name}'s favourite is stopped"]
    memory = replace(night.state.memory_of("fanatic"), favourite=vote.targets[0])
    night.state = replace(night.state, memory={**night.state.memory, "fanatic": memory})
    return night, [f"{holder.name}'s favourite is {vote.targets[0]}"]


def hacker(night: Night) -> tuple[Night, Sequence[str]]:
    """E2 (§15.5): the hack blocks the target's roles from tonight for one day-cycle (§8.5);
    a red Hacker blocks a black's peaceful role for a second one."""
    holder = night.state.holder("hacker")
    vote = _vote(night.state, holder.name, "hack") if holder else None
    if holder is None or vote is None or not vote[1]:
        return night, []
    move = Move(holder.name, "hacker", "hack", vote[1], slot=2)
    if not night.evening(move):
        return night, [f"{holder.name}'s hack is stopped"]
    night.hack = move
    target = night.state.get(move.target)
    ends = night.number + 1
    blocks = [RoleBlock(target.name, False, ends)]
    if target.is_black:
        blocks.append(RoleBlock(target.name, True, ends))
        if not holder.is_black:
            blocks[0] = RoleBlock(target.name, False, ends + 1)
    night.state = replace(night.state, blocks=(*night.state.blocks, *blocks))
    return night, [f"{holder.name} hacks {target.name} until night {max(b.ends for b in blocks)}"]


def evening(night: Night) -> tuple[Night, Sequence[str]]:
    """E10 rumours (§7.1.1); E11 verifications and requests are read again at R."""
    lines = []
    for vote in night.state.votes:
        player = night.state.get(vote.player)
        if vote.action == "rumour" and vote.targets and player.side is not None:
            move = Move(player.name, player.negative or "", "rumour", vote.targets, 10, True)
            if not night.evening(move):
                lines.append(f"{player.name}'s rumour is stopped (role blocked)")
                continue
            night.rumours.setdefault(vote.targets[0], player.side.value)
            lines.append(f"{player.name} spreads a rumour on {vote.targets[0]}")
    return night, lines


def slash(night: Night) -> tuple[Night, Sequence[str]]:
    """N1 (§16.6): the Faceless slashes a victim (blocked until she recovers; a black victim's
    negative moves of tonight are stopped) and gives her a target; it cannot be stopped.  A blank
    only when the last day's vote ended in an empty revote; otherwise a blank or missing slash
    slashes himself, or a drawn victim when he is one already; a missing target is drawn."""
    state = night.state
    faceless = next((p for p in state.living if p.faceless), None)
    if faceless is None:
        return night, []
    vote = state.vote_of(faceless.name, "slash")
    posts = (state.mayor_in_office(), state.secretary_in_office())
    victims = [
        p.name for p in state.living if p.name not in (*posts, *state.slashed, *state.recovered)
    ]
    named = vote.targets if vote is not None else ()
    if vote is not None and not named and state.today.revote_empty:
        return night, [f"{faceless.name} slashes nobody"]
    if named and named[0] in victims:
        victim = named[0]
    elif faceless.name in victims:
        victim = faceless.name
    elif victims:
        victim = draw_from(state.seed, state.draws, victims)
        state = replace(state, draws=state.draws + 1)
    else:
        return night, ["nobody can be slashed"]
    pool = [
        p.name for p in state.living if p.name not in (faceless.name, victim, *state.slash_targets)
    ]
    if len(named) == 2 and named[1] in pool:
        target = named[1]
    elif pool:
        target = draw_from(state.seed, state.draws, pool)
        state = replace(state, draws=state.draws + 1)
    else:
        target = ""
    blocks = state.blocks
    if state.get(victim).is_black:
        blocks = (*blocks, RoleBlock(victim, True, night.number + 1))
    state = replace(
        state,
        slashed={**state.slashed, victim: target},
        slash_targets=(*state.slash_targets, *((target,) if target else ())),
        blocks=blocks,
    )
    night.state = state
    night.slash = (faceless.name, victim, target)
    if victim != faceless.name:
        night.visits.append(Move(faceless.name, "faceless", "slash", (victim,), slot=1))
    return night, [f"{faceless.name} slashes {victim} (target {target or 'none'})"]


def patronage(night: Night) -> tuple[Night, Sequence[str]]:
    """E12 (§15.1): the Politician as Mayor or Secretary takes a player under his patronage."""
    holder = night.state.holder("politician")
    vote = night.state.vote_of(holder.name, "patronage") if holder else None
    if holder is None or vote is None or not vote.targets:
        return night, []
    move = Move(holder.name, "politician", "patronage", vote.targets, slot=12)
    if not night.evening(move):
        return night, [f"{holder.name}'s patronage is stopped"]
    night.patron = move
    return night, [f"{holder.name} takes {move.target} under his patronage"]


def blocker(night: Night) -> tuple[Night, Sequence[str]]:
    """N2: the Blocker's arrest or protection; nothing before him can stop it (§7.5)."""
    holder = night.state.holder("blocker")
    vote = _vote(night.state, holder.name, "block") if holder else None
    if holder is None or vote is None or not vote[1]:
        return night, ["no block"]
    mode, (target,) = vote
    if not night.send(Move(holder.name, "blocker", mode, (target,), slot=2)):
        return night, [f"{holder.name}'s {mode} is stopped"]  # only a role block can (§7.5)
    night.block = (mode, target)
    immune = (status.acting_bum(night.state), status.active_kamikaze(night.state))
    if night.fails_at(target) or target in immune:
        return night, [f"{holder.name}'s {mode} fails on {target} (§15.8, §15.19)"]
    if mode == "arrest":
        night.arrested = target
    else:
        night.protected = target
    return night, [f"{holder.name} {mode}s {target}"]


def _with_client(night: Night, healed: tuple[str, ...]) -> tuple[str, ...]:
    """§15.4: a heal that reaches the Prostitute reaches her client alike."""
    taker, client = night.taker, night.client
    if taker is None or client is None or taker.owner not in healed or client in healed:
        return healed
    return (*healed, client)


def geisha(night: Night) -> tuple[Night, Sequence[str]]:
    """N3 (§16.5): the Geisha keeps a client company (fails on a protected player, a watching Bum,
    an active Kamikaze); the Blocker's arrest of her client has no effect (ruling 25)."""
    state = night.state
    for player in state.living:
        vote = state.vote_of(player.name, "company")
        if player.negative != "geisha" or vote is None or not vote.targets:
            continue
        move = Move(player.name, "geisha", "company", vote.targets, 3, True, stays_home=True)
        if not night.send(move):
            return night, [f"{player.name}'s company is stopped"]
        immune = (status.acting_bum(state), status.active_kamikaze(state), night.protected)
        clients = tuple(c for c in move.targets if c not in immune and not night.fails_at(c))
        if not clients:  # a double company fails only when it fails on both (ruling 79)
            night.failed.append(move)
            return night, [f"{player.name}'s company fails on {', '.join(move.targets)}"]
        night.geisha = move
        night.geisha_clients = clients
        if player.name in clients:  # §16.5: not on two nights in a row (rules.mafia.validate)
            memory = replace(state.memory_of("geisha"), self_company_night=night.number)
            night.state = replace(state, memory={**state.memory, "geisha": memory})
        if night.arrested in clients:
            night.arrested = None
        return night, [f"{player.name} keeps {', '.join(clients)} company"]
    return night, []


def prostitute(night: Night) -> tuple[Night, Sequence[str]]:
    """N4 (§15.4): the Prostitute takes a client (``safe``: with protection); the Blocker's move
    on her client has no effect (RULING 25)."""
    holder = night.state.holder("prostitute")
    vote = _vote(night.state, holder.name, "take") if holder else None
    if holder is None or vote is None or not vote[1]:
        return night, []
    move = Move(holder.name, "prostitute", vote[0], vote[1], slot=4)
    if not night.send(move):
        return night, [f"{holder.name}'s {vote[0]} is stopped"]
    client = move.target
    immune = (
        status.acting_bum(night.state),
        status.active_kamikaze(night.state),
        *night.geisha_clients,
    )
    if night.fails_at(client) or client in immune:
        night.failed.append(move)
        return night, [f"{holder.name}'s {vote[0]} fails on {client}"]
    night.taker = move
    night.client = client
    black_pair = holder.is_black and night.state.get(client).is_black
    night.client_safe = vote[0] == "safe" or black_pair
    if night.arrested == client:
        night.arrested = None
    if night.protected == client:
        night.protected = None
    return night, [f"{holder.name} takes {client}" + (" (safe)" if night.client_safe else "")]


EARLY_GROUPS = frozenset({"block", "take", "company", "hypnosis"})
"""Move groups whose slots come before or at N5: the Hypnotist cannot redirect them."""


def _is_late_move(vote: StoredVote, state: GameState) -> bool:
    """Whether ``vote`` is a night move with a slot after N5 (not an evening move)."""
    if vote.group in EARLY_GROUPS or not vote.targets:
        return False
    player = state.get(vote.player)
    roles = (player.peaceful, *((player.negative,) if player.negative else ()))
    specs = [spec for role in roles for spec in ACTIONS.get(role, ()) if spec.action == vote.action]
    return bool(specs) and not any(spec.evening for spec in specs)


def hypnotist(night: Night) -> tuple[Night, Sequence[str]]:
    """N5 (§15.18): every later move aimed at the Hypnotist goes to his subject (or, with `halt`,
    is not made); kill moves only on one night per game; a kill sent back onto its own shooter is
    void.  The moves are redirected by rewriting tonight's votes."""
    state = night.state
    holder = state.holder("hypnotist")
    vote = state.vote_of(holder.name, "hypnosis") if holder else None
    if holder is None or vote is None or (vote.action == "hypnotize" and not vote.targets):
        return night, []
    move = Move(holder.name, "hypnotist", vote.action, vote.targets, slot=5, stays_home=True)
    if not night.send(move):
        return night, [f"{holder.name}'s hypnosis is broken (stopped)"]
    subject = vote.targets[0] if vote.targets else None
    memory = state.memory_of("hypnotist")
    kills_ok = memory.hypnosis_kill_night in (0, night.number)
    votes, lines = [], []
    for cast in state.votes:
        aimed = _is_late_move(cast, state) and holder.name in cast.targets
        is_kill = cast.group in ("kill", "revenge", "cult", "act") and cast.action in (
            "kill",
            "insure",
        )
        if not aimed or cast.player == holder.name or (is_kill and not kills_ok):
            votes.append(cast)
            continue
        night.hypnotized[cast.player] = cast.action
        if is_kill:
            memory = replace(memory, hypnosis_kill_night=night.number)
        if subject is None or (is_kill and subject == cast.player):
            lines.append(f"{cast.player}'s {cast.action} on {holder.name} is not made")
            if cast.action == "kill" and cast.group == "kill":
                night.skipped_kills[cast.player] = cast.targets
            continue
        targets = tuple(subject if t == holder.name else t for t in cast.targets)
        if _breaks_no_repeat(state, cast, targets, night.number):
            lines.append(f"{cast.player}'s {cast.action} on {subject} fails (no repeat)")
            continue
        night.redirected[cast.player] = cast.targets
        votes.append(replace(cast, targets=targets))
        lines.append(f"{cast.player}'s {cast.action} goes on to {subject}")
    state = replace(state, votes=tuple(votes), memory={**state.memory, "hypnotist": memory})
    night.state = state
    night.hypnotist = holder.name
    night.hypnosis_subject = subject
    return night, lines or [f"{holder.name} hypnotizes ({subject or 'halt'})"]


def _breaks_no_repeat(
    state: GameState, cast: StoredVote, targets: tuple[str, ...], number: int
) -> bool:
    """§15.18: whether a move redirected onto ``targets`` breaks its role's no-repeat rule: the
    Doctor's heal of himself alone or double heal (§7.6), a red Bodyguard's guard (§15.3)."""
    player = state.get(cast.player)
    if cast.action == "heal" and player.peaceful == "doctor":
        last = state.memory_of("doctor")
        if last.last_heal and last.last_heal_night == number - 1:
            alone = targets == (player.name,) and last.last_heal == (player.name,)
            return alone or (len(targets) == 2 and len(last.last_heal) == 2)
    if cast.action == "guard" and player.peaceful == "bodyguard" and not player.is_black:
        last = state.memory_of("bodyguard")
        return last.last_guard == targets and last.last_guard_night == number - 1
    return False


def bodyguard(night: Night) -> tuple[Night, Sequence[str]]:
    """N6 (§15.3): the Bodyguard guards a player for the killers that come later."""
    holder = night.state.holder("bodyguard")
    vote = _vote(night.state, holder.name, "guard") if holder else None
    if holder is None or vote is None or not vote[1]:
        return night, []
    move = Move(holder.name, "bodyguard", "guard", vote[1], slot=6)
    if not night.send(move):
        return night, [f"{holder.name}'s guard is stopped"]
    if night.fails_at(move.target) or move.target == status.active_kamikaze(night.state):
        return night, [f"{holder.name}'s guard fails on {move.target}"]
    night.guard = move
    night.guard_black = holder.is_black
    night.guard_faceless = holder.faceless
    night.guard_allows = night.state.vote_of(holder.name, "allow") is not None
    return night, [f"{holder.name} guards {move.target}"]


def bum(night: Night) -> tuple[Night, Sequence[str]]:
    """N7 (§15.8): the Bum settles at the house he watches (chosen, or repeated), or drinks."""
    holder = night.state.holder("bum")
    if holder is None:
        return night, []
    target = status.bum_repeats(night.state)
    vote = _vote(night.state, holder.name, "watch")
    if target is None and vote is not None and vote[0] == "watch" and vote[1]:
        target = vote[1][0]
    if target is None:
        drunk = holder.name == status.drunk_bum(night.state)
        return night, [f"{holder.name} is drunk"] if drunk else []
    move = Move(holder.name, "bum", "watch", (target,), slot=7)
    if not night.send(move):
        return night, [f"{holder.name}'s watch is stopped"]
    night.watch = move
    return night, [f"{holder.name} watches {target}"]


def peaceful_kills(night: Night) -> tuple[Night, Sequence[str]]:
    """N9: the peaceful killers in order: the Fanatic's revenge (§15.17), the Cultist's devour
    (§15.21), the Investigator's shot (§7.10), the Inquisitor's burn (§15.10); a black's kill
    through his peaceful role is one of his side's (§7.4.9)."""
    lines = []
    killers = (
        ("fanatic", "revenge"),
        ("cultist", "cult"),
        ("investigator", "act"),
        ("inquisitor", "check"),
    )
    for shot, (role, group) in enumerate(killers):
        holder = night.state.holder(role)
        vote = _vote(night.state, holder.name, group) if holder else None
        if holder is None or vote is None or vote[0] != "kill" or not vote[1]:
            continue
        # §16: a Joker's, Poisoner's or Executor's peaceful kill is no shot of his side (it costs
        # him his next night's kill instead, rules.mafia.night_optional: poison_state).
        side = None if holder.negative in status.OWN_KILL_WOLVES else holder.side
        move = Move(
            holder.name,
            role,
            "kill",
            vote[1],
            slot=9,
            kill=True,
            side=side.value if side else None,
            shot=PEACEFUL_SHOT - shot if side else None,
        )
        if role == "inquisitor":
            night.checks[role] = move  # the burn replaces the night's check
        if not night.send(move):
            lines.append(f"{holder.name}'s {role} kill is stopped")
            continue
        night.strike(move)
        lines.append(f"{holder.name} ({role}) kills {move.target}")
    return night, lines


def suicides(night: Night) -> tuple[Night, Sequence[str]]:
    """N10: blacks' suicides, with a partner's approval; they cannot be stopped (§7.4.10).  An
    active black or Faceless Kamikaze's `suicide X` takes X with him at R (§15.19, §16.6)."""
    state, lines = night.state, []
    for player in state.living:
        vote = state.vote_of(player.name, "suicide")
        if vote is None or (player.negative is None and not player.faceless):
            continue
        partners = [n for n in state.partners(player.name) if state.get(n).alive]
        if partners and not any(kills.approves(state, n) for n in partners):
            lines.append(f"{player.name}'s suicide lacks a partner's approval")
            continue
        if vote.targets and player.name == status.active_kamikaze(state):
            night.kamikaze_suicide = Move(player.name, "kamikaze", "suicide", vote.targets, 10)
            lines.append(f"{player.name} (kamikaze) commits suicide on {vote.targets[0]}")
            continue
        if player.negative is None and status.faceless_has_kill(state, player):
            move = Move(player.name, player.peaceful, "suicide", (player.name,), 10, kill=True)
            night.strike(move)  # §16.6: a Faceless peaceful killer leaves with a draw
            lines.append(f"{player.name} (faceless) commits suicide")
            continue
        if player.negative is None:
            continue  # a Faceless has no suicide of his own but these (§16.6)
        move = Move(player.name, player.negative, "suicide", (player.name,), 10, True, True)
        night.strike(move)
        lines.append(f"{player.name} commits suicide")
    return night, lines


def doctor(night: Night) -> tuple[Night, Sequence[str]]:
    """N11: the Doctor's heal; an attacked Doctor may still heal himself alone (§7.6)."""
    holder = night.state.holder("doctor")
    vote = _vote(night.state, holder.name, "heal") if holder else None
    if holder is None or vote is None or not vote[1]:
        return night, []
    move = Move(holder.name, "doctor", "heal", vote[1], slot=11)
    night.heal = move
    if not night.send(move, exempt=vote[1] == (holder.name,)):
        return night, [f"{holder.name}'s heal is stopped"]
    night.healed = _with_client(night, tuple(n for n in vote[1] if not night.fails_at(n)))
    night.doctor_healed = night.healed
    return night, [f"{holder.name} heals {', '.join(night.healed) or 'nobody'}"]


def cult_heal(night: Night) -> tuple[Night, Sequence[str]]:
    """N11, after the Doctor (§15.21): the Cultist heals one player for souls: 1 for another, 2
    for himself (3 two nights running), one less when the heal is not needed."""
    holder = night.state.holder("cultist")
    vote = _vote(night.state, holder.name, "cult") if holder else None
    if holder is None or vote is None or vote[0] != "heal" or not vote[1]:
        return night, []
    target = vote[1][0]
    move = Move(holder.name, "cultist", "heal", vote[1], slot=11)
    night.checks["cult_heal"] = move
    if not night.send(move, exempt=target == holder.name) or night.fails_at(target):
        return night, [f"{holder.name}'s heal is stopped or fails"]
    memory = night.state.memory_of("cultist")
    cost = 1
    if target == holder.name:
        cost = 3 if memory.self_heal_night == night.number - 1 else 2
    needed = target not in night.healed and any(m.target == target for m in night.attacks)
    cost -= 0 if needed else 1
    if memory.souls < cost:
        night.stopped.append((move, Stop.ROLE_BLOCKED))  # told like a stopped move
        return night, [f"{holder.name} has {memory.souls} soul(s), the heal costs {cost}"]
    night.healed = _with_client(night, (*night.healed, target))
    memory = replace(memory, souls=memory.souls - cost)
    if target == holder.name:
        memory = replace(memory, self_heal_night=night.number)
    night.state = replace(night.state, memory={**night.state.memory, "cultist": memory})
    return night, [f"{holder.name} heals {target} for {cost} soul(s)"]


def souls(night: Night) -> tuple[Night, Sequence[str]]:
    """E7 (§15.21): the Cultist names his three soul targets (the Hacker cannot stop it)."""
    holder = night.state.holder("cultist")
    vote = night.state.vote_of(holder.name, "souls") if holder else None
    if holder is None or vote is None or len(vote.targets) != 3:
        return night, []
    memory = replace(night.state.memory_of("cultist"), soul_targets=vote.targets)
    night.state = replace(night.state, memory={**night.state.memory, "cultist": memory})
    return night, [f"{holder.name}'s souls: {', '.join(vote.targets)}"]


def madman(night: Night) -> tuple[Night, Sequence[str]]:
    """N13 (§15.20): on night 3 the Madman's fire burns unless stopped, with or without a vote;
    after a stopped night-3 move he may retry with `fire` on a later night.  Each named player is
    attacked (the Blocker's protection does not repel it)."""
    state = night.state
    holder = state.holder("madman")
    if holder is None or not status.madman_may_fire(state):
        return night, []
    vote = state.vote_of(holder.name, "fire")
    if vote is None and night.number != 3:
        return night, []
    targets = vote.targets if vote is not None else ()
    move = Move(holder.name, "madman", "fire", targets, slot=13, kill=bool(targets))
    if not night.send(move):
        return night, [f"{holder.name}'s fire is stopped: he may try again"]
    night.fire = move
    memory = replace(state.memory_of("madman"), madman_done=True)
    night.state = replace(state, memory={**state.memory, "madman": memory})
    lines = [f"{holder.name}'s fire burns" + (f" on {', '.join(targets)}" if targets else "")]
    if holder.faceless:  # §15.20, §16.6: no victims; with his suicide the fire stops every move
        night.fire_all = state.vote_of(holder.name, "suicide") is not None
        if night.fire_all:
            lines.append(f"{holder.name} dies in his fire (suicide)")
        return night, lines
    if holder.is_black:
        targets = _black_fire(night, holder.name, targets, lines)
    for target in targets:
        night.strike(replace(move, targets=(target,)))
    return night, lines


def _black_fire(
    night: Night, madman: str, targets: tuple[str, ...], lines: list[str]
) -> tuple[str, ...]:
    """§15.20, black holder: a third name spends an owed shot of his side (none owed: it is
    dropped); two non-blacks spend an owed shot of the side that has tonight's night (none: one
    of them, drawn with the seed, is spared); a black named survives crippled, two blacks give
    their side an owed shot.  Returns the players the fire attacks."""
    state = night.state
    own = state.get(madman).side
    if len(targets) == 3 and (own is None or state.ledger.owed.get(own.value, 0) <= 0):
        lines.append(f"{madman}'s third name is dropped: his side owes no shot")
        targets = targets[:2]
    elif len(targets) == 3 and own is not None:
        night.void_shots[own.value] = night.void_shots.get(own.value, 0) + 1
    blacks = [t for t in targets if state.get(t).is_black]
    others = tuple(t for t in targets if t not in blacks)
    night.cripples.extend((t, "madman") for t in blacks)
    if len(blacks) >= 2:
        sides = {state.get(t).side for t in blacks}
        side = sides.pop() if len(sides) == 1 else own
        if side is not None:
            night.gained_shots[side.value] = night.gained_shots.get(side.value, 0) + 1
    if len(others) >= 2:
        nights = [s for s in ledger.kill_order(state, night.number) if ledger.shots(state, s) > 0]
        if nights:
            side = nights[0]
            night.void_shots[side.value] = night.void_shots.get(side.value, 0) + 1
        else:
            spared = draw_from(state.seed, state.draws, others)
            night.state = replace(state, draws=state.draws + 1)
            others = tuple(t for t in others if t != spared)
            lines.append(f"{spared} is spared: no side has a shot tonight")
    return others


def captive_decision(night: Night) -> tuple[Night, Sequence[str]]:
    """E3 (§16.4): the Executor releases his captive of last night (the default) or tortures him
    (crippled at R; his negative moves of tonight are stopped, unless he tortures himself)."""
    state = night.state
    captive = state.captive
    if captive is None or captive.night != night.number - 1:
        return night, []
    vote = state.vote_of(captive.executor, "captive")
    torture = vote is not None and vote.action == "torture"
    move = Move(captive.executor, "executor", "torture", captive.targets, 3, negative=True)
    names = ", ".join(captive.targets)
    if torture and night.evening(move):
        night.decision = "torture"
        blocks = state.blocks
        for target in captive.targets:
            night.cripples.append((target, "executor"))
            if target != captive.executor:
                blocks = (*blocks, RoleBlock(target, True, night.number + 1))
        night.state = replace(state, blocks=blocks)
        return night, [f"{captive.executor} tortures {names}"]
    night.decision = "release"
    return night, [f"{captive.executor} releases {names}"]


def capture(night: Night) -> tuple[Night, Sequence[str]]:
    """N19 (§16.4): at the end of the night the Executor captures a player (himself allowed)."""
    for player in night.state.living:
        vote = night.state.vote_of(player.name, "capture")
        if player.negative != "executor" or vote is None or not vote.targets:
            continue
        if status.kills_instead(night.state, player):
            return night, [f"{player.name} kills instead of his capture"]
        move = Move(player.name, "executor", "capture", vote.targets, 19, True, stays_home=True)
        if not night.send(move):
            return night, [f"{player.name}'s capture is stopped"]
        night.capture = move
        return night, [f"{player.name} captures {', '.join(move.targets)}"]
    return night, []


def antidote(night: Night) -> tuple[Night, Sequence[str]]:
    """E4 (§16.3): the Poisoner's evening antidote saves his victim of last night."""
    state = night.state
    for player in state.living:
        vote = state.vote_of(player.name, "antidote")
        if player.negative != "poisoner" or vote is None or not state.poisoned:
            continue
        if night.evening(Move(player.name, "poisoner", "antidote", (), slot=4, negative=True)):
            night.state = replace(state, poisoned={})
            return night, [f"{player.name} gives the antidote"]
    return night, []


def poisoner(night: Night) -> tuple[Night, Sequence[str]]:
    """N12 (§16.3): last night's poison kills unless a heal reaches the victim tonight; then the
    Poisoner poisons a player (it fails on a healed, protected or taken player)."""
    state, lines = night.state, []
    for victim, number in state.poisoned.items():
        owner = next((p.name for p in state.players if p.negative == "poisoner"), victim)
        if number != night.number - 1 or not state.get(victim).alive:
            continue
        if victim in night.healed:
            night.cured.append(victim)
            lines.append(f"the heal cures {victim}'s poison")
            continue
        night.poison_deaths.append(Move(owner, "poison", "poison", (victim,), slot=12))
        lines.append(f"{victim} dies of poison")
    for player in state.living:
        vote = state.vote_of(player.name, "poison")
        if player.negative != "poisoner" or vote is None or not vote.targets:
            continue
        if status.kills_instead(state, player):
            lines.append(f"{player.name} kills instead of his poisoning")
            continue
        move = Move(player.name, "poisoner", "poison", vote.targets, 12, True, stays_home=True)
        if not night.send(move):
            lines.append(f"{player.name}'s poison is stopped")
            continue
        target = move.target
        if target in night.healed or target == night.protected or night.fails_at(target):
            night.failed.append(move)
            lines.append(f"{player.name}'s poison fails on {target}")
            continue
        night.poison = move
        lines.append(f"{player.name} poisons {target}")
    return night, lines


def joker(night: Night) -> tuple[Night, Sequence[str]]:
    """N15 (§16.2): the Joker's colour check (its result and flip are decided at R, when the
    night's deaths are known); a werewolf's special move is seen by no tracker or watcher."""
    for player in night.state.living:
        vote = night.state.vote_of(player.name, "joker")
        if player.negative != "joker" or vote is None or not vote.targets:
            continue
        if status.kills_instead(night.state, player):
            return night, [f"{player.name} kills instead of his check"]
        move = Move(player.name, "joker", "joker", vote.targets, 15, True, stays_home=True)
        night.joker = move
        return night, [
            f"{player.name} jokes {move.target}: " + ("sent" if night.send(move) else "stopped")
        ]
    return night, []


def drug_dealer(night: Night) -> tuple[Night, Sequence[str]]:
    """N14 (§15.15): single doses on one or two players, or a double or triple dose on one."""
    holder = night.state.holder("drug_dealer")
    vote = _vote(night.state, holder.name, "drug") if holder else None
    if holder is None or vote is None or not vote[1]:
        return night, []
    move = Move(holder.name, "drug_dealer", vote[0], vote[1], slot=14)
    night.checks["drug_dealer"] = move
    return night, [
        f"{holder.name} {vote[0]} {' '.join(vote[1])}: "
        + ("sent" if night.send(move) else "stopped")
    ]


def checkers(night: Night) -> tuple[Night, Sequence[str]]:
    """N16 the Commissar's check, N17 the Journalist's comparison (§15.7), N18 the Detective's
    tracking or role check (§7.8, §7.9)."""
    lines = []
    slots = (
        ("commissar", "check", 16),
        ("advocate", "check", 16),
        ("inquisitor", "check", 16),
        ("journalist", "compare", 17),
        ("detective", "track", 18),
    )
    for role, group, slot in slots:
        holder = night.state.holder(role)
        vote = _vote(night.state, holder.name, group) if holder else None
        if holder is None or vote is None or vote[0] not in ("check", "compare", "track", "role"):
            continue
        if not vote[1]:
            continue
        move = Move(holder.name, role, vote[0], vote[1], slot=slot)
        night.checks[role] = move
        happened = night.send(move)
        names = " ".join(vote[1])
        lines.append(f"{holder.name} {vote[0]} {names}: {'sent' if happened else 'stopped'}")
    return night, lines


def samples(night: Night) -> tuple[Night, Sequence[str]]:
    """N18 (§15.22): the Criminalist's samples, a night move that visits nobody."""
    holder = night.state.holder("criminalist")
    vote = _vote(night.state, holder.name, "samples") if holder else None
    if holder is None or vote is None or not vote[1]:
        return night, []
    move = Move(holder.name, "criminalist", "samples", vote[1], slot=18, stays_home=True)
    night.checks["criminalist"] = move
    return night, [
        f"{holder.name} samples {' '.join(vote[1])}: " + ("sent" if night.send(move) else "stopped")
    ]


def deaths(night: Night) -> tuple[Night, Sequence[str]]:
    """R: every attacked player dies unless healed; the first attack is credited (§7.7)."""
    lines = []
    for move in night.attacks:
        healable = move.role != "cultist"  # the Doctor cannot save the devour's victim (§15.21)
        if healable and move.target in night.healed and not night.is_unsavable(move.target):
            continue
        if move.target not in night.deaths:
            night.deaths[move.target] = move
            lines.append(f"{move.target} dies ({move.role} {move.owner})")
    for move in night.poison_deaths:  # poison is no attack (§16.3)
        night.deaths.setdefault(move.target, move)
    lines.extend(_madman_deaths(night))
    lines.extend(_kamikaze(night))
    lines.extend(_pain_resistance(night))
    lines.extend(_immortal_deaths(night))
    cultist = night.state.holder("cultist")
    if cultist is not None and cultist.name in night.deaths:
        memory = night.state.memory_of("cultist")
        if memory.cult_life:  # a devoured teammate's spare life (§15.21)
            del night.deaths[cultist.name]
            memory = replace(memory, cult_life=False)
            night.state = replace(night.state, memory={**night.state.memory, "cultist": memory})
            lines.append(f"{cultist.name}'s spare life saves him")
    return night, lines


def _madman_deaths(night: Night) -> list[str]:
    """§15.20: two victims of one team who would both die: one drawn with the seed dies, the
    other survives crippled; with a victim named, the Madman dies whatever protects him."""
    fire = night.fire
    if fire is not None and night.fire_all:  # the Faceless's lone suicide (§16.6: a draw)
        night.deaths.setdefault(
            fire.owner, Move(fire.owner, "madman", "suicide", (fire.owner,), 13)
        )
        return [f"{fire.owner} dies by his own fire"]
    if fire is None or not fire.targets:
        return []
    lines = []
    burned = [t for t in fire.targets if t in night.deaths and night.deaths[t].role == "madman"]
    state = night.state
    black = state.get(fire.owner).is_black  # the black holder takes both (§15.20)
    if len(burned) == 2 and state.get(burned[0]).team is state.get(burned[1]).team and not black:
        spared = draw_from(state.seed, state.draws, burned)
        night.state = replace(state, draws=state.draws + 1)
        del night.deaths[spared]
        night.cripples.append((spared, "madman"))
        lines.append(f"{spared} survives the fire crippled")
    if fire.owner not in night.deaths:
        night.deaths[fire.owner] = replace(fire, targets=(fire.owner,))
        lines.append(f"{fire.owner} dies in his fire")
    return lines


def _pain_resistance(night: Night) -> list[str]:
    """§16.4: the Executor survives one night attack by his own spare life."""
    lines = []
    for player in night.state.living:
        killed = night.deaths.get(player.name)
        if player.negative != "executor" or killed is None or killed.role == "poison":
            continue
        memory = night.state.memory_of("executor")
        if memory.life_spent or killed.action == "suicide":
            continue
        del night.deaths[player.name]
        memory = replace(memory, life_spent=True)
        night.state = replace(night.state, memory={**night.state.memory, "executor": memory})
        lines.append(f"{player.name} survives by his pain resistance")
    return lines


def _kamikaze(night: Night) -> list[str]:
    """§15.19: an attack that reaches an active Kamikaze kills him (no heal saves him) and his
    credited attacker (cause `kamikaze`, no heal saves him either); an attacker of his own team
    is crippled instead."""
    state = night.state
    name = status.active_kamikaze(state)
    if night.kamikaze_suicide is not None:
        return _kamikaze_suicide(night, night.kamikaze_suicide)
    lines = _kamikaze_victims(night, name)
    hits = [m for m in night.attacks if m.target == name and m.owner != name]
    if name is None or not hits:
        return lines
    first = hits[0]
    night.deaths.setdefault(name, first)
    attacker = state.get(first.owner)
    if attacker.team is state.get(name).team:
        night.cripples.append((attacker.name, "kamikaze"))
        return [*lines, f"{name} dies; his attacker {attacker.name} is crippled"]
    night.deaths.setdefault(attacker.name, Move(name, "kamikaze", "kamikaze", (attacker.name,), 19))
    if attacker.is_black:
        memory = replace(state.memory_of("kamikaze"), kamikaze_done=True)
        night.state = replace(state, memory={**state.memory, "kamikaze": memory})
    return [*lines, f"{name} takes {attacker.name} with him"]


def _kamikaze_victims(night: Night, name: str | None) -> list[str]:
    """§15.19: an active black Kamikaze's evening `victims`: the first red player in slot order
    who visits him tonight holding one of the named peaceful roles dies with him (cause
    `kamikaze`; he dies by his own suicide); no heal saves either."""
    state = night.state
    if name is None or not state.get(name).is_black:
        return []
    vote = state.vote_of(name, "victims")
    if vote is None or not vote.targets:
        return []
    for move in night.visits:
        visitor = state.get(move.owner)
        if (
            name in move.targets
            and move.owner != name
            and not move.negative
            and visitor.is_red
            and visitor.peaceful in vote.targets
            and move.role == visitor.peaceful
        ):
            retaliation = Move(name, "kamikaze", "kamikaze", (visitor.name,), 19)
            night.deaths.setdefault(visitor.name, retaliation)
            night.deaths.setdefault(name, Move(name, "kamikaze", "suicide", (name,), 10))
            return [f"{name} takes his visitor {visitor.name} ({visitor.peaceful}) with him"]
    return []


def _kamikaze_suicide(night: Night, move: Move) -> list[str]:
    """§15.19, §16.6: a black Kamikaze's `suicide X`: a red or Faceless X dies with him; a black
    X dies alone (the Kamikaze survives, his side gains an owed shot, his kill move tonight was
    void); a Faceless Kamikaze dies and X is crippled.  No heal or protection prevents it."""
    state = night.state
    owner, target = state.get(move.owner), state.get(move.target)
    own_death = Move(owner.name, owner.negative or "kamikaze", "suicide", (owner.name,), 10)
    if owner.faceless:
        night.deaths.setdefault(owner.name, own_death)
        night.cripples.append((target.name, "kamikaze"))
        return [f"{owner.name} dies; {target.name} is crippled"]
    night.deaths.setdefault(target.name, Move(owner.name, "kamikaze", "kamikaze", move.targets, 19))
    if not target.is_black:
        night.deaths.setdefault(owner.name, own_death)
        return [f"{owner.name} takes {target.name} with him"]
    side = owner.side
    if side is not None:
        night.gained_shots[side.value] = night.gained_shots.get(side.value, 0) + 1
    memory = replace(state.memory_of("kamikaze"), kamikaze_done=True)
    night.state = replace(state, memory={**state.memory, "kamikaze": memory})
    return [f"{target.name} dies alone; {owner.name} survives"]


def _immortal_deaths(night: Night) -> list[str]:
    """§15.2: the spare life takes the first deadly attack on the Immortal or his linked player
    (all of that night's); once it is spent, an attack's death of either kills the other."""
    state = night.state
    holder = state.holder("immortal")
    if holder is None or state.is_role_blocked(holder.name):
        return []
    memory = state.memory_of("immortal")
    linked = memory.linked if memory.linked and state.get(memory.linked).alive else None
    if linked == holder.name:  # an heir who was the linked player: the link is void
        linked = None
    pair = [holder.name, *([linked] if linked else [])]
    if linked:
        night.link_attacks = [n for n in pair if any(m.target == n for m in night.attacks)]
    hit = [name for name in pair if name in night.deaths]
    if not hit:
        return []
    if not memory.life_spent:
        for name in hit:
            del night.deaths[name]
        night.life_spent = True
        return [f"the Immortal's spare life saves {', '.join(hit)}"]
    if linked is None:
        return []
    lines = []
    for dead, other in ((holder.name, linked), (linked, holder.name)):
        if dead in night.deaths and other not in night.deaths:
            night.deaths[other] = Move(dead, "link", "link", (other,), slot=19)
            lines.append(f"{other} dies with {dead} (link)")
    return lines


def immortal_link(night: Night) -> tuple[Night, Sequence[str]]:
    """E1 (§15.2): the Immortal links himself to a player (once per game) or unlinks."""
    holder = night.state.holder("immortal")
    vote = night.state.vote_of(holder.name, "link") if holder else None
    if holder is None or vote is None:
        return night, []
    if not night.evening(Move(holder.name, "immortal", vote.action, vote.targets, slot=1)):
        return night, [f"{holder.name}'s {vote.action} is stopped"]
    memory = night.state.memory_of("immortal")
    if vote.action == "link" and vote.targets:
        memory = replace(memory, linked=vote.targets[0], link_used=True)
    elif vote.action == "unlink":
        memory = replace(memory, linked=None)
    night.state = replace(night.state, memory={**night.state.memory, "immortal": memory})
    return night, [f"{holder.name} {vote.action}s {' '.join(vote.targets)}".rstrip()]


def alibi(night: Night) -> tuple[Night, Sequence[str]]:
    """§15.3: when a black Bodyguard's ward was attacked, every reader of visits (trackers,
    watchers, the Commissar's "same target") sees the Bodyguard visit his alibi instead."""
    guard = night.guard
    alibi_ok = night.guard_black or night.guard_faceless
    if guard is None or not alibi_ok or guard.target not in night.attacked:
        return night, []
    vote = night.state.vote_of(guard.owner, "alibi")
    if vote is None or not vote.targets:
        return night, []
    night.visits[:] = [
        replace(move, targets=vote.targets) if move is guard else move for move in night.visits
    ]
    return night, [f"{guard.owner} is seen at {vote.targets[0]} (alibi)"]


STAGES: tuple[Stage[Night], ...] = (
    Stage("E1 immortal", immortal_link),
    Stage("E2 hacker", hacker),
    Stage("E3 captive", captive_decision),
    Stage("E4 antidote", antidote),
    Stage("E5 successor", successor),
    Stage("E6 favourite", favourite),
    Stage("E7 souls", souls),
    Stage("E10-E11 evening", evening),
    Stage("E12 patronage", patronage),
    Stage("N1 slash", slash),
    Stage("N2 blocker", blocker),
    Stage("N3 geisha", geisha),
    Stage("N4 prostitute", prostitute),
    Stage("N5 hypnotist", hypnotist),
    Stage("N6 bodyguard", bodyguard),
    Stage("N7 bum", bum),
    Stage("N8 negative kills", kills.negative_kills),
    Stage("N9 peaceful kills", peaceful_kills),
    Stage("N10 suicides", suicides),
    Stage("N11 doctor", doctor),
    Stage("N11 cultist heal", cult_heal),
    Stage("N12 poisoner", poisoner),
    Stage("N13 madman", madman),
    Stage("N14 drug dealer", drug_dealer),
    Stage("N15 joker", joker),
    Stage("N16-N18 checks", checkers),
    Stage("N18 samples", samples),
    Stage("N19 capture", capture),
    Stage("R deaths", deaths),
    Stage("R alibi", alibi),
)
