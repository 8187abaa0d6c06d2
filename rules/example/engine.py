"""The example's order of play (one step table), its votes, and the resolution of each step.

The step table drives the order: each step says its phase and who is asked, and
:meth:`rules.core.steps.StepTable.following` gives the next one; a step where nobody is asked
is skipped.  Every resolution is a short pipeline of pure stages that note what they decided
in a trace (``narrator simulate --trace`` prints it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.core.events import Death, Event, Inactive, Win
from rules.core.model import (
    Accepted,
    ActionChoice,
    Choices,
    Rejected,
    Resolution,
    Seat,
    Settings,
    Vote,
)
from rules.core.refusals import check_vote
from rules.core.rng import draw_from
from rules.core.steps import StepSpec, StepTable
from rules.core.votes import count, leaders
from rules.example.events import Lynch, Spared, Vision
from rules.example.roles import LUPI, LUPO, ROLES, VEGGENTE, VILLAGGIO
from rules.example.state import GameState, Player

DAY, NIGHT = "giorno", "notte"
SPARE = "risparmia"  # the wolves' keyword: spare everybody tonight (a vote without names)
KEYWORDS = (SPARE,)


def _living(state: GameState) -> list[Player]:
    return [player for player in state.players if player.alive]


def asked_by_day(state: GameState) -> tuple[str, ...]:
    """By day every living player votes for the stake."""
    return tuple(player.name for player in _living(state))


def asked_by_night(state: GameState) -> tuple[str, ...]:
    """At night the wolves and the seer act, in seat order."""
    return tuple(p.name for p in _living(state) if p.role in (LUPO.id, VEGGENTE.id))


STEP_TABLE: StepTable[GameState] = StepTable(
    (
        StepSpec(DAY, "day", asked_by_day),  # day first: the village talks before the wolves hunt
        StepSpec(NIGHT, "night", asked_by_night),
    )
)


# --------------------------------------------------------------------------- the start


def new_game(seats: Sequence[Seat], settings: Settings) -> GameState:
    """Return the state at its first step; ValueError for unknown roles, duplicate names,
    fewer than 3 players, no wolf, or an option this ruleset does not have."""
    for seat in seats:
        if seat.role not in ROLES:
            raise ValueError(f"unknown role {seat.role!r} for {seat.name}")
    if len(seats) < 3:
        raise ValueError(f"a game has at least 3 players, not {len(seats)}")
    if len({seat.name.casefold() for seat in seats}) != len(seats):
        raise ValueError("player names must be unique (ignoring case)")
    if not any(seat.role == LUPO.id for seat in seats):
        raise ValueError("a game needs at least one lupo")
    if settings.strictness < 1:
        raise ValueError("strictness must be at least 1")
    settings.check_options({})
    players = tuple(Player(name=s.name, role=s.role, gender=s.gender) for s in seats)
    return _enter(GameState(settings=settings, players=players), STEP_TABLE.following(None))


def _enter(state: GameState, spec: StepSpec[GameState]) -> GameState:
    """Move to ``spec`` (numbering the moment as transcripts do), skipping empty steps."""
    for _ in range(2 * len(STEP_TABLE.steps)):
        night = state.night + 1 if spec.phase == "night" else state.night
        day = state.day + 1 if spec.phase == "day" else state.day
        state = replace(state, step=spec.id, night=night, day=day, votes={})
        if spec.asked(state):
            return state
        spec = STEP_TABLE.following(spec.id)
    raise ValueError("nobody can act any more")  # unreachable while the game is not over


# --------------------------------------------------------------------------- votes


ACTION_KINDS: tuple[str, ...] = (DAY, LUPO.id, SPARE, VEGGENTE.id)
"""Every action a player may be asked (the ``action`` of :func:`choices`' votes)."""


def choices(state: GameState, player: str) -> Choices:
    """What ``player`` may send now: the day vote, the wolves' victim or spare, the seer's look."""
    seat = state.find(player)
    if seat is None or state.step is None or player not in STEP_TABLE.get(state.step).asked(state):
        return Choices(player=player, step=state.step)
    others = tuple(p.name for p in _living(state) if p.name != player)
    actions: tuple[ActionChoice, ...]
    if state.step == DAY:
        actions = (ActionChoice(DAY, None, others, 1, 1, blanco=True),)
    elif seat.role == LUPO.id:
        prey = tuple(p.name for p in _living(state) if p.role != LUPO.id)
        actions = (
            # One move: a prey, or spare them all (a mail holds one of the two).
            ActionChoice(LUPO.id, None, prey, 1, 1, blanco=True, move=LUPO.id),
            ActionChoice(SPARE, SPARE, (), 0, 0, blanco=False, move=LUPO.id),
        )
    else:
        actions = (ActionChoice(VEGGENTE.id, None, others, 1, 1, blanco=True),)
    return Choices(player=player, step=state.step, actions=actions)


def apply_vote(state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
    """Check ``vote`` against the voter's choices (rules.core.refusals.check_vote; a living
    name left out of the wolves' list is a fellow wolf: ``pack-member``) and store it,
    replacing his earlier one."""
    checked = check_vote(choices(state, vote.player), vote, state.find, left_out="pack-member")
    if isinstance(checked, Rejected):
        return checked
    action, targets = checked
    votes = {
        key: names
        for key, names in state.votes.items()
        if key.partition(":")[0] != vote.player  # one vote per player: the last one counts
    }
    key = vote.player if action.keyword is None else f"{vote.player}:{action.keyword}"
    votes[key] = targets
    return Accepted(replace(state, votes=votes))


# --------------------------------------------------------------------------- resolution


def resolve(state: GameState) -> Resolution[GameState]:
    """Resolve the current step and move on; ValueError when the game is over."""
    if state.step is None:
        raise ValueError("the game is over")
    trace = [f"step {state.step}, night {state.night}, day {state.day}"]
    events: list[Event] = []
    if state.step == DAY:
        state = _lynch(state, events, trace)
        state = _inactivity(state, events, trace)
    else:
        state = _visions(state, events, trace)
        state = _hunt(state, events, trace)
    over = _win(state)
    if over is not None:
        events.append(over)
        trace.append(f"game over: {list(over.teams)} win")
        return Resolution(
            replace(state, step=None, votes={}, winners=over.winners, teams=over.teams),
            tuple(events),
            tuple(trace),
        )
    return Resolution(_enter(state, STEP_TABLE.following(state.step)), tuple(events), tuple(trace))


def _kill(state: GameState, name: str, cause: str, events: list[Event]) -> GameState:
    player = state.find(name)
    assert player is not None and player.alive
    events.append(Death(player=name, cause=cause))
    return state.with_player(replace(player, alive=False))


def _lynch(state: GameState, events: list[Event], trace: list[str]) -> GameState:
    """Stage 1 by day: the most-voted player is burnt; a tie or no vote burns nobody."""
    totals = count(name for names in state.votes.values() for name in names)
    top = leaders(totals)
    burnt = top[0] if len(top) == 1 else None
    trace.append(f"lynch: totals {totals}, burnt {burnt}")
    events.append(Lynch(player=burnt, totals=totals))
    return _kill(state, burnt, "rogo", events) if burnt is not None else state


def _inactivity(state: GameState, events: list[Event], trace: list[str]) -> GameState:
    """Stage 2 by day: who did not vote misses one more; ``strictness`` in a row dies."""
    for name in asked_by_day(state):
        player = state.find(name)
        assert player is not None
        if name in state.votes:
            state = state.with_player(replace(player, missed=0))
            continue
        missed = player.missed + 1
        state = state.with_player(replace(player, missed=missed))
        events.append(Inactive(player=name, missed=missed))
        if missed >= state.settings.strictness:
            trace.append(f"inactivity: {name} missed {missed} in a row")
            state = _kill(state, name, "inattivita", events)
    return state


def _visions(state: GameState, events: list[Event], trace: list[str]) -> GameState:
    """Stage 1 at night: each seer learns the team of the player he named (before the hunt)."""
    for player in _living(state):
        names = state.votes.get(player.name, ())
        if player.role == VEGGENTE.id and names:
            target = state.find(names[0])
            assert target is not None
            team = ROLES[target.role].team
            events.append(Vision(player=player.name, target=target.name, team=team))
            trace.append(f"vision: {player.name} sees {target.name} ({team})")
    return state


def _hunt(state: GameState, events: list[Event], trace: list[str]) -> GameState:
    """Stage 2 at night: the wolves' plurality is the victim; ``risparmia`` counts for nobody
    and wins a tie with a name; a tie between names is drawn (seeded)."""
    ballots = [
        names[0] if names else SPARE
        for key, names in state.votes.items()
        if key.partition(":")[0] in {p.name for p in _living(state) if p.role == LUPO.id}
        and (names or key.endswith(f":{SPARE}"))
    ]
    top = leaders(count(ballots))
    trace.append(f"hunt: ballots {ballots}, leaders {list(top)}")
    if not top:
        return state
    if SPARE in top:
        events.append(Spared())
        return state
    victim = top[0]
    if len(top) > 1:
        victim = draw_from(state.settings.seed, state.draws, top)
        state = replace(state, draws=state.draws + 1)
        trace.append(f"hunt: tie drawn, {victim}")
    return _kill(state, victim, "lupi", events)


def _win(state: GameState) -> Win | None:
    """The village wins when no wolf lives; the wolves when they are as many as the rest."""
    wolves = [p for p in _living(state) if p.role == LUPO.id]
    village = [p for p in _living(state) if p.role != LUPO.id]
    if not wolves:
        team = VILLAGGIO
    elif len(wolves) >= len(village):
        team = LUPI
    else:
        return None
    winners = tuple(p.name for p in state.players if ROLES[p.role].team == team)
    return Win(teams=(team,), winners=winners)
