"""The example ruleset object: what the daemon, the stories and the runner call."""

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
from rules.example import distributions, engine, state
from rules.example.events import EVENT_TYPES, RoleInfo
from rules.example.roles import LUPI, LUPO, ROLES, VILLAGGIO
from rules.example.state import GameState


class ExampleRuleset:
    """The example: wolves, a seer and villagers, day first (docs/rules/example.md)."""

    id = "example"
    roles: Mapping[str, RoleSpec] = ROLES
    steps: tuple[str, ...] = engine.STEP_TABLE.ids()
    causes: tuple[str, ...] = ("lupi", "rogo", "inattivita")
    teams: tuple[str, ...] = (VILLAGGIO, LUPI)
    keywords: tuple[str, ...] = engine.KEYWORDS
    options: Mapping[str, JsonValue] = {}
    distribution_keys: Mapping[str, JsonValue] = {}
    settings_defaults: Mapping[str, JsonValue] = {}
    event_types: Mapping[str, type[Event]] = EVENT_TYPES
    distributions: tuple[Distribution, ...] = distributions.DEFAULT_DISTRIBUTIONS

    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return a distribution for ``n_players`` drawn by ``seed`` (ValueError: none fits)."""
        return distributions.pick_distribution(n_players, seed, extra)

    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the distribution's roles to ``names`` (seat order kept) by a seeded shuffle.

        ``names`` may be ``(name, gender)`` pairs.  Raises ValueError when the counts differ.
        """
        return deal_shuffled(names, distribution, seed)

    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Start a game at its first step (ValueError on bad seats or settings)."""
        return engine.new_game(seats, settings)

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
                SeatView(p.name, p.alive, p.role, ROLES[p.role].team, p.missed)
                for p in state.players
            ),
            votes=state.votes,
        )

    def asked(self, state: GameState) -> tuple[str, ...]:
        """Who may vote in the current step, in seat order."""
        return engine.STEP_TABLE.get(state.step).asked(state) if state.step else ()

    def all_voted(self, state: GameState) -> bool:
        """Whether every asked player has sent a vote."""
        voters = {key.partition(":")[0] for key in state.votes}
        return all(name in voters for name in self.asked(state))

    def choices(self, state: GameState, player: str) -> Choices:
        """What ``player`` may send now."""
        return engine.choices(state, player)

    def apply(self, state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
        """Validate and store a vote."""
        return engine.apply_vote(state, vote)

    def resolve(self, state: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance."""
        return engine.resolve(state)

    def start_events(self, state: GameState) -> tuple[Event, ...]:
        """One ``role`` event per player; the wolves learn each other."""
        wolves = tuple(p.name for p in state.players if p.role == LUPO.id)
        return tuple(
            RoleInfo(
                player=p.name,
                role=p.role,
                team=ROLES[p.role].team,
                mates=tuple(w for w in wolves if w != p.name) if p.role == LUPO.id else (),
            )
            for p in state.players
        )

    def told_role(self, state: GameState, name: str) -> str | None:
        """Everybody is told his true role."""
        player = state.find(name)
        return player.role if player is not None else None

    def shown_role(self, state: GameState, name: str) -> str | None:
        """Return the role ``name``'s death showed the village: his true role."""
        player = state.find(name)
        return None if player is None else player.role

    def as_told(self, event: Event) -> Event:
        """Events are told as they are."""
        return event

    def recipients(self, state: GameState, audience: Audience) -> frozenset[str] | None:
        """Who may learn an event (None: everybody); a team is its living members."""
        if audience.kind is AudienceKind.PUBLIC:
            return None
        if audience.kind is AudienceKind.PLAYERS:
            return frozenset(audience.names)
        return frozenset(
            p.name for p in state.players if p.alive and ROLES[p.role].team in audience.names
        )

    def transcript_start(self, state: GameState) -> dict[str, Any] | None:
        """No start line."""
        return None

    def transcript_end(self, state: GameState) -> dict[str, Any]:
        """The final object of interfaces §3 (no mayor in this ruleset: always null)."""
        return {
            "end": state.is_over,
            "winners": list(state.winners),
            "teams": list(state.teams),
            "alive": [p.name for p in state.players if p.alive],
            "roles": {p.name: p.role for p in state.players},
            "mayor": None,
        }

    def dump_state(self, game: GameState) -> dict[str, Any]:
        """The state as a JSON-safe dict."""
        return state.dump_state(game)

    def load_state(self, data: Mapping[str, Any]) -> GameState:
        """The state from :meth:`dump_state`'s dict."""
        return state.load_state(data)


RULESET: Ruleset[GameState] = ExampleRuleset()  # typed: mypy checks the whole Protocol
