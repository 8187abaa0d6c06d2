"""The morning results of the optional night roles (§15.2, §15.3, §15.5, §15.7, §15.15, §15.22)."""

from __future__ import annotations

from dataclasses import replace

from rules.core.events import Event
from rules.core.rng import draw_from
from rules.mafia import status
from rules.mafia.events import (
    Blocked,
    CaptiveDecision,
    Captured,
    ClientRole,
    Compare,
    Drugged,
    Favourite,
    FavouriteMoves,
    GuardReport,
    Hacked,
    HackResult,
    Heal,
    HypnosisResult,
    JokerCheck,
    JokerInfo,
    JokerLate,
    LifeSpent,
    LinkAttack,
    NightVisit,
    Patronage,
    Revenge,
    RumourSeen,
    Samples,
    Slash,
    Slashed,
    SlashResult,
    SlashTarget,
    VisitorNames,
    VisitorRoles,
    Watch,
)
from rules.mafia.ids import WEREWOLVES
from rules.mafia.moves import Move, Night
from rules.mafia.results import Results, cause_of, check_colour, is_colourless, true_colour
from rules.mafia.state import Captive, Confirm, GameState, RoleBlock


def immortal_results(night: Night, results: Results) -> None:
    """§15.2: the Immortal learns that his life is spent and which of the linked pair was hit."""
    holder = night.state.holder("immortal")
    if holder is None:
        return
    for target in night.link_attacks:
        event: Event = LinkAttack(holder.name, target)
        results.events.append(event)
        results.remember("immortal", event)
    if night.life_spent:
        event = LifeSpent(holder.name)
        results.events.append(event)
        results.remember("immortal", event, life_spent=True)


def guard_results(night: Night, results: Results) -> None:
    """§15.3: the Bodyguard's reports, and a red Bodyguard's no-repeat memory."""
    guard = night.guard
    if guard is None:
        return
    state, ward, keeper = night.state, guard.target, guard.owner
    if night.guard_faceless:  # §15.3: the killer's role, his original target, the ward's team
        killed = night.deaths.get(ward)
        if killed is not None and killed.action != "suicide":
            original = night.retargeted.get(killed.owner, ward)
            team = state.get(ward).team.value
            results.events.append(GuardReport(keeper, None, cause_of(killed), original, None, team))
        return
    if not night.guard_black:
        if keeper not in night.redirected:  # a redirected guard does not count (§15.18)
            memory = replace(results.memory["bodyguard"], last_guard=(ward,))
            results.memory["bodyguard"] = replace(memory, last_guard_night=night.number)
        killed = night.deaths.get(keeper)
        moved = [m for m, _ in night.moved]
        if killed is not None and any(killed is m for m in moved):
            results.events.append(GuardReport(ward, killed.owner, None, None))
        elif killed is not None:
            results.events.append(GuardReport(ward, None, cause_of(killed), None))
        else:
            originals = {id(m): original for m, original in night.moved}
            for attack in night.attacks:
                if attack.target == keeper:
                    original = originals.get(id(attack), keeper)
                    results.events.append(GuardReport(keeper, None, cause_of(attack), original))
        return
    killed = night.deaths.get(ward)
    if killed is not None and killed.action != "suicide":
        original = night.retargeted.get(killed.owner, ward)
        results.events.append(
            GuardReport(
                keeper,
                killed.owner,
                cause_of(killed),
                original,
                state.get(killed.owner).team.value,
                state.get(ward).team.value,
            )
        )


def hack_results(night: Night, results: Results) -> None:
    """§15.5: the hacked player is told; the Hacker learns his peaceful role."""
    move = night.hack
    if move is None:
        return
    results.events.append(Hacked(player=move.target))
    event = HackResult(move.owner, move.target, night.state.get(move.target).peaceful)
    results.events.append(event)
    results.remember("hacker", event)


def journalist(night: Night, results: Results) -> None:
    """§15.7: `same`/`different` by check colours, or `not_provided`; `verify`: true colours."""
    state = night.state
    holder = state.holder("journalist")
    if holder is None:
        return
    results.events.extend(
        RumourSeen(c.player, c.target, c.night) for c in state.confirms if c.kind == "rumour"
    )
    vote = state.vote_of(holder.name, "compare")
    memory = results.memory["journalist"]
    if vote is not None and vote.action == "verify" and memory.pair:
        if night.evening(Move(holder.name, "journalist", "verify", (), slot=11)):
            truth = {true_colour(state, holder.name, name) for name in memory.pair}
            result = "same" if len(truth) == 1 else "different"
            event = Compare(holder.name, memory.pair, result, True, None)
            results.events.append(event)
            results.remember("journalist", event)
        return
    move = night.checks.get("journalist")
    if move is None:
        return
    checked = {
        m.target
        for m in night.visits
        if m.role in ("commissar", "advocate", "inquisitor") and m.action == "check"
    }
    fail = any(
        t in night.deaths
        or t in checked
        or night.fails_at(t, "journalist")
        or is_colourless(night, t)
        for t in move.targets
    )
    if night.is_stopped(move) or fail:
        event = Compare(holder.name, move.targets, "not_provided", False, None)
        results.events.append(event)
        results.remember("journalist", event)
        return
    read = {name: check_colour(night, holder.name, name) for name in move.targets}
    result = "same" if len(set(read.values())) == 1 else "different"
    colours = {name: colour.value for name, colour in read.items()} if holder.is_black else None
    event = Compare(holder.name, move.targets, result, False, colours)
    results.events.append(event)
    results.remember("journalist", event, pair=move.targets, pair_night=night.number)
    if holder.is_black:
        for name in move.targets:
            if name in night.rumours and not state.get(name).is_black:
                results.confirms.append(Confirm("rumour", holder.name, name, night.number))


DOSES = {"drug": 1, "double": 2, "triple": 3}


def drug_results(night: Night, results: Results) -> dict[str, int]:
    """N14 (§15.15): the doses that took (not on a corpse), the bank, the drugged told."""
    move = night.checks.get("drug_dealer")
    if move is None or night.is_stopped(move):
        return {}
    dose = DOSES[move.action]
    drugged: dict[str, int] = {}
    for target in move.targets:
        if target in night.deaths or night.fails_at(target, "drug_dealer"):
            results.events.append(Blocked(move.owner, "drug_dealer"))
            continue
        drugged[target] = dose
        results.events.append(Drugged(target))
    gain = sum(1 for t in drugged if t != move.owner and dose < 3)
    memory = results.memory["drug_dealer"]
    results.memory["drug_dealer"] = replace(memory, bank=memory.bank + gain)
    return drugged


def criminalist(night: Night, results: Results) -> None:
    """N18 (§15.22): the samples against the day's corpse; the names of his visitors."""
    state = night.state
    holder = state.holder("criminalist")
    if holder is None:
        return
    move = night.checks.get("criminalist")
    memory = results.memory["criminalist"]
    if move is not None and not night.is_stopped(move) and memory.corpse is not None:
        killer = state.killers.get(memory.corpse, ("", ""))[1]
        found = killer if killer in move.targets else None
        event: Event = Samples(holder.name, memory.corpse, found)
        results.events.append(event)
        results.remember("criminalist", event)
    visitor_names(night, results, holder.name)


def visitor_names(night: Night, results: Results, name: str) -> None:
    """N18: the names of a player's night visitors (the Criminalist §15.22, the Hero §15.16)."""
    visitors = night.visitors_of(name)
    if visitors:
        results.events.append(VisitorNames(name, visitors))


def fanatic_results(night: Night, state: GameState, results: Results) -> GameState:
    """§15.17: the favourite (drawn with the seed among night 1's survivors when none was named),
    the favourite's moves, and the revenge's outcome.  Returns the state with its draw counter."""
    holder = night.state.holder("fanatic")
    if holder is None:
        return state
    memory = results.memory["fanatic"]
    named = night.state.memory_of("fanatic").favourite
    if night.number == 1 and state.get(holder.name).alive:
        if named is None:
            pool = [p.name for p in state.living if p.name != holder.name]
            if pool:
                named = draw_from(state.seed, state.draws, pool)
                state = replace(state, draws=state.draws + 1)
        if named is not None:
            event: Event = Favourite(holder.name, named, state.get(named).peaceful)
            results.events.append(event)
            results.remember("fanatic", event, favourite=named)
            memory = results.memory["fanatic"]
    favourite = memory.favourite
    if favourite is not None and night.state.get(favourite).alive:
        own = [m for m in night.visits if m.owner == favourite and not m.negative]
        went = tuple(dict.fromkeys(t for m in own for t in m.targets if t != favourite))
        results.events.append(FavouriteMoves(holder.name, favourite, went))
    revenge = [m for m in (*night.visits, *night.attacks) if m.owner == holder.name and m.kill]
    if not revenge:
        return state
    credited = [v for v, m in night.deaths.items() if m.role == "fanatic"]
    enemies = [v for v in credited if state.get(v).team is not holder.team]
    if enemies:
        result, memory = "avenged", replace(memory, avenged=True)
    elif credited:
        result, memory = "go_on", replace(memory, killed_mate=True)
    else:
        result = "again"
    results.memory["fanatic"] = memory
    results.events.append(Revenge(holder.name, result))
    return state


def bum_results(night: Night, results: Results) -> None:
    """§15.8: the watch result (not for a drunk Bum: he learns nothing); his drinking memory."""
    holder = night.state.holder("bum")
    if holder is None:
        return
    memory = results.memory["bum"]
    if holder.name == status.drunk_bum(night.state):
        results.memory["bum"] = replace(
            memory, drank_night=night.number, no_drink=memory.no_drink or night.shot_at_drunk
        )
        return
    move = night.watch
    if move is None:
        return
    target = move.target
    killers = {m.owner for m in night.attacks if m.target == target}
    survivors = {target, holder.name} - set(night.deaths)
    attacked_alive = any(m.target in survivors for m in night.attacks)
    credited = night.deaths.get(target)
    shown = []
    for visitor in night.visitors_of(target):
        if visitor in killers and (attacked_alive or (credited and visitor != credited.owner)):
            continue  # §15.8: killers left out, or only the credited one
        if visitor != holder.name:
            shown.append(visitor)
    left = any(m.owner == target for m in night.visits)
    event: Event = Watch(holder.name, target, tuple(shown), left, night.visitors_of(holder.name))
    results.events.append(event)
    chosen = status.bum_repeats(night.state) is None
    if chosen:
        results.remember("bum", event, watched=target, watched_night=night.number)
    else:
        results.remember("bum", event)


def cult_results(night: Night, results: Results) -> None:
    """§15.21: the Cultist's heal result; a successful devour ends his devouring, and a devoured
    teammate gives him a spare life."""
    holder = night.state.holder("cultist")
    if holder is None:
        return
    memory = results.memory["cultist"]
    heal = night.checks.get("cult_heal")
    if heal is not None and heal.target in night.healed and not night.is_stopped(heal):
        saved = tuple(
            t
            for t in heal.targets
            if any(m.target == t for m in night.attacks) and t not in night.deaths
        )
        event: Event = Heal(holder.name, heal.targets, "hit" if saved else "miss", saved)
        results.events.append(event)
        results.remember("cultist", event)
        memory = results.memory["cultist"]
    devoured = [v for v, m in night.deaths.items() if m.role == "cultist"]
    if devoured:
        mate = any(night.state.get(v).team is holder.team for v in devoured)
        memory = replace(memory, devoured=True, cult_life=memory.cult_life or mate)
    results.memory["cultist"] = memory


def visitor_roles(night: Night, results: Results, name: str, *, self_movers: bool = True) -> None:
    """N18: the roles (no names) of a player's night visitors and of the players who made a
    move on themselves (the Politician §15.1, the Priest §15.11, the Hypnotist §15.18)."""
    state = night.state
    if state.is_role_blocked(name):
        return
    movers = list(night.visitors_of(name))
    if self_movers:  # §15.1: the Politician also sees the players who moved on themselves
        movers += [n for n in night.self_movers() if n != name]
    roles = tuple(state.get(n).role for n in dict.fromkeys(movers))
    if roles:
        results.events.append(VisitorRoles(name, roles))


def politician_results(night: Night, results: Results) -> None:
    """§15.1: the Politician's visitor roles, and the roles of his patronage's visitors."""
    holder = night.state.holder("politician")
    if holder is None:
        return
    visitor_roles(night, results, holder.name)
    patron = night.patron
    if patron is not None:
        roles = tuple(night.state.get(n).role for n in night.visitors_of(patron.target))
        event: Event = Patronage(holder.name, patron.target, roles)
        results.events.append(event)
        results.remember("politician", event)


def prostitute_results(night: Night, results: Results) -> None:
    """§15.4, §16.5: the client is told of the visit; the Prostitute (the Geisha) learns his
    peaceful role."""
    geisha = night.geisha
    for company in night.geisha_clients:
        owner = geisha.owner if geisha is not None else ""
        if company != owner:
            results.events.append(NightVisit(company))
        results.events.append(ClientRole(owner, company, night.state.get(company).peaceful))
    taker = night.taker
    if taker is None or night.client is None:
        return
    results.events.append(NightVisit(night.client))
    event: Event = ClientRole(taker.owner, night.client, night.state.get(night.client).peaceful)
    results.events.append(event)
    results.remember("prostitute", event)


def cripples(night: Night) -> list[tuple[str, str]]:
    """The players crippled tonight (§8.4): the Madman's and the Kamikaze's (§15.19, §15.20),
    and a `safe` client of a Prostitute who died from an attack (§15.4)."""
    found = list(night.cripples)  # the Madman's spared victim, the Kamikaze's teammate
    taker, client = night.taker, night.client
    if taker is None or client is None or not night.client_safe:
        return found
    if taker.owner in night.deaths and client not in night.deaths:
        found.append((client, "prostitute"))
    return found


def hypnotist_results(night: Night, results: Results) -> None:
    """§15.18: the roles of the players whose moves he took, and a redirected killer's victim."""
    name = night.hypnotist
    if name is None:
        return
    roles = tuple(night.state.get(n).role for n in night.hypnotized)
    if roles:
        results.events.append(VisitorRoles(name, roles))
    for victim, move in night.deaths.items():
        if move.owner in night.hypnotized and move.kill:
            event: Event = HypnosisResult(name, victim)
            results.events.append(event)
            results.remember("hypnotist", event)


def joker_results(night: Night, results: Results) -> None:
    """§16.2: the Joker's check (failed on a stopped move, a player killed tonight, a client or a
    protected player); a passed check flips the target's colour for the later checks of the
    night, and the killing sides' living members learn it; a black read `red` is told one night
    later."""
    state = night.state
    results.events.extend(
        JokerLate(c.player, c.target, "black", state.get(c.target).negative)
        for c in state.confirms
        if c.kind == "joker"
    )
    move = night.joker
    if move is None or night.is_stopped(move):
        return
    target = state.get(move.target)
    if target.name in night.deaths or night.fails_at(target.name) or target.name == night.protected:
        night.failed.append(move)
        return
    colour = check_colour(night, move.owner, target.name)
    night.flipped.add(target.name)
    black = colour.value == "black"
    negative = target.negative if black and target.is_black else None
    event = JokerCheck(
        move.owner,
        target.name,
        colour.value,
        target.peaceful,
        negative,
        black and not target.is_black,
    )
    results.events.append(event)
    if not black and target.is_black and target.name != move.owner:
        results.confirms.append(Confirm("joker", move.owner, target.name, night.number))
    sides = [p for p in state.living if p.side is not None and p.name != move.owner]
    results.events.extend(JokerInfo(p.name, target.name, colour.value, negative) for p in sides)


def poison_state(night: Night, state: GameState) -> GameState:
    """§16.3: last night's poison is resolved (a death or a cure); tonight's victim is poisoned;
    werewolves with a credited kill read `black` from now on (§16)."""
    poisoned = {
        name: number
        for name, number in state.poisoned.items()
        if number == night.number and state.get(name).alive
    }
    if night.poison is not None and state.get(night.poison.target).alive:
        poisoned[night.poison.target] = night.number
    wolves = [
        move.owner
        for move in night.deaths.values()
        if state.get(move.owner).negative in WEREWOLVES
        and move.kill
        and move.action != "suicide"
        and not move.insurance
    ]
    wolf_kills = tuple(dict.fromkeys((*state.wolf_kills, *wolves)))
    memory = dict(state.memory)
    for move in night.deaths.values():  # §16: a kill through his peaceful role costs the next
        negative = state.get(move.owner).negative
        if negative in status.OWN_KILL_WOLVES and move.kill and not move.negative:
            lost = replace(state.memory_of(negative or ""), lost_kill_night=night.number + 1)
            memory[negative or ""] = lost
    return replace(state, poisoned=poisoned, wolf_kills=wolf_kills, memory=memory)


def executor_state(night: Night, state: GameState, results: Results) -> GameState:
    """§16.4: the captive learns the decision; a new capture blocks the captive's peaceful role
    until the night after next opens (he makes no move on the night of his release)."""
    captive = state.captive
    if captive is not None and night.decision is not None:
        for target in captive.targets:
            results.events.append(CaptiveDecision(target, night.decision))
    if captive is not None and captive.night < night.number:
        state = replace(state, captive=None)
    move = night.capture
    if move is None or not state.get(move.owner).alive:
        return state
    held = tuple(t for t in move.targets if state.get(t).alive)  # a dead name is dropped
    if not held:
        return state
    results.events.extend(Captured(target) for target in held)
    blocks = tuple(RoleBlock(target, False, night.number + 2) for target in held)
    return replace(
        state,
        captive=Captive(move.owner, held[0], night.number, others=held[1:]),
        blocks=(*state.blocks, *blocks),
    )


def slash_public(night: Night) -> list[Event]:
    """§16.6: the public `slash` line of the night's results (after the deaths)."""
    return [] if night.slash is None else [Slash(night.slash[1])]


def slash_results(night: Night, results: Results) -> None:
    """§16.6: the victim learns her target, the target that he is one, the Faceless the victim's
    peaceful role."""
    if night.slash is None:
        return
    faceless, victim, target = night.slash
    if target:
        results.events.append(Slashed(victim, target))
        results.events.append(SlashTarget(target))
    results.events.append(SlashResult(faceless, victim, night.state.get(victim).peaceful))
