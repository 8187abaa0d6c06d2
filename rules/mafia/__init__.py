"""The Mafia ruleset (seed 004, docs/rules/mafia.md): exposes ``RULESET``."""

from rules.mafia.ruleset import RULESET

__all__ = ["RULESET"]
