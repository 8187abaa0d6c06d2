"""Slot N8 (§7.4): the black sides' kill moves in kill order, void kills, and insurances."""

from __future__ import annotations

from collections.abc import Sequence

from rules.mafia import ledger, status
from rules.mafia.ids import Side
from rules.mafia.moves import Move, Night
from rules.mafia.state import GameState, Player


def _vote(state: GameState, name: str, group: str) -> tuple[str, tuple[str, ...]] | None:
    vote = state.vote_of(name, group)
    return None if vote is None else (vote.action, vote.targets)


def approves(state: GameState, approver: str) -> bool:
    """Whether ``approver`` has `approve` in force (a partner's kill on him, his suicide)."""
    return state.vote_of(approver, "approve") is not None


def _is_void(night: Night, shooter: Player, target: str, side: Side) -> str | None:
    """Why a black's kill move is void (as if not sent), or None (§7.4.5, §7.4.8, §15.3)."""
    state = night.state
    guard = night.guard
    if (
        guard is not None
        and night.guard_black
        and (guard.owner, guard.target)
        == (
            target,
            shooter.name,
        )
    ):
        return "the black Bodyguard and his killer target each other"
    suicide = state.vote_of(shooter.name, "suicide")
    if (
        suicide is not None
        and suicide.targets
        and shooter.name == status.active_kamikaze(state)
        and state.get(suicide.targets[0]).is_black
    ):
        return "the Kamikaze's suicide on a black voids his kill move (§15.19)"
    if target in state.partners(shooter.name) and not approves(state, target):
        return "a partner's kill without his approval"
    victim = state.get(target)
    if (
        ledger.is_shared_night(state, night.number)
        and state.ledger.black_killed
        and victim.is_black
    ):
        night.void_shots[side.value] = night.void_shots.get(side.value, 0) + 1
        return "a black already died by a black's kill in nights 1-2"
    return None


def _past_black_guard(night: Night, target: str, shooter: str) -> str:
    """§15.3: a black killer who targets a black Bodyguard guarding a red attacks the ward."""
    guard = night.guard
    keeps = night.guard_black or night.guard_faceless  # §15.3: the Faceless holder too
    if guard is None or not keeps or target != guard.owner:
        return target
    if night.state.get(guard.target).is_black:
        return target
    night.retargeted[shooter] = target
    return guard.target


def _side_moves(night: Night, side: Side, lines: list[str]) -> list[Move]:
    state = night.state
    moves: list[Move] = []
    for member in state.side_members(side):
        role = (member.negative or side.value) if member.katana else side.value
        for target in night.skipped_kills.get(member.name, ()):  # ruling 88: a stopped shot
            moves.append(
                Move(member.name, role, "kill", (target,), 8, True, True, side.value, len(moves))
            )
        vote = _vote(state, member.name, "kill")
        if vote is None or vote[0] != "kill":
            continue
        for target in vote[1]:
            why = _is_void(night, member, target, side)
            if why is not None:
                lines.append(f"{member.name}'s kill on {target} is void: {why}")
                continue
            target = _past_black_guard(night, target, member.name)
            moves.append(
                Move(
                    member.name,
                    role,
                    "kill",
                    (target,),
                    slot=8,
                    negative=True,
                    kill=True,
                    side=side.value,
                    shot=len(moves),
                )
            )
    return moves


def _partner_insurers(
    state: GameState, shooters: Sequence[str], *, cross_first: bool = False
) -> dict[str, tuple[str, str]]:
    """shooter -> (insurer, insurance target or "" for the shooter's own), mafia side (§7.4.4).

    The partners who sent `insure` come first (in arrival order), then the others in seat order
    unless they sent `noinsure`; the n-th shooter in kill order gets the n-th of them.  With
    ``cross_first`` (§16.1: one shooter, three members, the Maniac's night) the default insurers
    come first, so that a named `insure` can stay for the Maniac (RULING, docs ruling 55).
    """
    free = [p.name for p in state.side_members(Side.MAFIA) if p.name not in shooters]
    insuring = [v.player for v in state.votes if v.action == "insure" and v.player in free]
    refusing = {v.player for v in state.votes if v.action == "noinsure"}
    defaults = [name for name in free if name not in insuring and name not in refusing]
    order = defaults + insuring if cross_first else insuring + defaults
    result: dict[str, tuple[str, str]] = {}
    for shooter, insurer in zip(shooters, order, strict=False):
        vote = state.vote_of(insurer, "kill")
        named = vote is not None and vote.action == "insure" and vote.targets
        result[shooter] = (insurer, vote.targets[0] if vote is not None and named else "")
    return result


def _is_son_exception(state: GameState, moves: Sequence[Move], night: int) -> bool:
    """§16.1: one mafia kill move, three members alive, on the Maniac's night."""
    return (
        len(moves) == 1
        and len(state.side_members(Side.MAFIA)) == 3
        and not ledger.has_night(state, Side.MAFIA, night)
    )


def _hypnotised(night: Night, target: str) -> str | None:
    """§15.18: an insurance fired at the Hypnotist on the night his hypnosis takes the kill moves
    aimed at him goes on to his subject (None: halted, not made), as the votes did at N5."""
    hypnotist = night.hypnotist
    if hypnotist is None or target != hypnotist:
        return target
    if night.state.memory_of("hypnotist").hypnosis_kill_night != night.number:
        return target
    return night.hypnosis_subject


def _fire(night: Night, insurer: str, target: str, insured: Move, lines: list[str]) -> None:
    state = night.state
    player = state.get(insurer)
    aimed = _hypnotised(night, target)
    if aimed is None:
        lines.append(f"{insurer}'s insurance on {target} is not made (hypnosis)")
        return
    if aimed != target:
        lines.append(f"{insurer}'s insurance on {target} goes on to {aimed} (hypnosis)")
        target = aimed
    if target == insurer or not state.get(target).alive:
        lines.append(f"{insurer}'s insurance on {target} cannot fire")
        return
    if target in state.partners(insurer) and not approves(state, target):
        lines.append(f"{insurer}'s insurance on his partner {target} is void")
        return
    move = Move(
        insurer,
        player.negative or "",
        "insure",
        (target,),
        slot=8,
        negative=True,
        kill=True,
        side=insured.side,
        shot=insured.shot,
        insurance=True,
    )
    lines.append(f"{insurer}'s insurance fires on {target} for {insured.owner}")
    if night.send(move):
        night.strike(move)


def negative_kills(night: Night) -> tuple[Night, Sequence[str]]:
    """N8: the black sides' kill moves in the night's kill order, with insurances (§7.4)."""
    state, lines = night.state, list[str]()
    stopped_by_side: dict[str, list[tuple[Move, bool]]] = {}
    for player in state.living:  # §16: the shot of a werewolf's lost kill is spent
        side = player.side
        if side is not None and status.lost_kill(state, player) and ledger.shots(state, side):
            night.void_shots[side.value] = night.void_shots.get(side.value, 0) + 1
            lines.append(f"{player.name}'s kill of tonight is lost")
    for side in ledger.kill_order(state, night.number):
        moves = _side_moves(night, side, lines)
        if moves:
            exception = side is Side.MAFIA and _is_son_exception(state, moves, night.number)
            shooters = [m.owner for m in moves]
            insurers = (
                _partner_insurers(state, shooters, cross_first=exception)
                if side is Side.MAFIA
                else {}
            )
            if exception:
                _son_cross_insurance(night, moves, insurers, stopped_by_side, lines)
            for move in moves:
                skipped = move.owner in night.skipped_kills
                if not skipped and night.send(move):
                    lines.append(f"{move.owner} shoots {move.target}")
                    night.strike(move)
                    continue
                lines.append(f"{move.owner}'s shot is {'skipped' if skipped else 'stopped'}")
                cover = insurers.get(move.owner)
                stopped_by_side.setdefault(side.value, []).append((move, cover is not None))
                if cover is not None:
                    insurer, chosen = cover
                    _fire(night, insurer, chosen or move.target, move, lines)
            if side is Side.MANIAC:
                _geisha_insurance(night, stopped_by_side, lines)
            continue
        _cross_insurance(night, side, stopped_by_side, lines)
    return night, lines


def _son_cross_insurance(
    night: Night,
    moves: Sequence[Move],
    insurers: dict[str, tuple[str, str]],
    stopped: dict[str, list[tuple[Move, bool]]],
    lines: list[str],
) -> None:
    """§16.1: with one mafia kill move and three members alive, the third member may insure the
    Maniac on the Maniac's night (the exception to "a side without kill moves")."""
    state = night.state
    members = state.side_members(Side.MAFIA)
    busy = {moves[0].owner, *(insurer for insurer, _ in insurers.values())}
    third = [
        v
        for v in state.votes
        if v.action == "insure" and v.targets and v.player in {p.name for p in members} - busy
    ]
    for move, covered in stopped.get(Side.MANIAC.value, []):
        if third and not covered:
            _fire(night, third[0].player, third[0].targets[0], move, lines)
        return


def _geisha_insurance(
    night: Night, stopped: dict[str, list[tuple[Move, bool]]], lines: list[str]
) -> None:
    """§16.5: a Geisha's cross-side `insure X` on the Maniac's night fires for his first stopped
    shot, before the mafia side's (only one fires: the Maniac's stopped shots count as covered)."""
    state = night.state
    moves = stopped.get(Side.MANIAC.value, [])
    if not moves:
        return
    for player in state.living:
        vote = state.vote_of(player.name, "insure")
        if vote is None or not vote.targets or not status.geisha_insures(state, player):
            continue
        _fire(night, player.name, vote.targets[0], moves[0][0], lines)
        stopped[Side.MANIAC.value] = [(move, True) for move, _ in moves]
        return


def _cross_insurance(
    night: Night, side: Side, stopped: dict[str, list[tuple[Move, bool]]], lines: list[str]
) -> None:
    """A side without kill moves insures the other side on its night (§7.4.4)."""
    state = night.state
    insured = ledger.other(side)
    if (
        ledger.has_night(state, side, night.number)
        or not ledger.has_night(state, insured, night.number)
        or ledger.is_shared_night(state, night.number)
    ):
        return
    members = {p.name for p in state.side_members(side)}
    vote = next(
        (v for v in state.votes if v.player in members and v.action == "insure" and v.targets),
        None,
    )
    if vote is None:
        return
    for move, covered in stopped.get(insured.value, []):
        if covered:  # a partner's insurance (§7.4.4) or the Geisha's (§16.5) fired for it
            continue
        _fire(night, vote.player, vote.targets[0], move, lines)
        return
