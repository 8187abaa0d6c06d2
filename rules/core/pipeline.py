"""Resolution as a declared pipeline of pure stages, each adding lines to a trace."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

C = TypeVar("C")


@dataclass(frozen=True)
class Stage(Generic[C]):
    """One named stage: a pure function from a context to a new context plus trace lines."""

    name: str
    run: Callable[[C], tuple[C, Sequence[str]]]


def run_pipeline(stages: Sequence[Stage[C]], context: C) -> tuple[C, tuple[str, ...]]:
    """Run ``stages`` in order; return the final context and the trace (``stage: line``)."""
    trace: list[str] = []
    for stage in stages:
        context, lines = stage.run(context)
        trace.extend(f"{stage.name}: {line}" for line in lines)
    return context, tuple(trace)
