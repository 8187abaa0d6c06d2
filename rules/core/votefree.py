"""A state's views that depend on no vote, shared by the states that differ in their votes only
(a vote's new state holds its table by identity): the part every ruleset's table has."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from functools import cached_property
from operator import attrgetter, is_
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from rules.core.records import is_plain_record, made


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class _Seated(Protocol):
    @property
    def players(self) -> tuple[_Named, ...]: ...


S = TypeVar("S", bound=_Seated)
T = TypeVar("T")


def copy_with(state: T, **changes: object) -> T:
    """``dataclasses.replace(state, **changes)`` for a frozen state (a vote's new state: other
    ``votes``, and where the ruleset has one the vote-free ``table`` it shares): the other
    fields are the same objects.

    The copy is made as the codec makes a record (:func:`rules.core.records.made`), not by
    ``replace``, whose ``__init__`` sets a frozen state's 25 fields one by one (a third of a
    vote's validation in a game of 50).  Only the dataclass fields are copied: a
    ``cached_property`` of the old state (its ``views``) is not carried over.  A class that is
    no plain record (:func:`rules.core.records.is_plain_record`), or a change that names no
    field, goes to ``replace`` (which raises the TypeError of an unknown field).
    """
    kind = type(state)
    fields_of_kind = kind.__dataclass_fields__  # type: ignore[attr-defined]
    if not is_plain_record(kind) or not fields_of_kind.keys() >= changes.keys():
        return replace(state, **changes)  # type: ignore[type-var]
    values = {name: value for name, value in vars(state).items() if name in fields_of_kind}
    values.update(changes)
    return made(kind, values)


def vote_free_getter(state_class: type) -> Callable[[Any], tuple[object, ...]]:
    """The values of a state's fields that its vote-free views depend on (all but ``votes``
    and the ``table`` itself), in a tuple."""
    names = [spec.name for spec in fields(state_class) if spec.name not in {"votes", "table"}]
    return attrgetter(*names)


@dataclass(frozen=True, eq=False)  # one table, shared by identity
class VoteFreeViews(Generic[S]):
    """The views of a state that depend on no vote, computed at most once (each on first use)
    for all the states that differ only in their votes: a vote's new state holds the same
    table (its ``with_votes``), by identity.  A ruleset's table adds its own views and says
    which fields they depend on (:attr:`FIELDS`, from :func:`vote_free_getter`).

    ``state`` is the state the table was built for; its votes are never read.
    """

    FIELDS: ClassVar[Callable[[Any], tuple[object, ...]]]
    state: S

    @cached_property
    def key(self) -> tuple[object, ...]:
        """The values of :attr:`state`'s fields that the views depend on (all but the votes)."""
        return tuple(type(self).FIELDS(self.state))

    def fits(self, other: S) -> bool:
        """Whether ``other`` differs from :attr:`state` in its votes only (field by field,
        by identity: a state built anew gets a table of its own)."""
        return self.state is other or all(map(is_, self.key, type(self).FIELDS(other)))

    @cached_property
    def index(self) -> Mapping[str, int]:
        """Player name -> seat number."""
        return {player.name: seat for seat, player in enumerate(self.state.players)}

    @cached_property
    def folded_names(self) -> Mapping[str, str]:
        """Case-folded name -> canonical name."""
        return {player.name.casefold(): player.name for player in self.state.players}
