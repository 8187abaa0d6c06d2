"""The vampiri order of play: the step table, who each step asks, the options and the causes.

Apart from the engine (:mod:`rules.vampiri.engine`, which resolves the steps) so that what only
reads a state (the ruleset's view and who is asked) loads no resolver.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.steps import StepSpec, StepTable
from rules.core.view import JsonValue
from rules.vampiri.actions import asked
from rules.vampiri.state import GameState

STEP_TABLE: StepTable[GameState] = StepTable(
    (
        StepSpec("votazione", "night", asked),
        StepSpec("spareggio", "night", asked),
        StepSpec("decisione", "night", asked),
        StepSpec("giorno", "day", asked),
    )
)
"""The order of play (docs/rules/vampiri.md, "Sequence of steps")."""

OPTIONS: Mapping[str, JsonValue] = {
    "mayor": False,
    "secret_vote": False,
    "tourist_hunters": False,
    "lone_hunter": False,
    "wolf_den": False,
    "undercover": False,
    "secret_lord": False,
    "secret_werewolf": False,
}
"""The ruleset's own settings and their defaults.  ``mayor`` exists only to be refused when
true; ``secret_lord``/``secret_werewolf`` come with a distribution that draws the Lord or the
werewolf at the deal (the start mail then names only "Signore dei Vampiri"/"Lupo Mannaro")."""

GIUSTIZIATO, UCCISO, INATTIVITA, RIMOSSO = "giustiziato", "ucciso", "inattivita", "rimosso"
CAUSES = (GIUSTIZIATO, UCCISO, INATTIVITA, RIMOSSO)
