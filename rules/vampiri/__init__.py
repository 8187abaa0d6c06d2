"""The vampiri ruleset (La Notte dei Vampiri): 15 roles, night vote, day pipeline, wins."""

from rules.vampiri.ruleset import RULESET, VampiriRuleset
from rules.vampiri.state import GameState, Player

__all__ = ["RULESET", "GameState", "Player", "VampiriRuleset"]
