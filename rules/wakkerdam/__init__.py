"""The Wakkerdam ruleset ("Weerwolven over de Mail", 2013): 28 roles, steps, resolution, wins."""

from rules.wakkerdam.ruleset import RULESET, WakkerdamRuleset
from rules.wakkerdam.state import GameState, Player

__all__ = ["RULESET", "GameState", "Player", "WakkerdamRuleset"]
