"""The Lupus order of play (§4): the step table, who each step asks, and the options.

Apart from the engine (:mod:`rules.lupus.engine`, which resolves the steps) so that what only
reads a state (the ruleset's view and who is asked) loads no resolver.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.core.steps import StepSpec, StepTable
from rules.core.view import JsonValue
from rules.lupus.actions import asked
from rules.lupus.ids import GIORNO, NOTTE
from rules.lupus.state import GameState

OPTIONS: Mapping[str, JsonValue] = MappingProxyType({"mayor": True, "sindaco": None})
"""The ruleset's own settings and a new game's defaults (a settings without ``mayor`` has no
Sindaco, as a scenario file without the key; the daemon writes the default ``True``)."""

STEP_TABLE: StepTable[GameState] = StepTable(
    (
        StepSpec(NOTTE, "night", asked),  # §4: night n precedes day n
        StepSpec(GIORNO, "day", asked),
    )
)
"""The order of play (§4); a step in which nobody is asked is resolved at once."""
