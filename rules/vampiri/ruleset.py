"""The vampiri ruleset object: the public entry points of La Notte dei Vampiri."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from rules.core.base import RulesetBase, override
from rules.core.model import Choices, Distribution, Seat
from rules.core.ruleset import Ruleset
from rules.core.view import GameView, JsonValue, seat_view
from rules.vampiri import actions, state
from rules.vampiri.roles import CATEGORIES, LORDS, ROLES, WEREWOLVES, WITH_ABILITY
from rules.vampiri.state import GameState
from rules.vampiri.steps import CAUSES, OPTIONS, STEP_TABLE
from rules.vampiri.wins import TEAM_ORDER

if TYPE_CHECKING:
    from rules.core.events import Event
    from rules.core.model import Resolution, Settings
    from rules.vampiri.events import Composition


class VampiriRuleset(RulesetBase[GameState]):
    """The rules of La Notte dei Vampiri (docs/rules/vampiri.md).

    What reads a state (its view, who is asked, its stored form) loads the step table, the
    actions and the state; the engine that resolves steps, the events and the built-in
    distributions are imported by the members that use them, so that a command that only
    shows a game (``narrator game show``) does not load them.
    """

    id = "vampiri"
    roles = ROLES
    step_table = STEP_TABLE
    causes = CAUSES
    teams = TEAM_ORDER
    keywords = actions.KEYWORD_ORDER
    action_kinds = actions.ACTION_KINDS
    options = OPTIONS
    story_facts = MappingProxyType(
        {"death": ("role",), "execution": ("votes",), "tie": ("votes",), "verdict": ("ballots",)}
    )
    apply = staticmethod(actions.apply_vote)
    codec = state.CODEC

    @property
    @override
    def event_types(self) -> Mapping[str, type[Event]]:
        """Transcript event type -> its class, for every event the ruleset emits."""
        from rules.vampiri.events import EVENT_TYPES

        return EVENT_TYPES

    @property
    @override
    def distributions(self) -> tuple[Distribution, ...]:
        """The built-in role distributions."""
        from rules.vampiri.distributions import DEFAULT_DISTRIBUTIONS

        return DEFAULT_DISTRIBUTIONS

    @override
    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Return the state of a new game at its first step (ValueError on bad seats or
        settings)."""
        from rules.vampiri.engine import new_game

        return new_game(seats, settings)

    @override
    def resolve(self, state: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        from rules.vampiri.engine import resolve

        return resolve(state)

    @override
    def remove(self, state: GameState, name: str) -> Resolution[GameState]:
        """Take ``name`` out of the game: a death by removal, with what follows from it."""
        from rules.vampiri.engine import remove

        return remove(state, name)

    @override
    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return ``tabella-N``/``lupo-N`` (``guardie-3``) chosen by ``seed``.

        Raises ValueError for 4 or 5 players and outside 3..1000.
        """
        from rules.vampiri.distributions import pick_distribution

        return pick_distribution(n_players, seed, extra)

    @override
    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the roles by a seeded shuffle and draw the placeholders' roles.

        Raises ValueError when the counts differ.
        """
        from rules.vampiri.distributions import deal

        return deal(names, distribution, seed)

    @override
    def view(self, state: GameState) -> GameView:
        """Return the typed view: step, numbering, players, votes, and the public facts."""
        step = state.step
        return GameView(
            step=step,
            phase=STEP_TABLE.get(step).phase if step is not None else None,
            night=state.night,
            day=state.day,
            over=state.over,
            winners=state.winners,
            teams=state.teams,
            players=tuple(
                seat_view(name=p.name, alive=p.alive, role=p.role, team=p.team, missed=p.missed)
                for p in state.players
            ),
            votes=state.votes,
            facts={
                "candidates": list(state.candidates),
                "secret_vote": state.flag("secret_vote"),
                "lone_hunter": state.flag("lone_hunter"),
                "has_mayor": False,
                "mayor": None,
            },
        )

    @override
    def asked(self, state: GameState) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        return actions.asked(state)

    @override
    def all_voted(self, state: GameState) -> bool:
        """Whether every asked player has sent every vote asked of him (``close_early``)."""
        return actions.all_voted(state)

    @override
    def choices(self, state: GameState, player: str) -> Choices:
        """Return what ``player`` may send now (no ``actions`` when he is not asked)."""
        return actions.choices(state, player)

    @override
    def relay(
        self, state: GameState, voter: str, extra: Mapping[str, JsonValue]
    ) -> tuple[str, ...]:
        """The hunters read each other's receipts, unless each hunts alone (``lone_hunter``)."""
        return () if state.flag("lone_hunter") else super().relay(state, voter, extra)

    @override
    def start_events(self, state: GameState) -> tuple[Event, ...]:
        """Return one ``role`` event per player (with the names he knows), then the public
        ``composition`` of the start mail."""
        from rules.vampiri.events import RoleInfo  # the events: only where a game is played

        events: list[Event] = []
        tourist = state.flag("tourist_hunters")
        wolves = tuple(p.name for p in state.players if p.role in WEREWOLVES)
        for player in state.players:
            mates: tuple[str, ...] = ()
            if player.name in state.group and not tourist:
                mates = tuple(name for name in state.group if name != player.name)
            elif player.role in WEREWOLVES:
                mates = tuple(name for name in wolves if name != player.name)
            events.append(
                RoleInfo(
                    player=player.name,
                    role=player.role,
                    team=player.team,
                    category=CATEGORIES[player.role].value,
                    mates=mates,
                    undercover=player.name == state.undercover,
                )
            )
        events.append(_composition(state))
        return tuple(events)


def _composition(game: GameState) -> Composition:
    """The public composition: team sizes and the special roles, secret draws hidden."""
    from rules.vampiri.distributions import LORD, WEREWOLF
    from rules.vampiri.events import Composition

    teams = Counter(p.team for p in game.players)
    specials: list[str] = []
    for player in game.players:
        role = player.role
        if role not in WITH_ABILITY:
            continue
        if role in LORDS and game.flag("secret_lord"):
            role = LORD
        elif role in WEREWOLVES and game.flag("secret_werewolf"):
            role = WEREWOLF
        specials.append(role)
    order = [*ROLES, LORD, WEREWOLF]
    return Composition(
        players=tuple(p.name for p in game.players),
        teams={team: teams[team] for team in TEAM_ORDER if teams[team]},
        specials=tuple(sorted(specials, key=order.index)),
    )


RULESET: Ruleset[GameState] = VampiriRuleset()
"""The ruleset object (typed as the Protocol, so mypy checks that it implements all of it)."""
