"""The Lupus ruleset ("Lupus in tempo reale", 7th edition): roles, steps, resolution, wins."""

from rules.lupus.ruleset import RULESET, LupusRuleset
from rules.lupus.state import GameState, Player

__all__ = ["RULESET", "GameState", "LupusRuleset", "Player"]
