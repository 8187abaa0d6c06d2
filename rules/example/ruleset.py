"""The example ruleset object: only what differs from the base (rules/core/base.py)."""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.base import RulesetBase, override
from rules.core.ruleset import Ruleset
from rules.core.view import GameView, seat_view
from rules.example import distributions, engine, state
from rules.example.events import EVENT_TYPES
from rules.example.roles import LUPI, LUPO, ROLES, VILLAGGIO
from rules.example.state import GameState


class ExampleRuleset(RulesetBase[GameState]):
    """The example: wolves, a seer and villagers, day first (docs/rules/example.md)."""

    id = "example"
    roles = ROLES
    step_table = engine.STEP_TABLE
    causes = ("lupi", "rogo", "inattivita")
    teams = (VILLAGGIO, LUPI)
    keywords = engine.KEYWORDS
    action_kinds = engine.ACTION_KINDS
    event_types = EVENT_TYPES
    distributions = distributions.DEFAULT_DISTRIBUTIONS
    new_game = staticmethod(engine.new_game)
    choices = staticmethod(engine.choices)
    apply = staticmethod(engine.apply_vote)
    resolve = staticmethod(engine.resolve)
    codec = state.CODEC

    @override
    def view(self, state: GameState) -> GameView:
        """What the rest of the program may read of ``state``."""
        return GameView(
            step=state.step,
            phase=engine.STEP_TABLE.get(state.step).phase if state.step else None,
            night=state.night,
            day=state.day,
            over=state.is_over,
            winners=state.winners,
            teams=state.teams,
            players=tuple(
                seat_view(p.name, p.alive, p.role, ROLES[p.role].team, p.missed)
                for p in state.players
            ),
            votes=state.votes,
        )

    @override
    def known_mates(self, state: GameState) -> Mapping[str, tuple[str, ...]]:
        """The wolves know each other."""
        wolves = tuple(p.name for p in state.players if p.role == LUPO.id)
        return {name: tuple(w for w in wolves if w != name) for name in wolves}


RULESET: Ruleset[GameState] = ExampleRuleset()  # typed: mypy checks the whole Protocol
