"""Declarative pieces of the vampiri role specs: teams, categories, and the votes roles cast."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Team(enum.StrEnum):
    """The three sides (docs/rules/vampiri.md, "Teams")."""

    VAMPIRI = "vampiri"
    CACCIATORI = "cacciatori"
    LUPI_MANNARI = "lupi_mannari"


class Category(enum.StrEnum):
    """The investigation categories: the seed's five Moderator cards."""

    VAMPIRO = "vampiro"
    VAMPIRO_MAGGIORE = "vampiro_maggiore"
    CACCIATORE = "cacciatore"
    CACCIATORE_MAGGIORE = "cacciatore_maggiore"
    LUPO_MANNARO = "lupo_mannaro"


class Effect(enum.StrEnum):
    """What a vote does when it is resolved."""

    APPROVE = "approve"
    ABSTAIN = "abstain"
    CONDEMN = "condanna"
    SPARE = "risparmia"
    BLOCK = "block"
    KILL = "kill"
    PROTECT = "protect"
    INVESTIGATE = "investigate"
    SILENCE = "silence"
    AMBUSH = "agguato"
    HUNT = "hunt"


@dataclass(frozen=True)
class Option:
    """One way to fill a vote slot.

    ``keyword`` selects the option and names its vote key (``Name:keyword``); None is the plain
    vote (key ``Name``).  ``also`` are keywords that select a plain option too (a Cacciatore's
    optional ``caccia``).  ``min_names`` is how many names the option needs once selected by
    its keyword (``visita`` without a name is ``wrong-count``); ``names_need_keyword`` marks a
    plain option that may carry no names because the names belong to a keyword (``decisione``).
    """

    action: str
    effect: Effect
    keyword: str | None = None
    also: frozenset[str] = frozenset()
    min_names: int = 0
    max_names: int = 1
    names_need_keyword: bool = False


@dataclass(frozen=True)
class Slot:
    """One vote a player is asked for: its options replace each other (one is in force).

    ``must``: an explicit blank is refused with ``required`` (the "must" column of the role
    table); a slot with no plain option refuses a bare name with ``keyword-required``.
    """

    id: str
    options: tuple[Option, ...]
    must: bool = False

    @property
    def plain(self) -> Option | None:
        """The option a vote without keyword selects, if any."""
        for option in self.options:
            if option.keyword is None:
                return option
        return None


def single(action: str, effect: Effect, *, must: bool) -> Slot:
    """Return the slot of a one-name day ability (blank allowed unless ``must``)."""
    return Slot(id=action, options=(Option(action=action, effect=effect),), must=must)


HUNT_PLAIN = Slot(
    id="caccia",
    options=(Option(action="caccia", effect=Effect.HUNT, also=frozenset({"caccia"})),),
)
"""The hunters' vote of a Cacciatore or Leader: a plain vote, ``caccia`` optional."""

HUNT_KEYWORD = Slot(
    id="caccia",
    options=(Option(action="caccia", effect=Effect.HUNT, keyword="caccia"),),
)
"""The hunters' vote of a Major Hunter with another ability: ``caccia`` selects it."""
