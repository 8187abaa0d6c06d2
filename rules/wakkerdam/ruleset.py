"""The Wakkerdam ruleset object: the public entry points (see docs/dev/contracts.md)."""

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
from rules.wakkerdam import actions, distributions, engine, state
from rules.wakkerdam.events import EVENT_TYPES, RoleChange, RoleInfo
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
)


class WakkerdamRuleset:
    """The rules of "Weerwolven over de Mail" (docs/rules/wakkerdam.md)."""

    id = "wakkerdam"
    roles: Mapping[str, RoleSpec] = ROLES
    steps: tuple[str, ...] = engine.STEP_TABLE.ids()
    causes: tuple[str, ...] = CAUSES
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
        """Return a distribution for ``n_players`` chosen by ``seed``.

        Raises ValueError outside 3..1000 players.
        """
        return distributions.pick_distribution(n_players, seed, extra)

    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the distribution's roles to ``names`` (seat order kept) by a seeded shuffle.

        ``names`` may be ``(name, gender)`` pairs.  Raises ValueError when the counts differ.
        """
        return deal_shuffled(names, distribution, seed)

    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Start a game: the state at its first step (ValueError on bad seats or settings)."""
        return engine.new_game(seats, settings)

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

    def asked(self, state: GameState) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        return actions.asked(state)

    def choices(self, state: GameState, player: str) -> Choices:
        """Return what ``player`` may send now (empty ``actions`` when he is not asked)."""
        return actions.choices(state, player)

    def apply(self, state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
        """Validate and store a vote (it replaces the player's earlier vote for that action)."""
        return actions.apply_vote(state, vote)

    def resolve(self, state: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        return engine.resolve(state)

    def all_voted(self, state: GameState) -> bool:
        """Whether every asked player has voted (for ``close_early``)."""
        voters = {key.partition(":")[0] for key in state.votes}
        return all(name in voters for name in actions.asked(state))

    def start_events(self, state: GameState) -> tuple[Event, ...]:
        """Return one ``role`` info per player: role, team, and the mates he knows (§10)."""
        members: dict[str, list[str]] = {}  # circle -> its players, in seat order
        for player in state.players:
            for circle, roles in CIRCLES.items():
                if player.role in roles:
                    members.setdefault(circle, []).append(player.name)
        infos: list[Event] = []
        for player in state.players:
            known = [n for c, roles in CIRCLES.items() if player.role in roles for n in members[c]]
            mates = tuple(n for n in known if n != player.name)
            role = TOLD_AS.get(player.role, player.role)
            infos.append(RoleInfo(player=player.name, role=role, team=team_of(player), mates=mates))
        return tuple(infos)

    def told_role(self, state: GameState, name: str) -> str | None:
        """Return the role ``name`` believes he has (the Dwaas: ``ziener``); None: no player."""
        player = state.find(name)
        return None if player is None else TOLD_AS.get(player.role, player.role)

    def shown_role(self, state: GameState, name: str) -> str | None:
        """Return the role ``name``'s death showed the village: his true role."""
        player = state.find(name)
        return None if player is None else player.role

    def as_told(self, event: Event) -> Event:
        """A thief or grave robber who takes the Dwaas's role is told he is now Ziener
        (ruling 28); the log and the transcript keep the truth."""
        if isinstance(event, RoleChange) and event.role in TOLD_AS:
            return RoleChange(player=event.player, role=TOLD_AS[event.role])
        return event

    def recipients(self, state: GameState, audience: Audience) -> frozenset[str] | None:
        """Return who may learn an event (None: everybody); a team is its living members."""
        if audience.kind is AudienceKind.PUBLIC:
            return None
        if audience.kind is AudienceKind.PLAYERS:
            return frozenset(audience.names)
        teams = set(audience.names)
        return frozenset(p.name for p in state.players if p.alive and team_of(p) in teams)

    def transcript_start(self, state: GameState) -> dict[str, Any] | None:
        """Wakkerdam transcripts have no start line."""
        return None

    def transcript_end(self, state: GameState) -> dict[str, Any]:
        """Return the final object: end, winners, teams, alive, roles (the truth), mayor."""
        return {
            "end": bool(state.is_over),
            "winners": list(state.winners),
            "teams": list(state.teams),
            "alive": [p.name for p in state.players if p.alive],
            "roles": {p.name: p.role for p in state.players},
            "mayor": state.mayor,
        }

    def dump_state(self, game: GameState) -> dict[str, Any]:
        """Return the state as a JSON-safe dict."""
        return state.dump_state(game)

    def load_state(self, data: Mapping[str, Any]) -> GameState:
        """Return the state from :meth:`dump_state`'s dict."""
        return state.load_state(data)


RULESET: Ruleset[GameState] = WakkerdamRuleset()  # typed: mypy checks the whole Protocol
