"""The Wakkerdam order of play (spec §3): the step table, who each step asks, and the options.

Apart from the engine (:mod:`rules.wakkerdam.engine`, which resolves the steps) so that what
only reads a state (the ruleset's view and who is asked) loads no resolver.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.steps import StepSpec, StepTable
from rules.core.view import JsonValue
from rules.wakkerdam.actions import asked
from rules.wakkerdam.state import GameState

STEP_TABLE: StepTable[GameState] = StepTable(
    (
        StepSpec("dief", "start", asked, once=True),
        StepSpec("cupido", "start", asked, once=True),
        StepSpec("opdrachtgever", "start", asked, once=True),
        StepSpec("grafrover", "night", asked),
        StepSpec("klaas_vaak", "night", asked),
        StepSpec("nacht", "night", asked),
        StepSpec("heks", "night", asked),
        StepSpec("ochtend", "night", asked),
        StepSpec("doden", "night", asked, repeats=True),
        StepSpec("burgemeesterverkiezing", "night", asked),
        StepSpec("brandstapel", "day", asked),
        StepSpec("na_brandstapel", "day", asked, repeats=True),
    )
)
"""The order of play (spec §3), which drives the game: after the last step play goes on with
the first that is not ``once`` (a new night).  ``asked`` (actions.asked) holds each step's "who
is asked" rule, one branch per step in :func:`rules.wakkerdam.actions.actions_for`; what entering
a step changes is in :func:`rules.wakkerdam.engine._enter`."""

OPTIONS: Mapping[str, JsonValue] = {"mayor": True}
"""The ruleset's own settings and a new game's defaults (a state without ``mayor`` has none):
``mayor`` plays the mayor's election (``burgemeesterverkiezing``)."""
