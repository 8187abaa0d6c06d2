"""Step tables: one ordered table of steps, each with its "who is asked" rule and its successors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, TypeVar

S = TypeVar("S")

DONE = "done"
"""The outcome of a step that closed the ordinary way: play goes on with its successor."""


@dataclass(frozen=True)
class StepSpec(Generic[S]):
    """One step of a ruleset's sequence.

    ``phase`` groups steps (e.g. ``start``, ``night``, ``day``); ``asked`` returns the players
    asked to act in this step, in seat order, for a state that is at this step.  A ``once`` step
    is played only at the start of the game; a ``repeats`` step is played again while somebody
    is still asked after it (e.g. the dead acting one after another).

    ``then`` maps the outcomes a step may close with to the step played next (e.g. a tie
    → a revote).  :data:`DONE`, unless ``then`` names it, goes on in table order, so a linear
    ruleset leaves ``then`` empty; any other outcome must be named there.
    """

    id: str
    phase: str
    asked: Callable[[S], tuple[str, ...]]
    once: bool = False
    repeats: bool = False
    then: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)


@dataclass(frozen=True)
class StepTable(Generic[S]):
    """The ordered steps of a ruleset; the order is the order of play within a phase, unless a
    step's ``then`` names another successor for an outcome."""

    steps: Sequence[StepSpec[S]]

    def __post_init__(self) -> None:
        ids = self.ids()
        if len(set(ids)) != len(ids):
            raise ValueError(f"a step id appears twice in {ids}")
        for spec in self.steps:
            unknown = [target for target in spec.then.values() if target not in ids]
            if unknown:
                raise ValueError(f"step {spec.id!r} goes on to unknown steps {unknown}")

    def ids(self) -> tuple[str, ...]:
        """Return the step ids in table order."""
        return tuple(spec.id for spec in self.steps)

    def get(self, step_id: str) -> StepSpec[S]:
        """Return the step with this id; raises KeyError when there is none."""
        for spec in self.steps:
            if spec.id == step_id:
                return spec
        raise KeyError(step_id)

    def after(self, step_id: str) -> StepSpec[S] | None:
        """Return the step that follows ``step_id`` in the table, or None after the last."""
        ids = self.ids()
        index = ids.index(step_id)
        return self.steps[index + 1] if index + 1 < len(ids) else None

    def following(self, step_id: str | None, outcome: str = DONE) -> StepSpec[S]:
        """Return the step played after ``step_id`` closed with ``outcome`` (None: the game's
        first step).

        The step's ``then`` names the successor of each outcome it lists; :data:`DONE`, unless
        listed, goes on in table order, and after the table's last step play goes on with its
        first step that is not ``once`` (once-steps, such as a start phase, are played only at
        the start).  Raises KeyError for an unknown step and ValueError for an outcome the step
        does not list or a table of once-steps only.
        """
        if step_id is None:
            return self.steps[0]
        successor = self.get(step_id).then.get(outcome)
        if successor is not None:
            return self.get(successor)
        if outcome != DONE:
            raise ValueError(f"step {step_id!r} names no step after the outcome {outcome!r}")
        following = self.after(step_id)
        if following is not None:
            return following
        for spec in self.steps:
            if not spec.once:
                return spec
        raise ValueError("every step of the table is played once: the game cannot go on")

    def first_of(self, phase: str) -> StepSpec[S]:
        """Return the first step of ``phase``; raises KeyError when the phase has none."""
        for spec in self.steps:
            if spec.phase == phase:
                return spec
        raise KeyError(phase)
