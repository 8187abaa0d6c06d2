"""Counting lynch-type votes (§6.6) and their tie rules (§6.7, §6.8): ballots by team."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from rules.core.view import JsonValue
from rules.core.votes import number
from rules.mafia import status
from rules.mafia.ids import Team
from rules.mafia.state import Ballot, GameState


@dataclass(frozen=True)
class Count:
    """The ballots of a vote (arrival order, auto-votes last) and each named player's total."""

    ballots: tuple[Ballot, ...]
    totals: dict[str, float]
    auto: tuple[str, ...]

    def totals_form(self) -> dict[str, int | float]:
        """The totals as the transcript writes numbers (``1``, ``1.5``)."""
        return {name: number(total) for name, total in self.totals.items()}

    def first_ballot(self, name: str) -> int:
        """The arrival index of the first ballot naming ``name`` (large when none)."""
        for index, ballot in enumerate(self.ballots):
            if name in ballot.targets:
                return index
        return len(self.ballots)

    def ballots_form(self) -> dict[str, JsonValue]:
        """voter -> target (the hunt: voter -> list), for the public event (§6.5); a black
        Liar's hidden ballots are not listed (§15.13)."""
        form: dict[str, JsonValue] = {}
        for ballot in self.ballots:
            if ballot.hidden:
                continue
            form[ballot.voter] = (
                ballot.targets[0] if len(ballot.targets) == 1 else [*ballot.targets]
            )
        return form

    def ballot_of(self, voter: str) -> Ballot | None:
        """The counted ballot of ``voter``, or None."""
        return next((b for b in self.ballots if b.voter == voter), None)


def black_cap(state: GameState) -> int | None:
    """The black correction's cap max(R - 1, B) once a red was lynched, else None (§6.6)."""
    if not state.red_lynched:
        return None
    reds, blacks = status.counts(state)
    return max(reds - 1, blacks)


def _is_red(state: GameState, voter: str) -> bool:
    """Whether a ballot is red for the red cap: not black, not the Faceless's (§6.6 stage 3)."""
    player = state.get(voter)
    return not player.is_black and not player.faceless


def _grey_cap(state: GameState) -> int | None:
    """§6.6 stage 6: black plus grey ballots against one player at most max(R, B), once a red
    was lynched; None before."""
    if not state.red_lynched:
        return None
    reds, blacks = status.counts(state)
    return max(reds, blacks)


def _base_weight(state: GameState, voter: str) -> float:
    """§6.6 stage 2, the base: 1, the Judge his current weight (§15.14), the Drug dealer 1 plus
    the votes he bought today (§15.15)."""
    player = state.get(voter)
    if player.peaceful == "mason":
        return 0  # §17.2
    if state.is_role_blocked(voter):
        return 1
    if player.peaceful == "judge":
        return state.memory_of("judge").weight
    if player.peaceful == "drug_dealer":
        return 1 + state.memory_of("drug_dealer").bought
    return 1


def _witness_bonus(state: GameState, cast: Sequence[Ballot]) -> dict[str, int]:
    """§6.6 stage 2, §15.12: voter -> bonus from the Witness's vouches of today.

    Each vouched voter whose ballot names a player the Witness's ballot names gets +1, the
    Witness +1 per such voter (a hunt ballot of two names: any shared name, RULING).
    """
    witness = state.holder("witness")
    own = next((b for b in cast if witness and b.voter == witness.name and not b.auto), None)
    if witness is None or own is None or state.is_role_blocked(witness.name):
        return {}
    bonus: dict[str, int] = {}
    for ballot in cast:
        vouched = ballot.voter in state.today.vouched and ballot.voter != witness.name
        if vouched and not ballot.auto and set(ballot.targets) & set(own.targets):
            bonus[ballot.voter] = 1
            bonus[witness.name] = bonus.get(witness.name, 0) + 1
    return bonus


def _politician_bonus(state: GameState, cast: Sequence[Ballot]) -> dict[str, int]:
    """§6.6 stage 2, §15.1: voter -> the Politician's support bonus.

    Each supporter of today whose ballot names a player the Politician's ballot names gets +1,
    the Politician +1 per two of them; as Mayor he gets half his cap instead.  A Mayor whose
    ballot names the same player as the Politician's gets the whole support bonus of the vote.
    """
    holder = state.holder("politician")
    own = next((b for b in cast if holder and b.voter == holder.name and not b.auto), None)
    if holder is None or own is None or state.is_role_blocked(holder.name):
        return {}
    mayor = state.mayor_in_office()
    if holder.name == mayor:
        return {holder.name: state.memory_of("politician").support_cap // 2}
    backing = [
        b.voter
        for b in cast
        if b.voter in state.today.supporters
        and b.voter != holder.name
        and not b.auto
        and set(b.targets) & set(own.targets)
    ]
    bonus = dict.fromkeys(backing, 1)
    bonus[holder.name] = len(backing) // 2
    mayor_ballot = next((b for b in cast if b.voter == mayor and not b.auto), None)
    if mayor_ballot is not None and set(mayor_ballot.targets) & set(own.targets):
        bonus[mayor_ballot.voter] = (
            bonus.get(mayor_ballot.voter, 0) + len(backing) + len(backing) // 2
        )
    return bonus


def _zeroed(state: GameState, ballot: Ballot, target: str, cast: Sequence[Ballot]) -> bool:
    """§6.6 stage 4, §15.1: while a Mayor is in office and his ballot does not name the
    Politician, ballots against the Politician count 0; a Politician Mayor whose vertical names
    someone else shields his Secretary the same way."""
    holder = state.holder("politician")
    mayor = state.mayor_in_office()
    if holder is None or mayor is None or state.is_role_blocked(holder.name):
        return False
    mayor_ballot = next((b for b in cast if b.voter == mayor and not b.auto), None)
    mayor_names = mayor_ballot.targets if mayor_ballot is not None else ()
    if target == holder.name and holder.name != mayor:
        return target not in mayor_names
    secretary = state.secretary_in_office()
    if holder.name == mayor and target == secretary and state.today.vertical != secretary:
        return target not in mayor_names
    return False


@dataclass(frozen=True)
class Scandal:
    """The vote-time moves of one vote (§6.9): the Liar's scandal (§15.13: the players whose
    ballots count 0, a black Liar's at most 1, and whose barriers are off; a self-named Liar's
    barrier of 2; a black Liar's hidden ballots), and a black Advocate's `nobonus` (§15.9)."""

    liar: str = ""
    named: tuple[str, ...] = ()
    black: bool = False
    hidden: tuple[str, ...] = ()
    nobonus: bool = False
    forgiven: str | None = None


def collect(
    state: GameState, asked: Sequence[str], *, auto_votes: bool
) -> tuple[tuple[Ballot, ...], tuple[str, ...]]:
    """The ballots in force (arrival order), then the auto-votes of the asked who sent none
    (§6.5); an auto-vote against a player who may not be voted against today is no ballot (he is
    listed among the auto-voters only)."""
    cast = [Ballot(v.player, v.targets) for v in state.votes if v.group == "vote" and v.targets]
    voters = {v.player for v in state.votes if v.group == "vote"}
    auto: list[str] = []
    if auto_votes:
        for name in asked:
            if name not in voters and state.get(name).alive and not state.get(name).is_elite:
                auto.append(name)
                if status.may_be_lynched(state, name):
                    cast.append(Ballot(name, (name,), auto=True))
    return tuple(cast), tuple(auto)


def count(
    state: GameState, asked: Sequence[str], *, auto_votes: bool, plain: bool = False
) -> Count:
    """Collect and count a vote by §6.6 (``plain``: every ballot weighs 1, as at the election)."""
    cast, auto = collect(state, asked, auto_votes=auto_votes)
    return weigh(state, cast, auto, plain=plain)


def weigh(
    state: GameState,
    ballots: Sequence[Ballot],
    auto: tuple[str, ...],
    *,
    plain: bool = False,
    scandal: Scandal = Scandal(),
) -> Count:
    """Count ``ballots`` by §6.6 (``plain``: every ballot weighs 1).

    Stage 2: the Judge's weight, the Drug dealer's bought votes, the Witness's bonuses (an
    auto-vote weighs 1 fixed), then the reductions (a drugged voter at most 1, the Liar's
    scandal); stage 3: the red cap; stage 5: barriers; stage 6: the black cap, once a red was
    lynched.  Stage 4 (zeroing) has no source among the implemented roles.
    """
    cap = None if plain else black_cap(state)
    cast = [
        b if b.auto or plain else replace(b, weight=_base_weight(state, b.voter)) for b in ballots
    ]
    if not plain:
        bonus = _witness_bonus(state, cast)
        for voter, more in _politician_bonus(state, cast).items():
            bonus[voter] = bonus.get(voter, 0) + more
        cast = [replace(b, weight=b.weight + bonus.get(b.voter, 0)) for b in cast]
        cast = [
            replace(b, weight=min(b.weight, 1)) if b.voter in state.drugged else b for b in cast
        ]
        cast = [_scandalised(b, scandal) for b in cast]
        cast += [Ballot(scandal.liar, (name,), hidden=True) for name in scandal.hidden]
        if cap is not None:  # stage 3: the red cap
            cast = [
                b if not _is_red(state, b.voter) else replace(b, weight=min(b.weight, cap))
                for b in cast
            ]
    red: dict[str, float] = {}
    black: dict[str, float] = {}
    grey: dict[str, float] = {}

    def side_of(voter: str) -> dict[str, float]:
        player = state.get(voter)
        return black if player.is_black else grey if player.faceless else red

    advocated: list[tuple[Ballot, str, float]] = []
    for ballot in cast:
        side = side_of(ballot.voter)
        for target in ballot.targets:
            advocate = None if plain else _advocate_bonus(state, ballot, target, scandal)
            if advocate is not None:
                advocated.append((ballot, target, ballot.weight + advocate))
                side.setdefault(target, 0)
                continue
            weight = ballot.weight if plain else _against(state, ballot, target, cast, scandal)
            if not plain and (_zeroed(state, ballot, target, cast) or target == scandal.forgiven):
                weight = 0
            side[target] = side.get(target, 0) + weight
    seat = {p.name: i for i, p in enumerate(state.players)}
    named = sorted({*red, *black, *grey}, key=seat.__getitem__)
    if not plain:  # stage 5: barriers cancel black units first, then grey, then red
        for name in named:
            left: float = _barrier(state, name, cast, scandal)
            for units in (black, grey, red):
                cancel = min(left, units.get(name, 0))
                units[name] = units.get(name, 0) - cancel
                left -= cancel
    for ballot, target, weight in advocated:  # the target's barriers do not act on it (§15.9)
        side = side_of(ballot.voter)
        side[target] = side.get(target, 0) + weight
    capped = {n: min(black.get(n, 0), cap) if cap is not None else black.get(n, 0) for n in named}
    grey_cap = _grey_cap(state)
    dark = {
        n: min(capped[n] + grey.get(n, 0), grey_cap)
        if grey_cap is not None
        else capped[n] + grey.get(n, 0)
        for n in named
    }
    totals = {name: red.get(name, 0) + dark[name] for name in named}
    return Count(tuple(cast), totals, auto)


def _advocate_bonus(
    state: GameState, ballot: Ballot, target: str, scandal: Scandal
) -> float | None:
    """§15.9: the Advocate's ballot against a player he checked black (a black Advocate: any
    passed check) gets +1 (0 after a black Advocate's `nobonus`) and is untouched by that
    player's barriers; None for every other ballot."""
    voter = state.get(ballot.voter)
    if ballot.auto or voter.peaceful != "advocate" or state.is_role_blocked(voter.name):
        return None
    memory = state.memory_of("advocate")
    checked = memory.passed if voter.is_black else memory.passed_black
    if target not in checked:
        return None
    return 0 if scandal.nobonus else 1


def _scandalised(ballot: Ballot, scandal: Scandal) -> Ballot:
    """§15.13: a named voter's ballot counts 0 (a black Liar's scandal: at most 1); the Liar
    naming himself keeps his ballot (he gets a barrier instead)."""
    if ballot.voter not in scandal.named or ballot.voter == scandal.liar:
        return ballot
    return replace(ballot, weight=min(ballot.weight, 1) if scandal.black else 0)


def _barrier(
    state: GameState, target: str, cast: Sequence[Ballot], scandal: Scandal = Scandal()
) -> int:
    """§6.6 stage 5: the largest barrier of ``target`` (a drug dose, §15.15; the self-named
    Liar's 2, §15.13), or 0; a scandalised player's barriers are off; a black's barrier is
    ignored when every living red voted against him."""
    if target in scandal.named and target != scandal.liar:
        return 0
    barrier = state.drugged.get(target, 0)
    if target == scandal.liar and target in scandal.named:
        barrier = max(barrier, 2)
    player = state.get(target)
    if player.peaceful == "priest" and not state.is_role_blocked(target):
        barrier = max(barrier, state.memory_of("priest").priest_barrier)  # §15.11
    hero = player.peaceful == "hero" and not state.memory_of("hero").inherited
    if hero and not state.is_role_blocked(target):
        barrier = max(barrier, 1)  # the Hero's barrier at votes (§15.16)
    if barrier and not state.get(target).is_red:
        reds = {p.name for p in state.living if p.is_red}
        against = {b.voter for b in cast if target in b.targets}
        if reds and reds <= against:
            return 0
    return barrier


def _against(
    state: GameState, ballot: Ballot, target: str, cast: Sequence[Ballot], scandal: Scandal
) -> float:
    """A ballot's weight against a target with a barrier: at most 1 (a Judge above 3: 2); the
    Drug dealer's own bought votes are not capped by his drug barrier (§15.15)."""
    capped = _barrier(state, target, cast, scandal) or _zero_barrier(state, target, cast, scandal)
    if not capped or ballot.weight <= 1:
        return ballot.weight
    voter = state.get(ballot.voter)
    if voter.peaceful == "drug_dealer":
        return ballot.weight
    if voter.peaceful == "judge" and state.memory_of("judge").weight > 3:
        return min(ballot.weight, 2)
    return 1


def _zero_barrier(state: GameState, target: str, cast: Sequence[Ballot], scandal: Scandal) -> bool:
    """§15.1: the Politician's barrier of size 0 (only the per-ballot cap), off when scandalised
    or when every living red voted against a black Politician (§6.6 stage 5)."""
    player = state.get(target)
    if player.peaceful != "politician" or state.is_role_blocked(target):
        return False
    if target in scandal.named and target != scandal.liar:
        return False
    if player.is_black:
        reds = {p.name for p in state.living if p.is_red}
        if reds and reds <= {b.voter for b in cast if target in b.targets}:
            return False
    return True


def unanimous(state: GameState, result: Count) -> str | None:
    """§6.6 stage 7 override: the player against whom every other living player voted."""
    living = [p.name for p in state.living]
    for name in result.totals:
        others = [n for n in living if n != name]
        named_by = {b.voter for b in result.ballots if name in b.targets}
        if others and set(others) <= named_by:
            return name
    return None


def judged(state: GameState, result: Count) -> tuple[str, ...]:
    """The players the living Judge's ballot names in ``result`` (§15.14)."""
    judge = state.holder("judge")
    ballot = result.ballot_of(judge.name) if judge is not None else None
    return ballot.targets if ballot is not None and not ballot.auto else ()


def top(totals: Mapping[str, float]) -> tuple[str, ...]:
    """The players with the highest total above 0."""
    best = max(totals.values(), default=0)
    return tuple(name for name, total in totals.items() if total == best) if best > 0 else ()


def _team(state: GameState, name: str) -> Team:
    return state.get(name).team


def grey_tie_break(state: GameState, result: Count, pair: tuple[str, str]) -> str | None:
    """§6.7 point 2: the grey correction between exactly two tied players, or None."""
    red = [b for b in result.ballots if _team(state, b.voter) is Team.RED]
    dark = [b for b in result.ballots if _team(state, b.voter) is not Team.RED]
    for x, y in (pair, pair[::-1]):
        if red and all(b.targets == (x,) for b in red) and all(b.targets == (y,) for b in dark):
            return x
    reds, blacks = status.counts(state)
    faceless = sum(1 for p in state.living if p.faceless)
    if reds == blacks + faceless:
        weight = {name: sum(b.weight for b in red if name in b.targets) for name in pair}
        if weight[pair[0]] != weight[pair[1]]:
            return max(pair, key=lambda name: weight[name])
        firsts = [
            (index, name)
            for index, ballot in enumerate(result.ballots)
            if ballot in red
            for name in ballot.targets
            if name in pair
        ]
        if firsts:
            return min(firsts)[1]
    return None


def revote_result(state: GameState, result: Count, targets: tuple[str, ...]) -> tuple[str, ...]:
    """§6.7 point 4: who a revote lynches (a revote never leads to another)."""
    best = top(result.totals)
    if len(best) == 1:
        return best
    tied = best or targets
    if len(tied) == 2:
        pair = (tied[0], tied[1])
        chosen = grey_tie_break(state, result, pair)
        if chosen is not None:
            return (chosen,)
        return pair if status.counts(state)[1] > 2 else ()
    voted = sorted((result.first_ballot(name), name) for name in tied if name in result.totals)
    return tuple(name for _, name in voted[:2])


def hunt_ranked(state: GameState, result: Count) -> tuple[str, ...]:
    """§6.8: the two players a hunt lynches (the red correction first), higher-ranked first."""
    reds = {p.name for p in state.living if p.is_red}
    red_names = [set(b.targets) for b in result.ballots if b.voter in reds]
    qualified = [
        p.name
        for p in state.living
        if not p.is_red and len(red_names) == len(reds) and all(p.name in n for n in red_names)
    ]

    by_judge = judged(state, result)

    def rank(name: str) -> tuple[float, bool, int]:
        return (-result.totals.get(name, 0), name not in by_judge, result.first_ballot(name))

    chosen = sorted(qualified, key=rank)[:2]
    rest = sorted((n for n in result.totals if n not in chosen), key=rank)
    chosen += rest[: 2 - len(chosen)]
    return tuple(chosen)


def hunt_result(state: GameState, result: Count) -> tuple[str, ...]:
    """§6.8: the two players a hunt lynches, in seat order."""
    seat = {p.name: i for i, p in enumerate(state.players)}
    return tuple(sorted(hunt_ranked(state, result), key=seat.__getitem__))


def priest_forgives(state: GameState) -> str | None:
    """The player the Priest may forgive in the pending vote (§15.11): the other player his own
    ballot named, when he is alive and not blocked, the vote is no hunt and no priest revote, and
    the provisional result does not lynch him; else None."""
    priest = state.holder("priest")
    pending = state.today.pending
    if priest is None or pending is None or state.is_role_blocked(priest.name):
        return None
    if pending.kind == "hunt" or state.today.rescued is not None:
        return None
    own = next((b for b in pending.ballots if b.voter == priest.name and not b.auto), None)
    if own is None or own.targets[0] == priest.name:
        return None
    if priest.name in top(weigh(state, pending.ballots, pending.auto).totals):
        return None
    return own.targets[0]


def priest_may_forgive(state: GameState) -> bool:
    """Whether the Priest is asked in `vote_moves` (§15.11)."""
    return priest_forgives(state) is not None
