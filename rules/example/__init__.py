"""The example ruleset: a living template for a new ruleset (3 roles, day first, Italian words).

Copy this folder to start a ruleset of your own; docs/dev/adding-a-ruleset.md walks through it.
"""

from rules.example.ruleset import RULESET, ExampleRuleset
from rules.example.state import GameState, Player

__all__ = ["RULESET", "ExampleRuleset", "GameState", "Player"]
