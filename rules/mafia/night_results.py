"""Slot R of the night (§7.4.9, §7.7, §7.11): deaths, the ledger, public and private results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.core.events import Event
from rules.core.view import JsonValue
from rules.mafia import deaths as death_rules
from rules.mafia import night_optional, status
from rules.mafia.events import (
    Attacked,
    Blackened,
    Block,
    Blocked,
    Check,
    Heal,
    InvestigatorCopy,
    KillConfirmed,
    PublicResult,
    RoleRequest,
    RoleSeen,
    SideInfo,
    Track,
    Verified,
    VictimTeam,
)
from rules.mafia.ids import WEREWOLVES, Colour, Stop
from rules.mafia.moves import Move, Night
from rules.mafia.results import (
    Results,
    cause_of,
    check_colour,
    is_colourless,
    killing_role,
    true_colour,
)
from rules.mafia.state import Confirm, GameState, Player


def _ledger(night: Night, trace: list[str]) -> GameState:
    state = night.state
    realised: dict[str, set[int]] = {}
    for victim, move in night.deaths.items():
        if move.side is not None and move.shot is not None and state.get(victim).is_red:
            realised.setdefault(move.side, set()).add(move.shot)
    owed = dict(state.ledger.owed)
    for side in owed:
        spent = len(realised.get(side, ())) + night.void_shots.get(side, 0)
        owed[side] += night.gained_shots.get(side, 0) - spent  # §15.19: a black's suicide X
        if spent:
            trace.append(f"ledger: {side} realises {spent} shot(s), owes {owed[side]}")
    black_killed = state.ledger.black_killed or any(
        state.get(victim).is_black and move.negative and move.action != "suicide"
        for victim, move in night.deaths.items()
    )
    return replace(state, ledger=replace(state.ledger, owed=owed, black_killed=black_killed))


def _crippled_dead(state: GameState, night: Night, dead: Sequence[str]) -> GameState:
    """§8.3: a player crippled by a move of tonight (the Executor's torture in the evening, the
    Madman's fire, the Kamikaze's retaliation) who also dies tonight died crippled: his role is
    not inherited (seed; ruling 86).  The dead are told nothing."""
    tonight = {name for name, _ in night_optional.cripples(night)} & set(dead)
    if not tonight:
        return state
    players = tuple(replace(p, crippled=True) if p.name in tonight else p for p in state.players)
    return replace(state, players=players)


def _vigilante(night: Night, state: GameState) -> GameState:
    for victim, move in night.deaths.items():
        if move.role != "investigator":
            continue
        shooter_black = night.state.get(move.owner).is_black
        if night.state.get(victim).is_black != shooter_black:
            memory = replace(state.memory_of("investigator"), vigilante_done=True)
            state = replace(state, memory={**state.memory, "investigator": memory})
    return state


def finish_night(night: Night) -> tuple[GameState, tuple[Event, ...], tuple[str, ...]]:
    """Apply the night's deaths and consequences; return the state, events and trace (§7.7)."""
    trace: list[str] = []
    start = night.state
    state = _ledger(night, trace)
    dead = [p.name for p in start.players if p.name in night.deaths]
    state, death_events = death_rules.kill(
        state, [(name, cause_of(night.deaths[name])) for name in dead], at_night=True
    )
    state = _vigilante(night, state)
    state = _faceless_own_kill(night, start, state)
    state, post_events = death_rules.after_deaths(state, dead)
    state, crippled = death_rules.cripple(state, night_optional.cripples(night))
    state = _crippled_dead(state, night, dead)
    publics = [*night_optional.slash_public(night), *_public_results(night)]
    results = Results(memory={role: state.memory_of(role) for role in start.peaceful_roles})
    results.events.extend(crippled)
    night_optional.prostitute_results(night, results)
    night_optional.slash_results(night, results)
    night_optional.joker_results(night, results)
    night_optional.hack_results(night, results)
    night_optional.guard_results(night, results)
    night_optional.immortal_results(night, results)
    state = night_optional.fanatic_results(night, state, results)
    night_optional.bum_results(night, results)
    night_optional.cult_results(night, results)
    _blocker_results(night, results)
    _attacks(night, results)
    _heal(night, results)
    _commissar(night, results)
    _advocate(night, results)
    _inquisitor(night, results)
    night_optional.journalist(night, results)
    results.events.extend(
        KillConfirmed(c.player, c.target, c.night) for c in start.confirms if c.kind == "kill"
    )
    _detective(night, results)
    _investigator(night, results)
    night_optional.criminalist(night, results)
    hero = night.state.holder("hero")
    if hero is not None and not night.state.is_role_blocked(hero.name):
        night_optional.visitor_names(night, results, hero.name)
    night_optional.politician_results(night, results)
    night_optional.hypnotist_results(night, results)
    for role in ("priest",):
        holder = night.state.holder(role)
        if holder is not None:
            night_optional.visitor_roles(night, results, holder.name, self_movers=False)
    drugged = night_optional.drug_results(night, results)
    state = night_optional.executor_state(night, state, results)
    results.events.extend(results.copies)
    _stopped(night, results)
    state, heir_events = death_rules.inherit(
        replace(state, memory={**state.memory, **results.memory}), dead
    )
    morning = {p.name for p in state.living}
    private = [e for e in results.events if getattr(e, "player", None) in morning]
    killers = {
        **state.killers,
        **{name: (killing_role(move), move.owner) for name, move in night.deaths.items()},
    }
    state = night_optional.poison_state(night, state)
    state = replace(
        state,
        visits=_visit_log(night, state),
        confirms=tuple(results.confirms),
        killers=killers,
        drugged=drugged,
    )
    events = (*death_events, *post_events, *publics, *private, *heir_events)
    return state, (*events, *_side_info(state, dead)), tuple(trace)


def _faceless_own_kill(night: Night, start: GameState, state: GameState) -> GameState:
    """§16.6 outcome 1: tonight's deaths reach T, and without the deaths his own peaceful role's
    kills caused tonight they would not: the T-th death came from his kill, he waits for one
    more."""
    faceless = next((p for p in start.living if p.faceless), None)
    if faceless is None or state.faceless_wait:
        return state
    own = sum(
        1
        for move in night.deaths.values()
        if move.owner == faceless.name
        and move.kill
        and not move.negative
        and move.role == faceless.peaceful
    )
    limit = status.FACELESS_DEATHS.get(state.format, 9)
    before, after = status.faceless_deaths(start), status.faceless_deaths(state)
    if own and before < limit <= after and after - own < limit:
        return replace(state, faceless_wait=True)
    return state


def _side_info(state: GameState, dead: list[str]) -> list[Event]:
    """§17: an elite player who sided by a player's name is told that player's team when that
    player dies at night (his side is then known)."""
    return [
        SideInfo(elite.name, chosen, state.get(chosen).team.value)
        for elite in state.players
        if elite.is_elite
        and elite.alive
        and (chosen := state.sides.get(elite.name)) is not None
        and chosen in dead
    ]


def _public_results(night: Night) -> list[Event]:
    """§7.11 point 3: one line per public role held at the start of the night."""
    events: list[Event] = []
    for role in ("commissar", "doctor", "blocker"):
        holder = night.state.holder(role)
        if holder is None:
            continue
        if role == "commissar":
            result = _commissar_result(night, holder)[0]
        elif role == "doctor":
            result = "hit" if _saved(night) else "miss"
        else:
            result = "hit" if _block_roles(night) is not None else "miss"
        events.append(PublicResult(role=role, result=result))
    return events


def _saved(night: Night) -> tuple[str, ...]:
    """The healed players who were attacked and live (a black Bodyguard's ward is not saved, nor
    a Kamikaze whom no heal saves, §15.19), and the poisoned players the Doctor's heal cured: they
    too would have died tonight without it (§7.6, §16.3; ruling 84)."""
    kamikaze = night.state.holder("kamikaze")
    return tuple(
        name
        for name in night.healed
        if (
            not night.is_unsavable(name)
            and any(m.target == name for m in night.attacks)
            and not (kamikaze is not None and name == kamikaze.name and name in night.deaths)
        )
        or (name in night.cured and name in night.doctor_healed and name not in night.deaths)
    )


def _block_roles(night: Night) -> tuple[str, ...] | None:
    """The roles the Blocker stopped or repelled on a hit, None on a miss (§7.5)."""
    target = night.arrested or night.protected
    if target is None:
        return None
    if night.arrested:
        # A werewolf's special move is stopped but reported as a miss (§16).
        roles = [
            m.role
            for m, r in night.stops_of(target)
            if r is Stop.ARREST and not (m.role in WEREWOLVES and not m.kill)
        ]
    else:
        roles = [m.role for m in night.repelled] + [
            m.role for m, r in night.stops_of(target) if r is Stop.HOME
        ]
    return tuple(dict.fromkeys(roles)) if roles else None


def _blocker_results(night: Night, results: Results) -> None:
    holder = night.state.holder("blocker")
    if holder is None or night.block is None:
        return
    roles = _block_roles(night)
    mode, target = night.block
    event = Block(holder.name, mode, target, "hit" if roles else "miss", roles or ())
    results.events.append(event)
    results.remember("blocker", event)


def _stopped(night: Night, results: Results) -> None:
    seen: set[tuple[str, str]] = set()
    for move in (*(m for m, _ in night.stopped), *night.failed):
        if (move.owner, move.role) not in seen:
            seen.add((move.owner, move.role))
            results.events.append(Blocked(player=move.owner, role=move.role))


def _attacks(night: Night, results: Results) -> None:
    """``attacked`` for survivors of an attack or attempt; ``victim_team`` for killers."""
    state = night.state
    targets = [m.target for m in (*night.attacks, *night.repelled) if m.action != "suicide"]
    for player in state.players:
        if player.name in targets and player.name not in night.deaths:
            results.events.append(Attacked(player=player.name))
    told: set[tuple[str, str]] = set()
    for move in night.attacks:
        if move.action == "suicide" or move.target not in night.deaths:
            continue
        if (move.owner, move.target) in told:
            continue
        told.add((move.owner, move.target))
        partners = tuple(
            n for n in state.partners(move.owner) if state.get(n).alive and n not in night.deaths
        )
        team = state.get(move.target).team.value
        results.events.append(VictimTeam(move.owner, move.target, team, partners))


def _heal(night: Night, results: Results) -> None:
    move = night.heal
    if move is None:
        return
    saved = _saved(night)
    targets = move.targets
    sent = night.redirected.get(move.owner)
    if sent is not None:  # §15.18: through a redirection he is given the Hypnotist's name
        hypnotist = night.hypnotist or ""
        targets = sent
        saved = tuple(hypnotist if s not in sent else s for s in saved)
    event = Heal(move.owner, targets, "hit" if saved else "miss", saved)
    results.events.append(event)
    if night.healed and sent is None:  # a redirected heal does not count for his no-repeat
        results.remember("doctor", event, last_heal=move.targets, last_heal_night=night.number)
    else:
        results.remember("doctor", event)


CHECKERS = ("commissar", "advocate", "inquisitor")
"""The roles whose N16 checks make each other's `not_provided` (§7.8, §15.9)."""


def _commissar_result(
    night: Night, holder: Player, role: str = "commissar"
) -> tuple[str, Colour | None]:
    """§7.8 (§15.9 the same for the Advocate): ``failed``, ``not_provided`` or ``passed``."""
    move = night.checks.get(role)
    corpse = move is not None and (move.target in night.deaths or night.fails_at(move.target))
    if move is None or night.is_stopped(move) or corpse:
        return "failed", None
    if is_colourless(night, move.target):
        return "not_provided", None
    others = {"doctor", "blocker", "bodyguard"} | {r for r in CHECKERS if r != role}
    visits = [m for m in night.visits if move.target in m.targets]
    cult_heal = any(m.role == "cultist" and m.action == "heal" for m in visits)  # §15.21
    if {m.role for m in visits if m.action != "compare"} & others or cult_heal:
        return "not_provided", None
    return "passed", check_colour(night, holder.name, move.target)


def _verify(night: Night, role: str, results: Results) -> None:
    holder = night.state.holder(role)
    group = "act" if role == "investigator" else "check"
    vote = night.state.vote_of(holder.name, group) if holder else None
    if holder is None or vote is None or vote.action != "verify" or not vote.targets:
        return
    if not night.evening(Move(holder.name, role, "verify", vote.targets, slot=11)):
        return
    colour = true_colour(night.state, holder.name, vote.targets[0])
    event = Verified(holder.name, vote.targets[0], colour.value)
    results.events.append(event)
    results.remember(role, event)


def _commissar(night: Night, results: Results) -> None:
    holder = night.state.holder("commissar")
    if holder is None:
        return
    _verify(night, "commissar", results)
    move = night.checks.get("commissar")
    if move is None:
        return
    result, colour = _commissar_result(night, holder)
    false_black = shown = None
    if holder.is_black:
        false_black = result == "passed" and colour is Colour.BLACK
        false_black = false_black and not night.state.get(move.target).is_black
        shown = _faked_colour(night.state, holder.name, result, colour)
    event = Check(
        holder.name,
        "commissar",
        move.target,
        result,
        colour.value if colour else None,
        false_black,
        shown,
    )
    results.events.append(event)
    passed = results.memory["commissar"].passed
    if result == "passed" and move.target not in passed:
        passed = (*passed, move.target)
    results.remember("commissar", event, passed=passed)
    copy_colour = shown if shown is not None else event.colour
    results.copies.append(
        InvestigatorCopy("", "commissar", move.target, result, copy_colour, None, None, None)
    )


def _advocate(night: Night, results: Results) -> None:
    """§15.9: the Advocate's check, every result private; a black holder learns false blacks."""
    holder = night.state.holder("advocate")
    if holder is None:
        return
    _verify(night, "advocate", results)
    move = night.checks.get("advocate")
    if move is None:
        return
    result, colour = _commissar_result(night, holder, "advocate")
    false_black = None
    if holder.is_black:
        false_black = result == "passed" and colour is Colour.BLACK
        false_black = false_black and not night.state.get(move.target).is_black
    event = Check(
        holder.name,
        "advocate",
        move.target,
        result,
        colour.value if colour else None,
        false_black,
        None,
    )
    results.events.append(event)
    memory = results.memory["advocate"]
    passed, black = memory.passed, memory.passed_black
    if result == "passed" and move.target not in passed:
        passed = (*passed, move.target)
    if colour is Colour.BLACK and move.target not in black:
        black = (*black, move.target)
    results.remember("advocate", event, passed=passed, passed_black=black)


def _inquisitor(night: Night, results: Results) -> None:
    """§15.10: private checks (burns allowed by a black result the next night; a black holder
    also by a red or false black one, the night after), verifications, the burn's aftermath."""
    state = night.state
    holder = state.holder("inquisitor")
    if holder is None:
        return
    memory = results.memory["inquisitor"]
    vote = state.vote_of(holder.name, "check")
    if vote is not None and vote.action == "verify" and vote.targets:
        target = vote.targets[0]
        if night.evening(Move(holder.name, "inquisitor", "verify", vote.targets, slot=11)):
            truth = true_colour(state, holder.name, target)
            event: Event = Verified(holder.name, target, truth.value)
            results.events.append(event)
            blacks = memory.verified_black
            if truth is Colour.BLACK and target not in blacks:
                blacks = (*blacks, target)
            results.remember("inquisitor", event, verified_black=blacks)
        return
    move = night.checks.get("inquisitor")
    if move is None:
        return
    if move.action == "kill":
        killed = night.deaths.get(move.target)
        if killed is move and holder.is_black:
            black = state.get(move.target).is_black
            memory = replace(
                memory, reads_red=black, burned_true_black=memory.burned_true_black or black
            )
            results.memory["inquisitor"] = memory
        return
    result, colour = _commissar_result(night, holder, "inquisitor")
    truly_black = state.get(move.target).is_black
    false_black = None
    if holder.is_black:
        false_black = result == "passed" and colour is Colour.BLACK and not truly_black
    event = Check(
        holder.name,
        "inquisitor",
        move.target,
        result,
        colour.value if colour else None,
        false_black,
        None,
    )
    results.events.append(event)
    burns = dict(memory.burns)
    if result == "passed" and colour is Colour.BLACK and (truly_black or not holder.is_black):
        burns[move.target] = night.number + 1
    elif result == "passed" and holder.is_black:
        burns[move.target] = night.number + 2
    passed = (
        memory.passed
        if move.target in memory.passed or result != "passed"
        else (*memory.passed, move.target)
    )
    results.remember("inquisitor", event, burns=burns, passed=passed)


def _faked_colour(state: GameState, name: str, result: str, colour: Colour | None) -> str | None:
    vote = state.vote_of(name, "fake")
    if vote is None or result != "passed" or colour is None:
        return None
    if vote.action == "fake_red":
        return Colour.RED.value
    if vote.action == "fake_black":
        return Colour.BLACK.value
    return (Colour.RED if colour is Colour.BLACK else Colour.BLACK).value


def _detective(night: Night, results: Results) -> None:
    state = night.state
    holder = state.holder("detective")
    if holder is None:
        return
    if holder.name in night.rumours:
        results.events.append(Blackened(holder.name, night.rumours[holder.name]))
    vote = state.vote_of(holder.name, "track")
    if vote is not None and vote.action == "request" and vote.targets:
        event = _request(night, holder, vote.targets[0], with_visitors=True)
        results.events.append(event)
        results.remember("detective", event)
        results.copies.append(
            InvestigatorCopy(
                "", "detective", None, event.result, None, None, event.role, event.nights
            )
        )
    move = night.checks.get("detective")
    if move is None:
        return
    stopped = night.is_stopped(move) or night.fails_at(move.target)  # the drunk Bum (§15.8)
    if move.action == "role":
        target = state.get(move.target)
        role = "not_provided" if stopped else target.peaceful
        negative = target.negative if holder.is_black and not stopped else None
        seen = RoleSeen(holder.name, move.target, role, negative)
        results.events.append(seen)
        results.remember("detective", seen)
        results.copies.append(
            InvestigatorCopy("", "detective", move.target, role, None, None, role, None)
        )
        return
    _track(night, holder, move, stopped, results)


def _track(night: Night, holder: Player, move: Move, stopped: bool, results: Results) -> None:
    state, target = night.state, move.target
    team = None
    went_to: tuple[str, ...] = ()
    if stopped:
        result = "not_provided"
    elif target in night.deaths:
        result, team = "killed", state.get(target).team.value
    else:
        went_to = night.went_to(target)
        result = "went" if went_to else "home"
    blackened = None
    commissar = state.holder("commissar")
    checked = night.checks.get("commissar")
    passed = (
        commissar is not None
        and checked is not None
        and checked.target == target
        and _commissar_result(night, commissar)[0] == "passed"
    )
    if not stopped and target in night.rumours and not passed and target not in night.flipped:
        blackened = night.rumours[target]
        results.confirms.append(Confirm("blackened", "", target, night.number, blackened))
    if not stopped and target in night.went_out:
        results.confirms.append(Confirm("kill", holder.name, target, night.number))
    fake = _faked_track(night, holder, result) if holder.is_black else None
    shown: dict[str, JsonValue] | None = None
    if fake is not None:
        shown = {"result": fake[0], "went_to": list(fake[1])}
    visitors = () if stopped else night.visitors_of(holder.name)
    event = Track(holder.name, target, result, went_to, team, visitors, blackened, shown)
    results.events.append(event)
    results.remember("detective", event)
    copy_result, copy_went = fake if fake is not None else (result, went_to)
    results.copies.append(
        InvestigatorCopy("", "detective", target, copy_result, None, copy_went, None, None)
    )


def _faked_track(night: Night, holder: Player, result: str) -> tuple[str, tuple[str, ...]] | None:
    """A black Detective's substitution for the Investigator (§7.9): (result, went_to)."""
    vote = night.state.vote_of(holder.name, "fake")
    if vote is None or result not in ("home", "went"):
        return None
    move = night.checks["detective"]
    sent_any = any(m.owner == move.target for m in (*night.visits, *night.attacks))
    if vote.targets and not sent_any:
        return None
    return ("went", vote.targets) if vote.targets else ("home", ())


def _request(night: Night, holder: Player, role: str, *, with_visitors: bool) -> RoleRequest:
    state = night.state
    move = Move(holder.name, holder.peaceful, "request", (role,), slot=11)
    if role not in state.peaceful_roles or not night.evening(move):
        return RoleRequest(holder.name, role, "not_provided", {}, None)
    log = _visit_log(night, state).get(role, {})
    nights = {str(n): log.get(n, ()) for n in range(1, night.number + 1)}
    visitor_roles = None
    if with_visitors:
        visitor_roles = tuple(state.get(n).role for n in night.visitors_of(holder.name))
    return RoleRequest(holder.name, role, "provided", nights, visitor_roles)


def _investigator(night: Night, results: Results) -> None:
    state = night.state
    holder = state.holder("investigator")
    if holder is None:
        results.copies.clear()
        return
    _verify(night, "investigator", results)
    vote = state.vote_of(holder.name, "act")
    if vote is not None and vote.action == "request" and vote.targets:
        event = _request(night, holder, vote.targets[0], with_visitors=False)
        results.events.append(event)
        results.remember("investigator", event)
    late = [
        InvestigatorCopy("", "detective", c.target, "blackened", None, None, c.side, None)
        for c in state.confirms
        if c.kind == "blackened"
    ]
    copies = [replace(copy, player=holder.name) for copy in (*results.copies, *late)]
    results.copies[:] = copies
    passed = results.memory["investigator"].passed
    for copy in copies:
        results.remember("investigator", copy)
        if copy.source == "commissar" and copy.result == "passed" and copy.target not in passed:
            passed = (*passed, str(copy.target))
    results.memory["investigator"] = replace(results.memory["investigator"], passed=passed)


def _visit_log(night: Night, state: GameState) -> dict[str, dict[int, tuple[str, ...]]]:
    """role -> night -> players its holder visited (for role requests, §7.9)."""
    log = {role: dict(nights) for role, nights in state.visits.items()}
    for move in night.visits:
        role = night.state.get(move.owner).peaceful
        names = log.setdefault(role, {}).get(night.number, ())
        added = tuple(t for t in move.targets if t != move.owner and t not in names)
        log[role][night.number] = names + added
    return log
