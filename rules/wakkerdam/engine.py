"""The Wakkerdam resolver of each step and the advance to the next (the table: steps.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from rules.core.events import Inactive, RoleChange, Win
from rules.core.model import Resolution, Seat, Settings
from rules.core.steps import StepSpec
from rules.core.votes import count, leaders
from rules.wakkerdam import actions
from rules.wakkerdam.actions import actions_for, asked, vote_key
from rules.wakkerdam.board import Board
from rules.wakkerdam.deaths import kill, substitute
from rules.wakkerdam.events import (
    Asleep,
    Bodyguard,
    Enchanted,
    FoolRevealed,
    Guilty,
    Jailed,
    Lovers,
    Lynch,
    Marked,
    Mayor,
    NoMayor,
    Saved,
    Warned,
)
from rules.wakkerdam.night import resolve_night, saved_events
from rules.wakkerdam.roles import ROLES
from rules.wakkerdam.state import GameState, Player
from rules.wakkerdam.steps import OPTIONS, STEP_TABLE
from rules.wakkerdam.wins import check

Deaths = list[tuple[str, str]]

NIGHT_STEPS = frozenset({"grafrover", "klaas_vaak", "nacht", "heks", "ochtend", "doden"})


def new_game(seats: Sequence[Seat], settings: Settings) -> GameState:
    """Return the state of a new game, at its first step that has someone asked.

    Raises ValueError for duplicate names, unknown roles, or fewer than 3 / more than 1000 players.
    """
    for seat in seats:
        if seat.role not in ROLES:
            raise ValueError(f"unknown role {seat.role!r} for {seat.name}")
    if not 3 <= len(seats) <= 1000:
        raise ValueError(f"a game has 3 to 1000 players, not {len(seats)}")
    names = [seat.name for seat in seats]
    if len({name.casefold() for name in names}) != len(names):
        raise ValueError("player names must be unique (ignoring case)")
    if settings.strictness < 1:
        raise ValueError("strictness must be at least 1")
    settings.check_options(OPTIONS)
    state = GameState(
        settings=settings,
        players=tuple(Player(name=s.name, role=s.role, gender=s.gender) for s in seats),
        distribution_roles=tuple(sorted({seat.role for seat in seats})),
        election_due=bool(settings.option("mayor", False)),
    )
    return _advance(state, None)


# --------------------------------------------------------------------------- resolvers


def _single(state: GameState, role_action: str) -> list[tuple[str, str]]:
    """(actor, first name) of every non-blanco vote for ``role_action``, actors in seat order."""
    found: list[tuple[str, str]] = []
    for player in state.players:
        for action in actions_for(state, player):
            if action.action == role_action:
                names = state.votes.get(vote_key(player.name, action), ())
                if names:
                    found.append((player.name, names[0]))
    return found


def resolve_dief(board: Board) -> Deaths:
    """Thieves, in the order their final votes arrived, then the ones who did not vote."""
    state = board.start
    thieves = [p.name for p in state.players if actions_for(state, p)]
    voted = [key for key in state.votes if key in thieves]
    for thief in voted + [t for t in thieves if t not in voted]:
        names = state.votes.get(thief, ())
        target_role = board.get(names[0]).role if names else "dief"
        if target_role == "dief":
            board.put(board.get(thief).with_role("burger"))
            board.emit(RoleChange(player=thief, role="burger"))
            board.note(f"thief {thief} becomes burger ({names[0] if names else 'blanco'})")
        else:
            board.put(board.get(thief).with_role(target_role))
            board.put(board.get(names[0]).with_role("burger"))
            board.emit(RoleChange(player=thief, role=target_role))
            board.emit(RoleChange(player=names[0], role="burger"))
            board.note(f"thief {thief} takes {target_role} from {names[0]}")
        board.changed = True
    return []


def resolve_cupido(board: Board) -> Deaths:
    """Lovers, in the order the cupidos' final votes arrived."""
    state = board.start
    for key, names in state.votes.items():
        if len(names) == 2:
            a, b = names
            board.update(a, lover=b)
            board.update(b, lover=a)
            board.emit(Lovers(players=(a, b)))
            board.note(f"{key} makes {a} and {b} lovers")
    return []


def resolve_opdrachtgever(board: Board) -> Deaths:
    """Bodyguards, in the order the final votes arrived."""
    for principal, names in board.start.votes.items():
        if names:
            board.update(principal, bodyguard=names[0])
            board.update(names[0], guards=principal)
            board.emit(Bodyguard(player=names[0], guards=principal))
            board.note(f"{names[0]} guards {principal}")
    return []


def resolve_grafrover(board: Board) -> Deaths:
    """Each grafrover who named a dead player takes his role with fresh resources."""
    night_roles = dict(board.value("night_roles"))
    for robber, target in _single(board.start, "grafrover"):
        role = board.get(target).role
        night_roles.setdefault(robber, board.get(robber).role)
        board.put(replace(board.get(robber).with_role(role), gift_used=role != "grafrover"))
        board.emit(RoleChange(player=robber, role=role))
        board.note(f"grafrover {robber} takes {role} from {target}")
        board.changed = True
    board.set(night_roles=night_roles)
    return []


def resolve_klaas_vaak(board: Board) -> Deaths:
    """The named players sleep for the rest of the night."""
    asleep = set(board.value("asleep"))
    for sandman, target in _single(board.start, "klaas_vaak"):
        if target not in asleep:
            asleep.add(target)
            board.emit(Asleep(player=target))
        board.note(f"{sandman} puts {target} to sleep")
    board.set(asleep=frozenset(asleep))
    return []


def resolve_nacht(board: Board) -> Deaths:
    """The night pipeline; then wounds with bodyguard substitution (§6.3)."""
    ctx, trace = resolve_night(board.start)
    board.trace.extend(trace)
    board.draws = ctx.draws
    for name in ctx.elder_spent:
        board.update(name, elder_hit=True)
    board.emit(*ctx.info)
    board.emit(*saved_events(ctx))
    wounded: dict[str, str] = {}
    for name, cause in ctx.hurt:
        real, real_cause = substitute(board, name, cause)
        wounded.setdefault(real, real_cause)
    board.note(f"wounded: {wounded or 'nobody'}")
    board.set(wounded=tuple(wounded.items()))
    return []


def resolve_heks(board: Board) -> Deaths:
    """Elixirs and poison, the fluitspelers' enchantment; the still wounded die."""
    state = board.start
    wounded = dict(state.wounded)
    poisoned: Deaths = []
    for witch, names in _all_votes(state, "heks"):
        for name in names:
            if name in state.wounded_names:
                board.update(witch, elixir=False)
                if name in wounded:
                    del wounded[name]
                    board.emit(Saved(player=name))
                board.note(f"heks {witch} saves {name}")
            else:
                board.update(witch, poison=False)
                poisoned.append((name, "gif"))
                board.note(f"heks {witch} poisons {name}")
    _enchant(board, [names for _piper, names in _all_votes(state, "fluitspeler")])
    board.set(wounded=())
    return [*wounded.items(), *poisoned]


def _all_votes(state: GameState, role_action: str) -> list[tuple[str, tuple[str, ...]]]:
    found: list[tuple[str, tuple[str, ...]]] = []
    for player in state.players:
        for action in actions_for(state, player):
            if action.action == role_action:
                names = state.votes.get(vote_key(player.name, action))
                if names:
                    found.append((player.name, names))
    return found


def _enchant(board: Board, ballots: list[tuple[str, ...]]) -> None:
    """Enchant the two most-voted players (ties: see docs/rules/wakkerdam.md, Rulings)."""
    if not ballots:
        return
    if len(ballots) == 1:
        chosen = list(ballots[0])
    else:
        counts = count(name for ballot in ballots for name in ballot)
        top = leaders(counts)
        if len(top) > 2:
            chosen = []
        elif len(top) == 2:
            chosen = list(top)
        else:
            rest = {name: n for name, n in counts.items() if name != top[0]}
            second = leaders(rest)
            chosen = [top[0], *second] if len(second) == 1 else [top[0]]
        board.note(f"fluitspelers tally {counts} -> {chosen or 'nobody'}")
    for name in sorted(chosen, key=board.index.__getitem__):
        board.update(name, enchanted=True)
        board.emit(Enchanted(player=name))
        board.changed = True


def resolve_ochtend(board: Board) -> Deaths:
    """Waarschuwer, raaf and schout, in seat order."""
    state = board.start
    warned, marked, jailed = set(), list(board.value("marked")), set()
    for player in state.players:
        for action in actions_for(state, player):
            names = state.votes.get(vote_key(player.name, action), ())
            if not names:
                continue
            target = names[0]
            if action.action == "waarschuwer":
                warned.add(target)
                board.emit(Warned(player=target))
            elif action.action == "raaf":
                marked.append(target)
                board.emit(Marked(player=target))
            elif action.action == "schout":
                jailed.add(target)
                board.emit(Jailed(player=target))
            board.note(f"{action.action} {player.name} names {target}")
    board.set(warned=frozenset(warned), marked=tuple(marked), jailed=frozenset(jailed))
    return []


def resolve_dead_actions(board: Board) -> Deaths:
    """Jager shots (doden, na_brandstapel), testaments (doden), the zondebok (na_brandstapel)."""
    state = board.start
    shots: Deaths = []
    for player in state.players:
        acts = actions_for(state, player)
        if not acts:
            continue
        for action in acts:
            names = state.votes.get(vote_key(player.name, action))
            if action.action == "jager" and names:
                shots.append((names[0], "jager"))
                board.note(f"jager {player.name} shoots {names[0]}")
            elif action.action == "zondebok" and names:
                guilty = tuple(sorted(names, key=state.index.__getitem__))
                board.set(guilty=frozenset(guilty))
                board.emit(Guilty(players=guilty))
                board.note(f"zondebok {player.name} names {list(guilty)}")
        consumed = {"jager", "testament"} if state.step == "doden" else {"jager", "zondebok"}
        due = tuple(d for d in board.get(player.name).due if d not in consumed)
        board.update(player.name, due=due)
    return shots


def apply_testaments(board: Board) -> None:
    """After the doden deaths: a testament naming a living player makes him mayor."""
    state = board.start
    if state.step != "doden":
        return
    for player in state.players:
        for action in actions_for(state, player):
            if action.action != "testament":
                continue
            names = state.votes.get(vote_key(player.name, action), ())
            heir = names[0] if names else None
            if heir is not None and board.get(heir).alive and board.value("mayor") is None:
                board.set(mayor=heir)
                board.emit(Mayor(player=heir, via="testament"))
                board.note(f"testament of {player.name}: {heir} is mayor")
            else:
                board.note(f"testament of {player.name}: no heir, election due")
                board.set(election_due=not board.value("elections_abolished"))


def resolve_election(board: Board) -> Deaths:
    """Plurality; a tie or no votes abolishes the mayor for the rest of the game."""
    state = board.start
    counts = count(names[0] for names in state.votes.values() if names)
    top = leaders(counts)
    board.note(f"election tally {counts}")
    if len(top) == 1:
        board.set(mayor=top[0], election_due=False)
        board.emit(Mayor(player=top[0], via="election"))
    else:
        board.set(election_due=False, elections_abolished=True)
        board.emit(NoMayor())
    return []


def lynch_weight(state: GameState, voter: str) -> float:
    """The weight of a lynch vote: 1, mayor 1.5, warned x2."""
    weight = 1.5 if state.mayor == voter else 1.0
    return weight * 2 if voter in state.warned else weight


def resolve_lynch(board: Board) -> Deaths:
    """Weighted totals, raven marks, ties (mayor, zondebok), the dorpsgek (§7.1)."""
    state = board.start
    totals: dict[str, float] = {}
    mayor_choice: str | None = None
    for key, names in state.votes.items():
        if names:
            totals[names[0]] = totals.get(names[0], 0.0) + lynch_weight(state, key)
            if key == state.mayor:
                mayor_choice = names[0]
    for name in state.marked:
        target = state.player(name)
        if target.alive and name not in state.jailed and not target.fool_revealed:
            totals[name] = totals.get(name, 0.0) + 2.0
    totals = {name: totals[name] for name in sorted(totals, key=state.index.__getitem__)}
    top = leaders(totals)
    board.note(f"lynch totals {totals}")
    chosen: str | None = None
    tie_rule = False
    if len(top) == 1:
        chosen = top[0]
    elif mayor_choice is not None and mayor_choice in top:
        chosen = mayor_choice
        board.note(f"tie broken by the mayor's vote for {chosen}")
    else:
        goats = [p.name for p in state.players if p.alive and p.role == "zondebok"]
        if goats:
            chosen = board.draw(goats) if len(goats) > 1 else goats[0]
            tie_rule = True
            board.note(f"tie or no votes: zondebok {chosen} burns")
    board.emit(Lynch(player=chosen, totals=totals))
    board.set(warned=frozenset(), marked=(), jailed=frozenset(), guilty=frozenset())
    if chosen is None:
        return []
    if state.player(chosen).role == "dorpsgek":
        board.update(chosen, fool_revealed=True)
        board.emit(FoolRevealed(player=chosen))
        board.note(f"{chosen} is the dorpsgek: nobody dies today")
        return []
    if tie_rule:
        board.update(chosen, due=(*board.get(chosen).due, "zondebok"))
    return [(chosen, "brandstapel")]


RESOLVERS: Mapping[str, Callable[[Board], Deaths]] = {
    "dief": resolve_dief,
    "cupido": resolve_cupido,
    "opdrachtgever": resolve_opdrachtgever,
    "grafrover": resolve_grafrover,
    "klaas_vaak": resolve_klaas_vaak,
    "nacht": resolve_nacht,
    "heks": resolve_heks,
    "ochtend": resolve_ochtend,
    "doden": resolve_dead_actions,
    "burgemeesterverkiezing": resolve_election,
    "brandstapel": resolve_lynch,
    "na_brandstapel": resolve_dead_actions,
}


# --------------------------------------------------------------------------- the cycle


def record_choices(board: Board) -> None:
    """Remember the choice of every asked no-repeat role (a missed vote counts as blanco)."""
    state = board.start
    for player in state.players:
        for action in actions_for(state, player):
            if action.no_repeat:
                names = state.votes.get(vote_key(player.name, action), ())
                board.update(player.name, last_choice=tuple(sorted(names)))


def inactivity(board: Board) -> Deaths:
    """Count missed votes of the living asked players; return the inactivity deaths."""
    state = board.start
    voters = {key.partition(":")[0] for key in state.votes}
    deaths: Deaths = []
    for player in state.players:
        if not player.alive or not actions_for(state, player):
            continue
        if player.name in voters:
            if player.missed:
                board.update(player.name, missed=0)
            continue
        missed = player.missed + 1
        board.update(player.name, missed=missed)
        board.emit(Inactive(player=player.name, missed=missed))
        board.note(f"{player.name} missed a vote ({missed} in a row)")
        if missed >= state.settings.strictness:
            deaths.append((player.name, "inactiviteit"))
    return deaths


def resolve(state: GameState) -> Resolution[GameState]:
    """Resolve the current step at its deadline and advance to the next step (or the end).

    Raises ValueError when the game is already over.
    """
    step = state.step
    if step is None:
        raise ValueError("the game is over")
    board = Board(state)
    board.note(f"step {step}, night {state.night}, day {state.day}")
    deaths = RESOLVERS[step](board)
    record_choices(board)
    deaths += inactivity(board)
    at_night = step in NIGHT_STEPS
    kill(board, deaths, at_night=at_night)
    apply_testaments(board)
    if step == "nacht" and board.value("wounded") and not _heks_runs(board):
        board.note("no heks step: the wounded die now")
        kill(board, board.value("wounded"), at_night=True)
        board.set(wounded=())
    board.set(votes={})
    after = board.freeze()
    events = list(board.events)
    if board.changed:
        outcome = check(after.players)
        if outcome.over:
            board.note(f"game over: {list(outcome.teams)} win: {list(outcome.winners)}")
            events.append(Win(teams=outcome.teams, winners=outcome.winners))
            after = replace(
                after, over=True, step=None, winners=outcome.winners, teams=outcome.teams
            )
            return Resolution(after, tuple(events), tuple(board.trace))
    return Resolution(_advance(after, step), tuple(events), tuple(board.trace))


def _heks_runs(board: Board) -> bool:
    probe = replace(board.freeze(), step="heks")
    return bool(asked(probe))


def _advance(state: GameState, done: str | None) -> GameState:
    """Move from step ``done`` (None: the start) to the next step, in table order, that has
    somebody asked; a ``repeats`` step stays while somebody is still asked in it."""
    step = done
    for _ in range(64):
        if step is not None and STEP_TABLE.get(step).repeats and asked(state):
            return state
        spec = STEP_TABLE.following(step)
        step = spec.id
        state = _enter(spec, state)
        if spec.asked(state):
            return state
        if step == "brandstapel":  # a day without a lynch: its statuses lapse all the same
            state = replace(
                state, guilty=frozenset(), jailed=frozenset(), marked=(), warned=frozenset()
            )
    return replace(state, step=None, over=True)


def _enter(spec: StepSpec[GameState], state: GameState) -> GameState:
    """The state at the start of step ``spec``: a night begins with the first night step, the
    sleepers wake for the election, and the day's number is the night's from the lynch on."""
    if spec.id == STEP_TABLE.first_of("night").id:
        night = state.night + 1
        state = replace(
            state,
            night=night,
            day=night - 1,
            asleep=frozenset(),
            wounded=(),
            night_roles={},
            warned=frozenset(),
            marked=(),
            jailed=frozenset(),
        )
    elif spec.id == "burgemeesterverkiezing":
        state = replace(state, asleep=frozenset())
    elif spec.id == "brandstapel":
        state = replace(state, day=state.night)
    return replace(state, step=spec.id)


__all__ = ["STEP_TABLE", "actions", "new_game", "resolve"]
