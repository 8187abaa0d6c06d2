"""The day's vote steps (§6): election, runoff, secretary, pre-vote, lynch, hunt, revote."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from rules.core.events import Event
from rules.mafia import actions, day_roles, deaths, status, tally
from rules.mafia.events import (
    Destroyed,
    Detonator,
    ElectionTie,
    Forgiven,
    Inactive,
    Lynch,
    Mayor,
    NoMayor,
    Revote,
    Secretary,
    SecretaryLost,
    VoteStart,
)
from rules.mafia.ids import Cause, Close, Step
from rules.mafia.state import Ballot, Day, GameState, Pending, Player, RoleBlock

Outcome = tuple[GameState, tuple[Event, ...], tuple[str, ...], Close]
"""A resolved step: the new state, its events, its trace, and how it closed (the step table's
``then`` names the step played next)."""


def _cast(state: GameState) -> tuple[Ballot, ...]:
    return tuple(
        Ballot(v.player, v.targets) for v in state.votes if v.group == "vote" and v.targets
    )


def _seat_sorted(state: GameState, names: Sequence[str]) -> tuple[str, ...]:
    seat = {p.name: i for i, p in enumerate(state.players)}
    return tuple(sorted(names, key=seat.__getitem__))


def election(state: GameState) -> Outcome:
    """§6.1: the most votes makes the Mayor; nobody voted: no Mayor; a tie: a runoff."""
    ballots = _cast(state)
    totals = tally.count(state, (), auto_votes=False, plain=True).totals
    best = tally.top(totals)
    if not best:
        return state, (NoMayor(),), ("nobody received a vote",), Close.DONE
    if len(best) > 1:
        asked = tuple(n for n in actions.asked(state) if n not in best)
        today = Day(candidates=best, tied_asked=asked, election=ballots)
        event = ElectionTie(players=best)
        return replace(state, today=today), (event,), (f"tie between {best}",), Close.TIE
    return _elected(state, best[0], "election", ballots, ())


def runoff(state: GameState) -> Outcome:
    """§6.2: the most runoff votes; a tie: the earliest vote; none: the earliest election vote."""
    result = tally.count(state, (), auto_votes=False, plain=True)
    best = tally.top(result.totals)
    candidates = state.today.candidates
    if len(best) == 1:
        winner, why = best[0], "most runoff votes"
    elif best:
        winner = min(best, key=result.first_ballot)
        why = "earliest runoff vote among the tied"
    else:
        election_count = tally.Count(state.today.election, {}, ())
        winner = min(candidates, key=election_count.first_ballot)
        why = "no runoff vote: earliest election vote"
    rivals = tuple(
        b.voter for b in state.today.election if b.voter in candidates and b.targets == (winner,)
    )
    return _elected(state, winner, "runoff", result.ballots, rivals, why)


def _elected(
    state: GameState,
    mayor: str,
    via: str,
    deciding: Sequence[Ballot],
    rivals: Sequence[str],
    why: str = "most votes",
) -> Outcome:
    """The Mayor is in office; the Secretary is appointed or chosen (§6.3)."""
    state = replace(state, mayor=mayor)
    events: list[Event] = [Mayor(player=mayor, via=via)]
    eligible = [b.voter for b in deciding if b.targets == (mayor,) and state.get(b.voter).alive]
    eligible += [r for r in rivals if r not in eligible and r != mayor]
    trace = (f"{mayor} is Mayor ({why}); eligible secretaries {eligible}",)
    if len(eligible) >= 2:
        today = replace(state.today, candidates=tuple(eligible))
        return replace(state, today=today), tuple(events), trace, Close.CHOOSE
    if eligible:
        state = replace(state, secretary=eligible[0])
        events.append(Secretary(player=eligible[0]))
    return state, tuple(events), trace, Close.DONE


def secretary(state: GameState) -> Outcome:
    """§6.3: the Mayor names one eligible player; a missing vote: the earliest voter."""
    vote = state.vote_of(state.mayor or "", "vote")
    chosen = vote.targets[0] if vote is not None and vote.targets else state.today.candidates[0]
    state = replace(state, secretary=chosen)
    return state, (Secretary(player=chosen),), (f"{chosen} is Secretary",), Close.DONE


def pre_vote(state: GameState) -> Outcome:
    """§6.4: the power vertical and the hunt approvals decide today's main vote.

    When nobody was asked (no Mayor in office, no hunt possible) the step did not run: the main
    vote is a lynch with no vertical, and there is no event.
    """
    if not actions.asked(state):
        return state, (), ("no pre-vote today: a lynch with no vertical",), Close.DONE
    mayor = state.mayor_in_office()
    vertical: str | None = None
    if mayor is not None:
        vote = state.vote_of(mayor, "vertical")
        if vote is not None:
            vertical = vote.targets[0] if vote.targets else None
        else:
            secretary = state.secretary_in_office()
            vertical = secretary if secretary and state.get(secretary).alive else None
    approvals = sum(1 for v in state.votes if v.action == "hunt")
    needed = (len(state.living) + 1) // 2
    hunt = status.is_hunt_possible(state) and approvals >= needed
    kind = Step.HUNT if hunt else Step.LYNCH
    drugged = tuple(p.name for p in state.living if p.name in state.drugged)
    defended = day_roles.defended(state)
    supporters, shadow = day_roles.politician_pre_vote(state)
    event = VoteStart(kind.value, vertical, approvals, needed, drugged, defended, shadow)
    state = day_roles.arm(day_roles.examine(day_roles.buy(state)))
    if any(v.action == "antidote" for v in state.votes):  # §16.3
        state = replace(state, poisoned={})
    event = replace(event, detonator=state.today.armed)
    witness = state.holder("witness")
    vouch = state.vote_of(witness.name, "vouch") if witness is not None else None
    vouched = vouch.targets if vouch is not None else ()
    today = replace(
        state.today,
        vertical=vertical,
        hunt=hunt,
        vouched=vouched,
        defended=defended,
        supporters=supporters,
        shadow=shadow,
    )
    state = replace(state, today=today)
    close = Close.HUNT if hunt else Close.DONE
    return state, (event,), (f"vertical {vertical}, approvals {approvals}/{needed}",), close


def lynch(state: GameState) -> Outcome:
    """§6.5, §6.7: the lynch (and the extra vote); a tie goes to the grey rules or a revote."""
    return _counted(state, actions.asked(state), auto_votes=True)


def hunt(state: GameState) -> Outcome:
    """§6.8: two players are lynched: the red correction, then the highest totals."""
    return _counted(state, actions.asked(state), auto_votes=False)


def revote(state: GameState) -> Outcome:
    """§6.7 points 3-4: the revote among the tied; hard ties by the number of blacks.  A priest
    revote (§15.11) has the lynch's auto-votes."""
    if state.today.rescued is not None:
        return _counted(state, state.today.tied_asked, auto_votes=True)
    return _counted(state, (), auto_votes=False)


def _counted(state: GameState, asked: Sequence[str], *, auto_votes: bool) -> Outcome:
    """Collect a lynch-type vote; its result now, or after the vote-time moves (§6.9)."""
    ballots, auto = tally.collect(state, asked, auto_votes=auto_votes)
    voters = tuple(dict.fromkeys(v.player for v in state.votes if v.group == "vote"))
    pending = Pending(str(state.step), tuple(asked), voters, ballots, auto)
    waiting = replace(state, today=replace(state.today, pending=pending))
    if (
        state.today.armed is not None
        or _liar(state) is not None
        or _black_advocate(state) is not None
        or status.hero_may_save(waiting)
        or status.faceless_hero_may_leave(waiting)
        or tally.priest_may_forgive(waiting)
    ):
        return waiting, (), ("vote-time moves",), Close.MOVES
    return _decide(state, pending, tally.Scandal())


def vote_moves(state: GameState) -> Outcome:
    """§6.9, §15.13: the Liar's scandal, then the vote's result."""
    pending = state.today.pending
    if pending is None:
        raise ValueError("vote_moves without a pending vote")
    if state.today.armed is not None:
        return _detonate(replace(state, today=replace(state.today, pending=None)), pending)
    liar = _liar(state)
    scandal = tally.Scandal()
    if liar is not None:
        named = state.vote_of(liar.name, "scandal")
        grey_or_black = liar.is_black or liar.faceless  # §15.13: the black rules
        hidden = state.vote_of(liar.name, "hidden") if grey_or_black else None
        scandal = tally.Scandal(
            liar.name,
            named.targets if named is not None else (),
            grey_or_black,
            hidden.targets if hidden is not None and named is not None else (),
        )
    advocate = _black_advocate(state)
    if advocate is not None and state.vote_of(advocate.name, "nobonus") is not None:
        scandal = replace(scandal, nobonus=True)
    forgiven = _forgiven(state)
    state = replace(state, today=replace(state.today, pending=None))
    if forgiven is not None:
        return _forgive(state, pending, scandal, forgiven)
    return _decide(state, pending, scandal)


def _forgiven(state: GameState) -> str | None:
    """§15.11: the player the Priest forgives now (his `forgive` in force), unless that would
    leave the Politician, the Advocate and the Priest all protected today (§15.1)."""
    priest = state.holder("priest")
    target = tally.priest_forgives(state)
    if priest is None or target is None or state.vote_of(priest.name, "forgive") is None:
        return None
    holders = [state.holder(role) for role in ("politician", "advocate", "priest")]
    immune = {state.today.shadow, state.today.defended, target}
    if all(h is not None and h.name in immune for h in holders):
        return None
    return target


def _forgive(state: GameState, pending: Pending, scandal: tally.Scandal, forgiven: str) -> Outcome:
    """§15.11: ballots against the forgiven count 0.  If he would have been lynched he is rescued
    (public `forgiven`): in a two-player revote the other is lynched; otherwise a priest revote
    follows (the rules of a lynch, nobody may vote against him)."""
    priest = state.holder("priest")
    result = tally.weigh(state, pending.ballots, pending.auto, scandal=scandal)
    trace = [f"{pending.kind} totals before forgiveness {result.totals}"]
    if pending.kind == Step.REVOTE:
        would = tally.revote_result(state, result, state.today.candidates)
    else:
        would = tally.top(result.totals)
    if forgiven not in would or priest is None:
        return _decide(state, pending, replace(scandal, forgiven=forgiven))
    event = Forgiven(priest.name, forgiven)
    candidates = state.today.candidates
    if pending.kind == Step.REVOTE and len(candidates) == 2:
        other = tuple(c for c in candidates if c != forgiven)
        trace.append(f"{forgiven} forgiven in a two-player revote: {other} lynched")
        after = replace(scandal, forgiven=forgiven)
        counted = tally.weigh(state, pending.ballots, pending.auto, scandal=after)
        return _conclude(state, other, counted, pending, trace, (event,))
    mayor = state.mayor_in_office()
    voters = tuple(n for n in pending.asked if state.get(n).alive)
    today = replace(
        state.today,
        rescued=forgiven,
        candidates=tuple(p.name for p in state.living if p.name not in (forgiven, mayor)),
        tied_asked=voters,
        tied_ballots=result.ballots,
    )
    state, more = _inactivity(replace(state, today=today), pending)
    # the candidates removed for inactivity at the end of this vote are none (§6.7 RULING)
    living = tuple(name for name in state.today.candidates if state.get(name).alive)
    state = replace(state, today=replace(state.today, candidates=living))
    trace.append(f"{forgiven} is rescued: a priest revote")
    return state, (event, *more), tuple(trace), Close.TIE


def _detonate(state: GameState, pending: Pending) -> Outcome:
    """§15.6: the armed Terrorist's detonation is the day's result: a red Terrorist kills a black
    (or Faceless) target with him and cripples a red one (the Mayor loses his post); a black
    Terrorist cripples his target (a black target also loses his night's negative move).  In a
    hunt they take the place of the lower-ranked victim."""
    armed = state.today.armed or ""
    terrorist = state.get(armed)
    result = tally.weigh(state, pending.ballots, pending.auto)
    state, target = day_roles.detonator_target(state, pending.ballots)
    victim = state.get(target)
    killed = not terrorist.is_black and victim.is_black
    causes: dict[str, str] = {}
    if terrorist.faceless:  # §16.6: he kills a leader of the provisional count, else cripples
        top = max(result.totals.values(), default=0)
        killed = top > 0 and result.totals.get(target, 0) == top
        causes[armed] = Cause.SUICIDE  # he leaves with a draw
    effect = "killed" if killed else "crippled"
    trace = [f"{armed} detonates on {target}: {effect}"]
    dead = [armed, *([target] if killed else [])]
    if pending.kind == Step.HUNT:
        ranked = [n for n in tally.hunt_ranked(state, result) if n not in (armed, target)]
        dead = [*ranked[:1], *dead]
        state = replace(state, hunt_held=True)
    state, after = day_roles.explode(state, (armed,), result.ballots, also=target)
    red_pair = not terrorist.is_black and not terrorist.faceless and not victim.is_black
    if not killed and red_pair:
        state, lost = deaths.lose_post(state, "detonator")
        after = (*after, *lost)
    if terrorist.is_black and victim.is_black:
        blocks = (*state.blocks, RoleBlock(target, True, state.day + 1))
        state = replace(state, blocks=blocks)
    if not killed:
        state, crippled = deaths.cripple(state, [(target, "terrorist")])
        after = (*after, *crippled)
    state = replace(state, today=replace(state.today, armed=None))
    saved = (Detonator(armed, target, effect),)
    via = {name: "terrorist" for name in (armed, target)}  # §8.7: both taken by the detonator
    return _conclude(state, dead, result, pending, trace, saved, after, causes, via)


def _liar(state: GameState) -> Player | None:
    """The Liar when he may make a vote-time move now (alive, his role not blocked)."""
    liar = state.holder("liar")
    return None if liar is None or state.is_role_blocked(liar.name) else liar


def _black_advocate(state: GameState) -> Player | None:
    """A black Advocate who may cancel his +1 at this vote (§15.9), or None."""
    advocate = state.holder("advocate")
    if advocate is None or not advocate.is_black or state.is_role_blocked(advocate.name):
        return None
    return advocate


def _decide(state: GameState, pending: Pending, scandal: tally.Scandal) -> Outcome:
    """Count the vote and decide its result by its kind (§6.5-§6.8)."""
    result = tally.weigh(state, pending.ballots, pending.auto, scandal=scandal)
    trace = [f"{pending.kind} totals {result.totals}"]
    if scandal.named:
        trace.append(f"scandal on {', '.join(scandal.named)}")
    lynched: tuple[str, ...]
    if pending.kind == Step.HUNT:
        lynched = tally.hunt_result(state, result)
        state = replace(state, hunt_held=True)
        if len(lynched) == 2 and all(state.get(n).is_black for n in lynched):
            state = replace(state, ledger=replace(state.ledger, no_due=True))
        return _conclude(state, lynched, result, pending, trace)
    everybody = tally.unanimous(state, result)
    if pending.kind == Step.REVOTE:
        if everybody is not None:
            lynched = (everybody,)
        else:
            lynched = tally.revote_result(state, result, state.today.candidates)
        state, lynched, saved = day_roles.hero_save(state, lynched)
        state = replace(state, today=replace(state.today, revote_empty=not lynched))
        return _conclude(state, lynched, result, pending, trace, saved)
    best = tally.top(result.totals)
    if everybody is not None:
        trace.append(f"every other player voted against {everybody}")
        best = (everybody,)
    by_judge = [name for name in best if name in tally.judged(state, result)]
    if len(best) > 1 and len(by_judge) == 1:
        trace.append(f"the Judge's ballot settles the tie: {by_judge[0]}")
        best = (by_judge[0],)
    if len(best) == 2:
        chosen = tally.grey_tie_break(state, result, (best[0], best[1]))
        if chosen is not None:
            trace.append(f"grey tie-break: {chosen}")
            best = (chosen,)
    if len(best) > 1:
        voters = tuple(name for name in pending.asked if name not in best)
        today = replace(
            state.today, candidates=best, tied_asked=voters, tied_ballots=result.ballots
        )
        removed, more = _inactivity(replace(state, today=today), pending)
        # RULING (§6.7): a tied player removed for inactivity at the end of the tied vote
        # (§5.5) is no target of the revote; when none is left there is no revote and the vote
        # lynches nobody (its removals then follow its result, as after any vote).
        standing = tuple(name for name in best if removed.get(name).alive)
        if not standing:
            trace.append(f"the tied {list(best)} were all removed for inactivity: no revote")
            return _conclude(state, (), result, pending, trace)
        event = Revote(standing, result.totals_form(), result.ballots_form(), result.auto)
        today = replace(removed.today, candidates=standing)
        return replace(removed, today=today), (event, *more), tuple(trace), Close.TIE
    state, best, saved = day_roles.hero_save(state, best)
    return _conclude(state, best, result, pending, trace, saved)


def _conclude(
    state: GameState,
    lynched: Sequence[str],
    result: tally.Count,
    pending: Pending,
    trace: list[str],
    saved: Sequence[Event] = (),
    after: Sequence[Event] = (),
    causes: Mapping[str, str] = MappingProxyType({}),
    via: Mapping[str, str] = MappingProxyType({}),
) -> Outcome:
    """The final result of the day's vote (§6.5, §6.11, §13.4 order of events); ``saved``: events
    before the `lynch` event, ``after``: events right after it (the explosion); ``causes`` and
    ``via``: the cause and the taking role (§8.7) of a death by name, when not a plain lynch."""
    lynched = _seat_sorted(state, lynched)
    events: list[Event] = [
        *saved,
        Lynch(
            lynched[0] if lynched else None,
            lynched,
            result.totals_form(),
            result.ballots_form(),
            result.auto,
        ),
        *after,
    ]
    if not after:
        state, boom = day_roles.explode(state, lynched, result.ballots)
        events.extend(boom)
    if any(state.get(n).is_red for n in lynched):
        state = replace(state, red_lynched=True)
        state, lost = deaths.lose_post(state, "red_lynched")
        events.extend(lost)
    events.extend(_firing(state, lynched, result))
    if any(isinstance(e, SecretaryLost) and e.reason == "fired" for e in events):
        state = replace(state, secretary=None)
    state = day_roles.judge_weight(state, lynched, (*state.today.tied_ballots, *result.ballots))
    state = day_roles.politician_cap(state, lynched, result.ballots)
    state = day_roles.priest_barrier(state, lynched)
    hero = state.holder("hero")
    if hero is not None and hero.faceless and state.vote_of(hero.name, "suicide") is not None:
        causes = {**causes, hero.name: Cause.SUICIDE}  # §15.16: he leaves with a draw
    dying = [(n, causes.get(n, Cause.LYNCH)) for n in lynched]  # a Faceless Terrorist: suicide
    state, died = deaths.kill(state, dying, at_night=False, via=via)
    state, posts = deaths.after_deaths(state, lynched)
    state, heirs = deaths.inherit(state, lynched)
    state = day_roles.recover(state, lynched)
    events.extend((*posts, *died, *heirs))
    state, more = _inactivity(state, pending)
    events.extend(more)
    state = _stalemate(state)
    events.extend(day_roles.examination(state))
    state, told = day_roles.interrogation(state)
    events.extend(told)
    trace.append(f"lynched {list(lynched)}")
    movers = tuple(name for name in lynched if _has_death_move(state, name))
    takeable = tuple(b.voter for b in result.ballots if any(n in b.targets for n in movers))
    if movers:
        today = replace(state.today, last_movers=movers, takeable=takeable, lynched=lynched)
        return replace(state, today=today), tuple(events), tuple(trace), Close.LAST_MOVES
    state, close = _after_day_vote(state, lynched)
    return state, tuple(events), tuple(trace), close


def _after_day_vote(state: GameState, lynched: Sequence[str]) -> tuple[GameState, Close]:
    """§6.10: one lynched player whom the Hero saved on an earlier day brings an extra vote (at
    most one a day); otherwise the night comes."""
    saved_on = state.memory_of("hero").saved_on
    state = replace(state, today=replace(state.today, rescued=None))
    if (
        len(lynched) == 1
        and (saved_on.get(lynched[0], state.day) < state.day or state.get(lynched[0]).faceless)
        and not state.today.extra_done
    ):
        today = replace(state.today, extra_done=True, tied_ballots=(), candidates=())
        return replace(state, today=today), Close.EXTRA
    return state, Close.DONE


def _has_death_move(state: GameState, name: str) -> bool:
    """§6.9: a lynched Fanatic who killed a teammate before avenging may take anyone (§15.17);
    a lynched red Hero who once cancelled a red's lynch may take a voter (§15.16); a
    lynched Inquisitor with a living verified black (a black one who burned a true black:
    anybody) has a death-time kill (§15.10)."""
    player = state.get(name)
    if player.negative == "executor":  # §16.4: the berserk
        return True
    rescued = state.today.rescued
    if player.peaceful == "priest":  # §15.11: lynched in the priest revote
        return rescued is not None and state.get(rescued).alive
    if player.peaceful == "fanatic":  # §15.17: after killing a teammate, before avenging
        memory = state.memory_of("fanatic")
        return memory.killed_mate and not memory.avenged
    if player.peaceful == "hero":
        memory = state.memory_of("hero")
        red = not player.is_black and not player.faceless
        return red and memory.cancelled_red and not memory.inherited
    if player.peaceful != "inquisitor":
        return False
    memory = state.memory_of("inquisitor")
    if player.is_black and memory.burned_true_black:
        return True
    return any(state.get(n).alive for n in memory.verified_black)


def last_moves(state: GameState) -> Outcome:
    """§6.9: the lynched players' death-time moves; their victims count as lynched."""
    events: list[Event] = []
    victims = []
    destroyed: list[tuple[str, str]] = []
    via = None
    for mover in state.today.last_movers:
        vote = state.vote_of(mover, "last")
        if vote is not None and vote.action == "destroy" and state.get(vote.targets[0]).alive:
            destroyed.append((mover, vote.targets[0]))
        elif vote is not None and vote.action == "instead" and state.today.rescued is not None:
            victims.append(state.today.rescued)  # §15.11: the rescued dies in his place
            via = "priest"
        elif vote is not None and vote.targets and state.get(vote.targets[0]).alive:
            victims.append(vote.targets[0])
            via = state.get(mover).peaceful
    victims = list(_seat_sorted(state, list(dict.fromkeys(victims))))
    for mover, target in destroyed:  # §16.4: crippled; his negative moves of tonight stopped
        events.append(Destroyed(mover, target))
        state, crippled = deaths.cripple(state, [(target, "executor")])
        events.extend(crippled)
        blocks = (*state.blocks, RoleBlock(target, True, state.day + 1))
        state = replace(state, blocks=blocks)
    if any(state.get(n).is_red for n in victims):
        state = replace(state, red_lynched=True)
        state, lost = deaths.lose_post(state, "red_lynched")
        events.extend(lost)
    state, died = deaths.kill(state, [(n, Cause.LYNCH) for n in victims], at_night=False, via=via)
    state = day_roles.recover(state, victims)
    state, posts = deaths.after_deaths(state, victims)
    state, heirs = deaths.inherit(state, victims)
    events.extend((*posts, *died, *heirs))
    lynched = (*state.today.lynched, *victims)
    state = replace(state, today=replace(state.today, last_movers=(), takeable=()))
    state, close = _after_day_vote(state, lynched)
    return state, tuple(events), (f"last moves take {victims or 'nobody'}",), close


def _firing(state: GameState, lynched: Sequence[str], result: tally.Count) -> list[Event]:
    """§6.11: the Mayor fires his Secretary by a ballot against her that does not lynch her."""
    mayor, secretary = state.mayor_in_office(), state.secretary_in_office()
    if mayor is None or secretary is None or secretary in lynched:
        return []
    ballots = (*state.today.tied_ballots, *result.ballots)
    if any(b.voter == mayor and secretary in b.targets for b in ballots):
        return [SecretaryLost(player=secretary, reason="fired")]
    return []


def _inactivity(state: GameState, pending: Pending) -> tuple[GameState, tuple[Event, ...]]:
    """§5.5: missed day votes count; at ``strictness`` the player is removed."""
    if pending.kind not in (Step.LYNCH, Step.EXTRA_VOTE, Step.HUNT):
        return state, ()
    asked, voted = pending.asked, set(pending.voters)
    events: list[Event] = []
    removed: list[str] = []
    players = []
    for player in state.players:
        if player.name in asked and player.alive and not player.is_elite:
            missed = 0 if player.name in voted else player.missed + 1
            player = replace(player, missed=missed)
            if missed:
                events.append(Inactive(player=player.name, missed=missed))
            if missed >= state.settings.strictness:
                removed.append(player.name)
        players.append(player)
    state = replace(state, players=tuple(players))
    if removed:
        state, died = deaths.kill(state, [(n, Cause.INACTIVITY) for n in removed], at_night=False)
        state, posts = deaths.after_deaths(state, removed)
        state, heirs = deaths.inherit(state, removed)
        events.extend((*posts, *died, *heirs))
    return state, tuple(events)


def _stalemate(state: GameState) -> GameState:
    """§6.12: two days in a row end in an empty revote with the same living players: a draw (a
    day on which the Hero cancelled a lynch does not count)."""
    if not state.today.revote_empty or state.today.hero_cancelled:
        return replace(state, stalemate=None)
    alive = tuple(p.name for p in state.living)
    if state.stalemate == alive:
        return replace(state, draw=True)
    return replace(state, stalemate=alive)


RESOLVERS: Mapping[str, Callable[[GameState], Outcome]] = {
    Step.ELECTION: election,
    Step.RUNOFF: runoff,
    Step.SECRETARY: secretary,
    Step.PRE_VOTE: pre_vote,
    Step.LYNCH: lynch,
    Step.EXTRA_VOTE: lynch,
    Step.HUNT: hunt,
    Step.REVOTE: revote,
    Step.VOTE_MOVES: vote_moves,
    Step.LAST_MOVES: last_moves,
}
