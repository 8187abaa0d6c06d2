"""The refusal codes every ruleset shares, and the vote check as a declared pipeline of stages.

A refused vote is a :class:`~rules.core.model.Rejected` value with a stable code: the scenario
transcripts show it (``rejected`` events) and each code has a sentence in every story pack's
``[errors]``, so the strings are a contract.  A ruleset's own codes (Wakkerdam's
``target-fluitspeler``, Lupus's ``power-taken``) stay in its own modules.

A ruleset checks a vote in two parts.  It first finds what the vote is for (the voter is asked,
``not-asked``; a keyword selects the action, ``no-special-vote``/``keyword-required``): that is
its own, as its actions are.  Then it puts the vote's names in a :class:`Ballot` and walks it
through its :data:`Pipeline`, declared once in its actions module: the core stages of this
module (``blank_with_names``, ``blank_allowed``, ``count``, ``duplicate``, ``required``,
``repeat``, ``taken``; per name ``unknown``, ``dead``, ``alive``, ``life``, ``exiled``,
``self_named``, ``not_in_targets``) and its own stages (Wakkerdam's potions, Lupus's power
word), in the order its rules tell them.  The per-name stages are walked name by name or check
by check (:func:`over_names`, :class:`Walk`); the first stage that refuses names the code.
A ruleset whose contract has its own word for a shared check wraps it (:func:`renamed`,
:func:`renamed_each`: Mafia's ``bad-name``).
:func:`check_vote` is both parts for a ruleset whose choices say everything (the example's).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from rules.core.model import ActionChoice, Choices, Rejected, Vote


class Refusal(enum.StrEnum):
    """A refusal code shared by the rulesets (its value is the code in transcripts and packs)."""

    NOT_ASKED = "not-asked"
    """The player may not vote now (not a player, not asked in this step, the game is over)."""
    NO_SPECIAL_VOTE = "no-special-vote"
    """The mail names a keyword the player has no vote for now."""
    KEYWORD_REQUIRED = "keyword-required"
    """The player's only votes now are keyword votes, and the mail names none."""
    KEYWORD_CONFLICT = "keyword-conflict"
    """The mail names keywords that exclude each other."""
    REQUIRED = "required"
    """The vote may not be blank."""
    WRONG_COUNT = "wrong-count"
    """Too few or too many names (or a blank vote with a name)."""
    UNKNOWN_PLAYER = "unknown-player"
    """A name is nobody's of this game."""
    DUPLICATE_TARGET = "duplicate-target"
    """The same name twice."""
    TARGET_DEAD = "target-dead"
    """A name of a dead player where a living one is asked."""
    TARGET_ALIVE = "target-alive"
    """A name of a living player where a dead one is asked."""
    TARGET_EXILED = "target-exiled"
    """A name of a player out of the game (Lupus's exiled)."""
    TARGET_SELF = "target-self"
    """The voter's own name where he may not name himself."""
    REPEAT = "repeat"
    """The same choice as last time, where a role may not repeat it."""
    TAKEN = "taken"
    """A name another player of the same action has taken already."""


class _Seat(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def alive(self) -> bool: ...


class Life(enum.Enum):
    """Whom one name of a vote may name: a living player, a dead one, or either."""

    LIVING = "living"
    DEAD = "dead"
    ANY = "any"


class Walk(enum.Enum):
    """How a pipeline walks the names of a vote through its per-name checks."""

    BY_NAME = "by-name"
    """Each name through every check, then the next name (the first bad name decides)."""
    BY_CHECK = "by-check"
    """Each check over every name, then the next check (the first failing check decides)."""


C = TypeVar("C")


@dataclass(frozen=True)
class Ballot(Generic[C]):
    """One vote under check: what the core stages read, and the ruleset's own ``context``
    (its state, voter and action) for the ruleset's own stages.

    ``names`` are the names as sent (``()``: blank); ``blanco`` is the mail's explicit blank
    word.  ``lives`` gives the :class:`Life` of each name by position (the last one stands for
    the rest).  ``targets`` (when given) are the only names allowed, else ``left_out``.
    ``previous`` is the choice a ``repeat`` may not give again (None: no such rule); ``taken``
    tells the names other voters of the same action hold (None: no such rule; called only when
    the vote names somebody).
    """

    voter: str
    names: tuple[str, ...]
    find: Callable[[str], _Seat | None]
    context: C
    blanco: bool = False
    min_names: int = 1
    max_names: int = 1
    blank_allowed: bool = True
    required: bool = False
    allow_self: bool = False
    lives: tuple[Life, ...] = (Life.LIVING,)
    exiled: frozenset[str] = frozenset()
    targets: tuple[str, ...] | None = None
    left_out: str = ""
    previous: tuple[str, ...] | None = None
    taken: Callable[[], Collection[str]] | None = None

    def canonical(self) -> tuple[str, ...]:
        """The names as the players are called (a name nobody has stays as sent)."""
        return tuple(_canonical(self, name) for name in self.names)

    def life(self, position: int) -> Life:
        """The :class:`Life` asked of the name at ``position``."""
        return self.lives[min(position, len(self.lives) - 1)]


Stage = Callable[[Ballot[C]], str]
"""A check of the whole vote: the refusal code, or ``""`` when it passes."""
NameStage = Callable[[Ballot[C], int, str], str]
"""A check of one name (its position and the name as sent): the refusal code, or ``""``."""


@dataclass(frozen=True)
class EachName(Generic[C]):
    """Per-name checks walked name by name: each name through ``stages`` in order."""

    stages: tuple[NameStage[C], ...]


Pipeline = tuple[Stage[C] | EachName[C], ...]
"""A ruleset's vote check: its stages in order; the first that refuses names the code."""


def over_names(walk: Walk, *stages: NameStage[C]) -> tuple[EachName[C], ...]:
    """The pipeline items walking the names through ``stages`` as ``walk`` says."""
    if walk is Walk.BY_NAME:
        return (EachName(stages),)
    return tuple(EachName((stage,)) for stage in stages)


def first_refusal(pipeline: Pipeline[C], ballot: Ballot[C]) -> str:
    """Walk ``ballot`` through ``pipeline``; return the first refusal code, or ``""``."""
    for item in pipeline:
        if isinstance(item, EachName):
            for position, name in enumerate(ballot.names):
                for stage in item.stages:
                    code = stage(ballot, position, name)
                    if code:
                        return code
        else:
            code = item(ballot)
            if code:
                return code
    return ""


def _canonical(ballot: Ballot[Any], name: str) -> str:
    seat = ballot.find(name)
    return name if seat is None else seat.name


# The core stages: whole-vote checks.


def blank_with_names(ballot: Ballot[Any]) -> str:
    """``wrong-count``: the blank word and a name together."""
    return Refusal.WRONG_COUNT if ballot.blanco and ballot.names else ""


def blank_allowed(ballot: Ballot[Any]) -> str:
    """``wrong-count``: a blank vote where names are needed."""
    return Refusal.WRONG_COUNT if not ballot.names and not ballot.blank_allowed else ""


def count(ballot: Ballot[Any]) -> str:
    """``wrong-count``: a vote naming fewer than ``min_names`` or more than ``max_names``."""
    if not ballot.names:
        return ""
    return "" if ballot.min_names <= len(ballot.names) <= ballot.max_names else Refusal.WRONG_COUNT


def duplicate(ballot: Ballot[Any]) -> str:
    """``duplicate-target``: the same player twice (a name nobody has: compared casefolded)."""
    keys = [
        seat.name if (seat := ballot.find(name)) is not None else name.casefold()
        for name in ballot.names
    ]
    return Refusal.DUPLICATE_TARGET if len(set(keys)) != len(keys) else ""


def repeat(ballot: Ballot[Any]) -> str:
    """``repeat``: the same choice as ``previous`` (names in any order; a blank repeats a
    blank)."""
    if ballot.previous is None:
        return ""
    return Refusal.REPEAT if tuple(sorted(ballot.canonical())) == ballot.previous else ""


def taken(ballot: Ballot[Any]) -> str:
    """``taken``: a name another voter of the same action holds already."""
    if ballot.taken is None or not ballot.names:
        return ""
    return Refusal.TAKEN if set(ballot.taken()) & set(ballot.canonical()) else ""


def required(ballot: Ballot[Any]) -> str:
    """``required``: a blank vote where the vote may not be blank."""
    return Refusal.REQUIRED if ballot.required and not ballot.names else ""


# The core stages: per-name checks (a name nobody has passes all but ``unknown``).


def unknown(ballot: Ballot[Any], _position: int, name: str) -> str:
    """``unknown-player``: a name nobody of this game has."""
    return Refusal.UNKNOWN_PLAYER if ballot.find(name) is None else ""


def dead(ballot: Ballot[Any], position: int, name: str) -> str:
    """``target-dead``: a dead player where a living one is asked."""
    seat = ballot.find(name)
    wrong = seat is not None and not seat.alive and ballot.life(position) is Life.LIVING
    return Refusal.TARGET_DEAD if wrong else ""


def alive(ballot: Ballot[Any], position: int, name: str) -> str:
    """``target-alive``: a living player where a dead one is asked."""
    seat = ballot.find(name)
    wrong = seat is not None and seat.alive and ballot.life(position) is Life.DEAD
    return Refusal.TARGET_ALIVE if wrong else ""


def life(ballot: Ballot[Any], position: int, name: str) -> str:
    """``target-dead`` or ``target-alive``: :func:`dead` and :func:`alive` as one check."""
    return dead(ballot, position, name) or alive(ballot, position, name)


def exiled(ballot: Ballot[Any], _position: int, name: str) -> str:
    """``target-exiled``: a player out of the game."""
    return Refusal.TARGET_EXILED if _canonical(ballot, name) in ballot.exiled else ""


def self_named(ballot: Ballot[Any], _position: int, name: str) -> str:
    """``target-self``: the voter's own name where he may not name himself."""
    seat = ballot.find(name)
    own = seat is not None and seat.name == ballot.voter and not ballot.allow_self
    return Refusal.TARGET_SELF if own else ""


def not_in_targets(ballot: Ballot[Any], _position: int, name: str) -> str:
    """The ruleset's ``left_out`` code: a name outside the action's ``targets``."""
    if ballot.targets is None or ballot.find(name) is None or name in ballot.targets:
        return ""
    return ballot.left_out


# The choices-driven check (a ruleset whose choices say everything, as the example's).


CHOICES_PIPELINE: Pipeline[ActionChoice] = (
    blank_allowed,
    count,
    *over_names(Walk.BY_NAME, unknown, dead, self_named, not_in_targets),
)
"""The vote check of :func:`check_vote`."""


def check_vote(
    choices: Choices,
    vote: Vote,
    find: Callable[[str], _Seat | None],
    *,
    left_out: str,
) -> tuple[ActionChoice, tuple[str, ...]] | Rejected:
    """Check ``vote`` against the voter's ``choices``; return the action it is for and its
    names (``()``: blank), or the refusal.

    First the voter must be asked (``not-asked``); a keyword selects the action that carries
    it (``no-special-vote`` when none does), else the first offered.  Then
    :data:`CHOICES_PIPELINE`: a blank must be allowed where names are asked, the number of
    names, and name by name: a player (``unknown-player``), living (``target-dead``), not the
    voter (``target-self``), and one of the action's targets, else the ruleset's code
    ``left_out`` (the example's ``pack-member``).  ``find`` returns the player of that exact
    name, or None.
    """
    offered = choices.actions
    if not offered:
        return Rejected(Refusal.NOT_ASKED, f"{vote.player} is not asked now")
    wanted = {word.casefold() for word in vote.keywords}
    action = next((a for a in offered if a.keyword is not None and a.keyword in wanted), None)
    if wanted and action is None:
        return Rejected(Refusal.NO_SPECIAL_VOTE, f"{vote.player} cannot vote {sorted(wanted)} now")
    action = action or offered[0]
    names = () if vote.is_blanco else vote.targets
    ballot = Ballot(
        voter=vote.player,
        names=names,
        find=find,
        context=action,
        min_names=action.min_names,
        max_names=action.max_names,
        blank_allowed=action.blanco or action.max_names == 0,
        targets=action.targets,
        left_out=left_out,
    )
    code = first_refusal(CHOICES_PIPELINE, ballot)
    if code:
        detail = "a name is needed" if not names else f"{vote.player}: {list(vote.targets)}"
        return Rejected(code, detail)
    return action, names


def renamed(code: str, stage: Stage[C]) -> Stage[C]:
    """``stage`` refusing with a ruleset's own ``code`` (Mafia's ``blank-not-allowed`` for
    :func:`blank_allowed`): the check is shared, the contract's word for it is not."""

    def check(ballot: Ballot[C]) -> str:
        return code if stage(ballot) else ""

    check.__name__ = f"{getattr(stage, '__name__', 'stage')}_as_{code}"
    return check


def renamed_each(code: str, stage: NameStage[C]) -> NameStage[C]:
    """The per-name ``stage`` refusing with a ruleset's own ``code`` (Mafia's ``bad-name`` for
    :func:`unknown`)."""

    def check(ballot: Ballot[C], position: int, name: str) -> str:
        return code if stage(ballot, position, name) else ""

    check.__name__ = f"{getattr(stage, '__name__', 'stage')}_as_{code}"
    return check
