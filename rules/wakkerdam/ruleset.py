"""The Wakkerdam ruleset object: the public entry points (see docs/dev/contracts.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from rules.core.base import RulesetBase, override
from rules.core.model import Choices, Distribution
from rules.core.ruleset import Ruleset
from rules.core.view import GameView, SeatView
from rules.wakkerdam import actions, distributions, engine, removal, state
from rules.wakkerdam.events import EVENT_TYPES
from rules.wakkerdam.roles import CIRCLES, ROLES
from rules.wakkerdam.state import GameState
from rules.wakkerdam.wins import TEAM_ORDER, team_of

# Roles a player is told he has instead of his own (spec: the Dwaas believes he is the Ziener).
TOLD_AS: Mapping[str, str] = {"dwaas": "ziener"}

CAUSES = (
    "weerwolven",
    "vampiers",
    "psychopaat",
    "witte_weerwolf",
    "gif",
    "jager",
    "brandstapel",
    "liefdesverdriet",
    "lijfwacht",
    "inactiviteit",
    "verwijderd",
)


class WakkerdamRuleset(RulesetBase[GameState]):
    """The rules of "Weerwolven over de Mail" (docs/rules/wakkerdam.md)."""

    id = "wakkerdam"
    roles = ROLES
    step_table = engine.STEP_TABLE
    causes = CAUSES
    teams = TEAM_ORDER
    keywords = actions.KEYWORD_ORDER
    action_kinds = actions.ACTION_KINDS
    options = engine.OPTIONS
    event_types = EVENT_TYPES
    story_facts = MappingProxyType(
        {
            "death": ("role",),
            "role_change": ("previous", "mates"),
            "lynch": ("votes", "marked", "mayor"),
            "mayor": ("votes",),
            "no_mayor": ("votes",),
        }
    )
    distributions = distributions.DEFAULT_DISTRIBUTIONS
    told_as = TOLD_AS  # a thief or grave robber who takes the Dwaas's role is told Ziener too
    new_game = staticmethod(engine.new_game)
    apply = staticmethod(actions.apply_vote)
    resolve = staticmethod(engine.resolve)
    remove = staticmethod(removal.remove)
    codec = state.CODEC

    @override
    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return a distribution for ``n_players`` chosen by ``seed`` (a generated one when no
        built-in fits).  Raises ValueError outside 3..1000 players."""
        return distributions.pick_distribution(n_players, seed, extra)

    @override
    def view(self, state: GameState) -> GameView:
        """Return the typed view of ``state``: step and phase, players, the mayor."""
        step = state.step
        return GameView(
            step=step,
            phase=engine.STEP_TABLE.get(step).phase if step is not None else None,
            night=state.night,
            day=state.day,
            over=state.is_over,
            winners=state.winners,
            teams=state.teams,
            players=tuple(
                SeatView(
                    name=player.name,
                    alive=player.alive,
                    role=player.role,
                    team=team_of(player),
                    missed=player.missed,
                    revealed=player.fool_revealed,
                )
                for player in state.players
            ),
            votes=state.votes,
            # the raven's marks for the next lynch are public (the `marked` events), so a
            # story may tell them beside the lynch's totals
            facts={
                "mayor": state.mayor,
                "has_mayor": state.has_mayor,
                "marked": list(state.marked),
            },
        )

    @override
    def choices(self, state: GameState, player: str) -> Choices:
        """Return what ``player`` may send now (empty ``actions`` when he is not asked)."""
        return actions.choices(state, player)

    @override
    def asked(self, state: GameState) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        return actions.asked(state)

    @override
    def known_mates(self, state: GameState) -> Mapping[str, tuple[str, ...]]:
        """Player -> the members of every circle his role belongs to (§10), himself aside."""
        members: dict[str, list[str]] = {}  # circle -> its players, in seat order
        for player in state.players:
            for circle, roles in CIRCLES.items():
                if player.role in roles:
                    members.setdefault(circle, []).append(player.name)
        known: dict[str, tuple[str, ...]] = {}
        for player in state.players:
            names = [n for c, roles in CIRCLES.items() if player.role in roles for n in members[c]]
            known[player.name] = tuple(n for n in names if n != player.name)
        return known


RULESET: Ruleset[GameState] = WakkerdamRuleset()  # typed: mypy checks the whole Protocol
