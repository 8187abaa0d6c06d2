"""The Wakkerdam ruleset object: the public entry points (see docs/dev/contracts.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from rules.core.base import RulesetBase, override
from rules.core.model import Choices, Distribution, Resolution, Seat, Settings
from rules.core.ruleset import Ruleset
from rules.core.view import GameView, seat_view
from rules.wakkerdam import actions, state
from rules.wakkerdam.roles import CIRCLES, ROLES
from rules.wakkerdam.state import GameState
from rules.wakkerdam.steps import OPTIONS, STEP_TABLE
from rules.wakkerdam.wins import TEAM_ORDER

if TYPE_CHECKING:
    from rules.core.events import Event

# Each role's team (`team_of` a player of that role), read for every seat of a view.
_TEAM_OF_ROLE: Mapping[str, str] = MappingProxyType(
    {role: str(spec.team) for role, spec in ROLES.items()}
)

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
    """The rules of "Weerwolven over de Mail" (docs/rules/wakkerdam.md).

    What reads a state (its view, who is asked, its stored form) loads the step table, the
    actions and the state; the engine that resolves steps, the events, the removal and the
    built-in distributions are imported by the members that use them, so that a command that
    only shows a game (``narrator game show``) does not load them.
    """

    id = "wakkerdam"
    roles = ROLES
    step_table = STEP_TABLE
    causes = CAUSES
    teams = TEAM_ORDER
    keywords = actions.KEYWORD_ORDER
    action_kinds = actions.ACTION_KINDS
    options = OPTIONS
    story_facts = MappingProxyType(
        {
            "death": ("role",),
            "role_change": ("previous", "mates"),
            "lynch": ("votes", "marked", "mayor"),
            "mayor": ("votes",),
            "no_mayor": ("votes",),
        }
    )
    told_as = TOLD_AS  # a thief or grave robber who takes the Dwaas's role is told Ziener too
    apply = staticmethod(actions.apply_vote)
    codec = state.CODEC

    @property
    @override
    def event_types(self) -> Mapping[str, type[Event]]:
        """Transcript event type -> its class, for every event the ruleset emits."""
        from rules.wakkerdam.events import EVENT_TYPES

        return EVENT_TYPES

    @property
    @override
    def distributions(self) -> tuple[Distribution, ...]:
        """The built-in role distributions."""
        from rules.wakkerdam.distributions import DEFAULT_DISTRIBUTIONS

        return DEFAULT_DISTRIBUTIONS

    @override
    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return a distribution for ``n_players`` chosen by ``seed`` (a generated one when no
        built-in fits).  Raises ValueError outside 3..1000 players."""
        from rules.wakkerdam.distributions import pick_distribution

        return pick_distribution(n_players, seed, extra)

    @override
    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Return the state of a new game at its first step that has someone asked (ValueError
        on bad seats or settings)."""
        from rules.wakkerdam.engine import new_game

        return new_game(seats, settings)

    @override
    def resolve(self, state: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        from rules.wakkerdam.engine import resolve

        return resolve(state)

    @override
    def remove(self, state: GameState, name: str) -> Resolution[GameState]:
        """Take ``name`` out of the game: a death by removal, with what follows from it."""
        from rules.wakkerdam.removal import remove

        return remove(state, name)

    @override
    def view(self, state: GameState) -> GameView:
        """Return the typed view of ``state``: step and phase, players, the mayor."""
        step = state.step
        return GameView(
            step=step,
            phase=STEP_TABLE.get(step).phase if step is not None else None,
            night=state.night,
            day=state.day,
            over=state.is_over,
            winners=state.winners,
            teams=state.teams,
            players=tuple(
                # positional, in SeatView's field order (name, alive, role, team, missed,
                # exiled, revealed): a view of a big game builds one for every player
                seat_view(
                    player.name,
                    player.alive,
                    player.role,
                    _TEAM_OF_ROLE[player.role],  # wins.team_of(player)
                    player.missed,
                    False,
                    player.fool_revealed,
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
    def all_voted(self, state: GameState) -> bool:
        """Whether every asked player has a vote in force (any of his votes): the base's
        answer, from the state's votes, not a view of it (asked at every vote of a game that
        closes early)."""
        voters = {key.partition(":")[0] for key in state.votes}
        return all(name in voters for name in actions.asked(state))

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
