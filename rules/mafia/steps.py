"""The Mafia order of play (§4, §6): the step table, who each step asks, and the options.

Apart from the engine (:mod:`rules.mafia.engine`, which resolves the steps) so that what only
reads a state (the ruleset's view and who is asked) loads no resolver.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.core.steps import StepSpec, StepTable
from rules.core.view import JsonValue
from rules.mafia import actions
from rules.mafia.ids import Close, Step
from rules.mafia.state import GameState

OPTIONS: Mapping[str, JsonValue] = {"mayor": True, "format": ""}
"""The ruleset's own settings (§3): the day-1 election, and the format ("" = by player count)."""

# Keys a distribution carries beside the settings (§11.1); they may reach the options unread.
DISTRIBUTION_KEYS: Mapping[str, JsonValue] = {"negative": None, "faceless": None, "elite": None}
_PHASES: Mapping[str, str] = {Step.NIGHT: "night"}
_VOTE_CLOSES: Mapping[str, str] = {
    Close.TIE: Step.REVOTE,
    Close.LAST_MOVES: Step.LAST_MOVES,
    Close.EXTRA: Step.EXTRA_VOTE,
    Close.DONE: Step.NIGHT,
}
_VOTE: Mapping[str, str] = {Close.MOVES: Step.VOTE_MOVES, **_VOTE_CLOSES}
_THEN: Mapping[Step, Mapping[str, str]] = {
    Step.ELECTION: {Close.TIE: Step.RUNOFF, Close.CHOOSE: Step.SECRETARY, Close.DONE: Step.NIGHT},
    Step.RUNOFF: {Close.CHOOSE: Step.SECRETARY, Close.DONE: Step.NIGHT},
    Step.SECRETARY: {Close.DONE: Step.NIGHT},
    Step.PRE_VOTE: {Close.HUNT: Step.HUNT, Close.DONE: Step.LYNCH},
    Step.LYNCH: _VOTE,
    Step.HUNT: _VOTE,
    Step.REVOTE: _VOTE,
    Step.VOTE_MOVES: _VOTE_CLOSES,  # the result of the vote they wait for (§6.9)
    Step.LAST_MOVES: {Close.EXTRA: Step.EXTRA_VOTE, Close.DONE: Step.NIGHT},
    Step.EXTRA_VOTE: _VOTE,
    Step.NIGHT: {Close.DONE: Step.PRE_VOTE},
}
"""How each step goes on (§4, §6): a step's resolver tells only how it closed (:class:`Close`);
a vote may come back to a revote, to the vote-time moves, or to the extra vote."""
STEP_TABLE: StepTable[GameState] = StepTable(
    tuple(
        StepSpec(
            step.value,
            _PHASES.get(step, "day"),
            actions.asked,
            then=MappingProxyType({str(close): str(to) for close, to in _THEN[step].items()}),
        )
        for step in Step
    )
)
