"""The vampiri ruleset object: the public entry points of La Notte dei Vampiri."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from rules.core.events import Audience, AudienceKind, Event
from rules.core.model import (
    Accepted,
    Choices,
    Distribution,
    Rejected,
    Resolution,
    RoleSpec,
    Seat,
    Settings,
    Vote,
)
from rules.core.ruleset import Ruleset
from rules.core.view import GameView, JsonValue, SeatView
from rules.vampiri import actions, distributions, engine, state
from rules.vampiri.events import EVENT_TYPES, Composition, RoleInfo
from rules.vampiri.roles import CATEGORIES, LORDS, ROLES, WEREWOLVES, WITH_ABILITY
from rules.vampiri.state import GameState
from rules.vampiri.wins import TEAM_ORDER


class VampiriRuleset:
    """The rules of La Notte dei Vampiri (docs/rules/vampiri.md)."""

    id = "vampiri"
    roles: Mapping[str, RoleSpec] = ROLES
    steps: tuple[str, ...] = engine.STEP_TABLE.ids()
    causes: tuple[str, ...] = engine.CAUSES
    teams: tuple[str, ...] = TEAM_ORDER
    keywords: tuple[str, ...] = actions.KEYWORD_ORDER
    options: Mapping[str, JsonValue] = engine.OPTIONS
    distribution_keys: Mapping[str, JsonValue] = {}
    settings_defaults: Mapping[str, JsonValue] = {}
    event_types: Mapping[str, type[Event]] = EVENT_TYPES
    distributions: tuple[Distribution, ...] = distributions.DEFAULT_DISTRIBUTIONS

    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return ``tabella-N``/``lupo-N`` (``guardie-3``) chosen by ``seed``.

        Raises ValueError for 4 or 5 players and outside 3..1000.
        """
        return distributions.pick_distribution(n_players, seed, extra)

    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the roles by a seeded shuffle and draw the placeholders' roles.

        Raises ValueError when the counts differ.
        """
        return distributions.deal(names, distribution, seed)

    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Start a game at ``votazione`` of night 1 (ValueError on a refused table/settings)."""
        return engine.new_game(seats, settings)

    def view(self, state: GameState) -> GameView:
        """Return the typed view: step, numbering, players, votes, and the public facts."""
        step = state.step
        return GameView(
            step=step,
            phase=engine.STEP_TABLE.get(step).phase if step is not None else None,
            night=state.night,
            day=state.day,
            over=state.over,
            winners=state.winners,
            teams=state.teams,
            players=tuple(
                SeatView(name=p.name, alive=p.alive, role=p.role, team=p.team, missed=p.missed)
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

    def asked(self, state: GameState) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        return actions.asked(state)

    def all_voted(self, state: GameState) -> bool:
        """Whether every asked player has sent every vote asked of him (``close_early``)."""
        return actions.all_voted(state)

    def choices(self, state: GameState, player: str) -> Choices:
        """Return what ``player`` may send now (no ``actions`` when he is not asked)."""
        return actions.choices(state, player)

    def apply(self, state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
        """Validate and store a vote (it replaces his earlier vote for the same slot)."""
        return actions.apply_vote(state, vote)

    def resolve(self, state: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        return engine.resolve(state)

    def start_events(self, state: GameState) -> tuple[Event, ...]:
        """Return one ``role`` event per player (with the names he knows), then the public
        ``composition`` of the start mail."""
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

    def told_role(self, state: GameState, name: str) -> str | None:
        """Return the role ``name`` has (nobody is deceived about his role); None: no player."""
        player = state.find(name)
        return None if player is None else player.role

    def shown_role(self, state: GameState, name: str) -> str | None:
        """Return the role ``name``'s death showed the village: his true role."""
        player = state.find(name)
        return None if player is None else player.role

    def as_told(self, event: Event) -> Event:
        """Return ``event`` unchanged: nobody ever changes role in this game."""
        return event

    def recipients(self, state: GameState, audience: Audience) -> frozenset[str] | None:
        """Return who may learn an event (None: everybody); a team is its living members."""
        if audience.kind is AudienceKind.PUBLIC:
            return None
        if audience.kind is AudienceKind.PLAYERS:
            return frozenset(audience.names)
        teams = set(audience.names)
        return frozenset(p.name for p in state.players if p.alive and p.team in teams)

    def transcript_start(self, state: GameState) -> dict[str, Any] | None:
        """Vampiri transcripts have no start line."""
        return None

    def transcript_end(self, state: GameState) -> dict[str, Any]:
        """Return the final object: end, winners, teams, alive, roles (the truth), mayor."""
        return {
            "end": bool(state.over),
            "winners": list(state.winners),
            "teams": list(state.teams),
            "alive": [p.name for p in state.players if p.alive],
            "roles": {p.name: p.role for p in state.players},
            "mayor": None,
        }

    def dump_state(self, game: GameState) -> dict[str, Any]:
        """Return the state as a JSON-safe dict."""
        return state.dump_state(game)

    def load_state(self, data: Mapping[str, Any]) -> GameState:
        """Return the state from :meth:`dump_state`'s dict (ValueError: not a vampiri state)."""
        return state.load_state(data)


def _composition(game: GameState) -> Composition:
    """The public composition: team sizes and the special roles, secret draws hidden."""
    teams = Counter(p.team for p in game.players)
    specials: list[str] = []
    for player in game.players:
        role = player.role
        if role not in WITH_ABILITY:
            continue
        if role in LORDS and game.flag("secret_lord"):
            role = distributions.LORD
        elif role in WEREWOLVES and game.flag("secret_werewolf"):
            role = distributions.WEREWOLF
        specials.append(role)
    order = [*ROLES, distributions.LORD, distributions.WEREWOLF]
    return Composition(
        players=tuple(p.name for p in game.players),
        teams={team: teams[team] for team in TEAM_ORDER if teams[team]},
        specials=tuple(sorted(specials, key=order.index)),
    )


RULESET: Ruleset[GameState] = VampiriRuleset()
"""The ruleset object (typed as the Protocol, so mypy checks that it implements all of it)."""
