"""The Lupus ruleset object: the public entry points of rules/core/ruleset.py's protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.core.deal import deal_shuffled
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
from rules.lupus import actions, distributions, engine, state
from rules.lupus.events import EVENT_TYPES
from rules.lupus.ids import CAUSES, FACTIONS, KEYWORDS, STEPS
from rules.lupus.roles import ROLES
from rules.lupus.state import GameState

PHASES: Mapping[str, str] = {"notte": "night", "giorno": "day"}


class LupusRuleset:
    """The rules of "Lupus in tempo reale", 7th edition (docs/rules/lupus.md)."""

    id = "lupus"
    roles: Mapping[str, RoleSpec] = ROLES
    steps: tuple[str, ...] = STEPS
    causes: tuple[str, ...] = CAUSES
    teams: tuple[str, ...] = FACTIONS
    keywords: tuple[str, ...] = KEYWORDS
    options: Mapping[str, JsonValue] = engine.OPTIONS
    distribution_keys: Mapping[str, JsonValue] = {}
    settings_defaults: Mapping[str, JsonValue] = {
        "reveal_roles": False
    }  # never revealed (docs/rules/lupus.md)
    event_types: Mapping[str, type[Event]] = EVENT_TYPES
    distributions: tuple[Distribution, ...] = distributions.DEFAULT_DISTRIBUTIONS

    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return a distribution for ``n_players`` chosen by ``seed`` (ValueError: none fits)."""
        return distributions.pick_distribution(n_players, seed, extra)

    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the distribution's roles to ``names`` (seat order kept) by a seeded shuffle.

        ``names`` may be ``(name, gender)`` pairs.  Raises ValueError when the counts differ.
        """
        return deal_shuffled(names, distribution, seed)

    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Start a game at night 1 (ValueError on bad seats or settings)."""
        return engine.new_game(seats, settings)

    def view(self, game: GameState) -> GameView:
        """Return the typed view: step and phase, players (``alive`` = in play), the Sindaco."""
        return GameView(
            step=game.step,
            phase=PHASES[game.step] if game.step is not None else None,
            night=game.night,
            day=game.day,
            over=game.is_over,
            winners=game.winners,
            teams=game.teams,
            players=tuple(
                SeatView(name=p.name, alive=p.alive, role=p.role, team=p.faction, missed=p.missed)
                for p in game.players
            ),
            votes=game.vote_map(),
            facts={"mayor": game.mayor, "has_mayor": game.has_mayor},
        )

    def asked(self, game: GameState) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        return actions.asked(game)

    def all_voted(self, game: GameState) -> bool:
        """Whether every player with a main action sent it (optional votes never hold a step)."""
        voters = {key.partition(":")[0] for key, _ in game.votes if _is_main(key)}
        return all(name in voters for name in actions.main_voters(game))

    def choices(self, game: GameState, player: str) -> Choices:
        """Return what ``player`` may send now (no ``actions`` when he is not asked)."""
        return actions.choices(game, player)

    def apply(self, game: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
        """Validate and store a vote (it replaces the player's earlier vote for that action)."""
        return actions.apply_vote(game, vote)

    def resolve(self, game: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        return engine.resolve(game)

    def start_events(self, game: GameState) -> tuple[Event, ...]:
        """Return the start's events: ``role`` and ``knows`` per player, ``propositions``,
        the first ``mayor``."""
        return engine.start_events(game)

    def told_role(self, game: GameState, name: str) -> str | None:
        """Return ``name``'s role (Lupus never tells a player a false role); None: no player."""
        player = game.find(name)
        return None if player is None else player.role

    def shown_role(self, game: GameState, name: str) -> str | None:
        """Return the role ``name``'s death showed the village: his true role."""
        player = game.find(name)
        return None if player is None else player.role

    def as_told(self, event: Event) -> Event:
        """Every Lupus event is told as it is."""
        return event

    def recipients(self, game: GameState, audience: Audience) -> frozenset[str] | None:
        """Return who may learn an event (None: everybody); a team is its members in play."""
        if audience.kind is AudienceKind.PUBLIC:
            return None
        if audience.kind is AudienceKind.PLAYERS:
            return frozenset(audience.names)
        teams = set(audience.names)
        return frozenset(p.name for p in game.players if not p.exiled and p.faction in teams)

    def transcript_start(self, game: GameState) -> dict[str, Any] | None:
        """Return the start line (§13.1): night 0, day 0 and the start events."""
        return {
            "start": True,
            "night": 0,
            "day": 0,
            "events": [event.to_dict() for event in engine.start_events(game)],
        }

    def transcript_end(self, game: GameState) -> dict[str, Any]:
        """Return the final object: end, winners, teams, alive (in play), roles, mayor."""
        return {
            "end": game.is_over,
            "winners": list(game.winners),
            "teams": list(game.teams),
            "alive": [p.name for p in game.players if p.alive],
            "roles": {p.name: p.role for p in game.players},
            "mayor": game.mayor,
        }

    def dump_state(self, game: GameState) -> dict[str, Any]:
        """Return the state as a JSON-safe dict."""
        return state.dump_state(game)

    def load_state(self, data: Mapping[str, Any]) -> GameState:
        """Return the state from :meth:`dump_state`'s dict."""
        return state.load_state(data)


def _is_main(key: str) -> bool:
    """Whether a vote key is a main action's (not ``sindaco`` or ``successore``)."""
    return key.partition(":")[2] not in ("sindaco", "successore")


RULESET: Ruleset[GameState] = LupusRuleset()  # typed: mypy checks the whole Protocol
