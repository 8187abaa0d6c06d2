"""What the story-pack tests (``tests/stories/test_*_pack*.py``) share: the helpers a pack's
templates see, and the sample moves a step mail offers without asking for them yet."""

from __future__ import annotations

import random
from typing import Any

from stories.helpers import Helpers
from stories.samples import sample_players
from stories.words import load_words


def pack_helpers(ruleset: str, language: str) -> Helpers:
    """The template helpers of a pack, over its sample players (``helpers.choice("doctor")``)."""
    return Helpers(load_words(ruleset, language), sample_players(ruleset), random.Random(0))


def not_yet(action: Any) -> bool:
    """A move the step mail names but tells the player not to send yet: a Mafia Investigator's
    shot while a Commissar or a Detective lives (one sent now is refused, ``not-now``)."""
    extra = action.extra or {}
    return action.kind == "kill" and extra.get("role") == "investigator" and not extra.get("now")
