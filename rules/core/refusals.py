"""The refusal codes every ruleset shares, and the one vote check against a player's choices.

A refused vote is a :class:`~rules.core.model.Rejected` value with a stable code: the scenario
transcripts show it (``rejected`` events) and each code has a sentence in every story pack's
``[errors]``, so the strings are a contract.  A ruleset's own codes (Wakkerdam's
``target-fluitspeler``, Lupus's ``power-taken``) stay in its own modules.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Protocol

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


def check_vote(
    choices: Choices,
    vote: Vote,
    find: Callable[[str], _Seat | None],
    *,
    left_out: str,
) -> tuple[ActionChoice, tuple[str, ...]] | Rejected:
    """Check ``vote`` against the voter's ``choices``; return the action it is for and its
    names (``()``: blank), or the refusal.

    In order: the voter must be asked (``not-asked``); a keyword selects the action that
    carries it (``no-special-vote`` when none does), else the first offered; a blank vote must
    be allowed where names are asked (``wrong-count``); then the number of names
    (``wrong-count``) and each name: a player (``unknown-player``), living
    (``target-dead``), not the voter (``target-self``), and one of the action's targets, else
    the ruleset's code ``left_out`` (the example's ``pack-member``: the only living name left
    out of a list is a fellow wolf).  ``find`` returns the player of that exact name, or None.
    """
    offered = choices.actions
    if not offered:
        return Rejected(Refusal.NOT_ASKED, f"{vote.player} is not asked now")
    wanted = {word.casefold() for word in vote.keywords}
    action = next((a for a in offered if a.keyword is not None and a.keyword in wanted), None)
    if wanted and action is None:
        return Rejected(Refusal.NO_SPECIAL_VOTE, f"{vote.player} cannot vote {sorted(wanted)} now")
    action = action or offered[0]
    if vote.is_blanco and action.max_names > 0:
        if not action.blanco:
            return Rejected(Refusal.WRONG_COUNT, "a name is needed")
        return action, ()
    code = _names_error(action, vote, find, left_out)
    if code:
        return Rejected(code, f"{vote.player}: {list(vote.targets)}")
    return action, () if vote.is_blanco else vote.targets


def _names_error(
    action: ActionChoice, vote: Vote, find: Callable[[str], _Seat | None], left_out: str
) -> str:
    if not action.min_names <= len(vote.targets) <= action.max_names:
        return Refusal.WRONG_COUNT
    for name in vote.targets:
        target = find(name)
        if target is None:
            return Refusal.UNKNOWN_PLAYER
        if not target.alive:
            return Refusal.TARGET_DEAD
        if name == vote.player:
            return Refusal.TARGET_SELF
        if name not in action.targets:
            return left_out
    return ""
