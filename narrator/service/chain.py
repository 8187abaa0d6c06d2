"""A chain of named rules that decides what becomes of a mail, as Mailman 3's rules and chains.

Each :class:`Rule` has a name and a check: it looks at the mail being processed and returns a
:class:`Verdict`: *continue* (the next rule looks; it may carry letters to post now, and the
mail as this rule completed it), *ignore* (never answered), *answer* (with letters), or *hand
off* (the mail is a command: it is read and the game table handles it). :func:`walk` asks the
rules in their order, posts each verdict's letters as it comes, and records the rule that
decided and every rule that found something (Mailman's rule hits).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

from narrator.service.letters import Letter

M = TypeVar("M")


class Action(Enum):
    """What a rule decided."""

    CONTINUE = "continue"  # nothing decided: the next rule looks
    IGNORE = "ignore"  # never answered (the inbox row is ``ignored``)
    ANSWER = "answer"  # answered with the verdict's letters (the row is ``done``)
    HAND_OFF = "hand-off"  # a command: read it, and let the game table handle it


@dataclass(frozen=True)
class Verdict(Generic[M]):
    """A rule's verdict: its action, what was done (``Outcome.what``), the letters to post,
    and (continuing) the mail as the rule completed it (None: unchanged). A continuing verdict
    with `hit` set found something without deciding (the sender is over his reply limit)."""

    action: Action
    what: str = ""
    letters: tuple[Letter, ...] = ()
    mail: M | None = None
    hit: bool = False


# A rule that finds nothing says so with this verdict (immutable: one serves every rule).
NOTHING: Verdict[Any] = Verdict(Action.CONTINUE)


def go_on(
    mail: M | None = None, letters: Sequence[Letter] = (), *, hit: bool = False
) -> Verdict[M]:
    """A continuing verdict (one that carries nothing is the one constant :data:`NOTHING`)."""
    if mail is None and not letters and not hit:
        return NOTHING
    return Verdict(Action.CONTINUE, letters=tuple(letters), mail=mail, hit=hit)


@dataclass(frozen=True)
class Rule(Generic[M]):
    """A named check of the mail."""

    name: str
    check: Callable[[M], Verdict[M]]


@dataclass(frozen=True)
class Decision(Generic[M]):
    """The end of a walk: the deciding rule's `rule` name and `verdict`, the `mail` as the
    rules left it, and the names of every rule that found something (`hits`, in order)."""

    rule: str
    verdict: Verdict[M]
    mail: M
    hits: tuple[str, ...]


def walk(
    rules: Sequence[Rule[M]], mail: M, post: Callable[[Sequence[Letter]], object]
) -> Decision[M]:
    """Ask `rules` in order until one decides; `post` each verdict's letters as it comes.

    The last rule must decide (an inbox chain ends with the rule that hands the mail off).
    """
    hits: list[str] = []
    for rule in rules:
        verdict = rule.check(mail)
        if verdict.letters:
            post(verdict.letters)
        if verdict.mail is not None:
            mail = verdict.mail
        if verdict.action is Action.CONTINUE:
            if verdict.hit:
                hits.append(rule.name)
            continue
        hits.append(rule.name)
        return Decision(rule.name, verdict, mail, tuple(hits))
    raise ValueError("no rule of the chain decided")
