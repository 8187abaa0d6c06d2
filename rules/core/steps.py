"""Step tables: one ordered table of steps, each with its "who is asked" rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S")


@dataclass(frozen=True)
class StepSpec(Generic[S]):
    """One step of a ruleset's sequence.

    ``phase`` groups steps (e.g. ``start``, ``night``, ``day``); ``asked`` returns the players
    asked to act in this step, in seat order, for a state that is at this step.  A ``once`` step
    is played only at the start of the game; a ``repeats`` step is played again while somebody
    is still asked after it (e.g. the dead acting one after another).
    """

    id: str
    phase: str
    asked: Callable[[S], tuple[str, ...]]
    once: bool = False
    repeats: bool = False


@dataclass(frozen=True)
class StepTable(Generic[S]):
    """The ordered steps of a ruleset; the order is the order of play within a phase."""

    steps: Sequence[StepSpec[S]]

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

    def following(self, step_id: str | None) -> StepSpec[S]:
        """Return the step played after ``step_id`` (None: the game's first step).

        The table is the order of play: after its last step play goes on with its first step
        that is not ``once`` (once-steps, such as a start phase, are played only at the start).
        Raises KeyError for an unknown step and ValueError for a table of once-steps only.
        """
        if step_id is None:
            return self.steps[0]
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
