"""The Lupus ruleset object: the public entry points of rules/core/ruleset.py's protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rules.core.base import RulesetBase, override
from rules.core.model import (
    Accepted,
    Choices,
    Distribution,
    Rejected,
    Resolution,
    Seat,
    Settings,
    Vote,
)
from rules.core.ruleset import Ruleset
from rules.core.view import GameView, seat_view
from rules.lupus import actions, state
from rules.lupus.ids import CAUSES, FACTIONS, KEYWORDS
from rules.lupus.roles import ROLES
from rules.lupus.state import GameState
from rules.lupus.steps import OPTIONS, STEP_TABLE

if TYPE_CHECKING:
    from rules.core.events import Audience, Event


class LupusRuleset(RulesetBase[GameState]):
    """The rules of "Lupus in tempo reale", 7th edition (docs/rules/lupus.md).

    What reads a state (its view, who is asked, its stored form) loads the step table, the
    actions and the state; the engine that resolves steps, the events, the removal and the
    built-in distributions are imported by the members that use them, so that a command that
    only shows a game (``narrator game show``) does not load them.
    """

    id = "lupus"
    roles = ROLES
    step_table = STEP_TABLE
    causes = CAUSES
    teams = FACTIONS
    keywords = KEYWORDS
    action_kinds = actions.ACTION_KINDS
    options = OPTIONS
    settings_defaults = MappingProxyType({"reveal_roles": False})  # docs/rules/lupus.md
    story_facts = MappingProxyType(
        {
            "death": ("role",),
            "role_change": ("previous",),
            "lynch": ("votes", "mayor"),  # the Sindaco whose ballot breaks a tie
            "exile": ("dead",),  # a beaten faction's dead leave the game in their graves
            "election": ("votes",),
        }
    )
    ballots_of = MappingProxyType({"election": "sindaco"})  # told with the sindaco ballots
    codec = state.CODEC

    @property
    @override
    def event_types(self) -> Mapping[str, type[Event]]:
        """Transcript event type -> its class, for every event the ruleset emits."""
        from rules.lupus.events import EVENT_TYPES

        return EVENT_TYPES

    @property
    @override
    def distributions(self) -> tuple[Distribution, ...]:
        """The built-in role distributions."""
        from rules.lupus.distributions import DEFAULT_DISTRIBUTIONS

        return DEFAULT_DISTRIBUTIONS

    @override
    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Return the state of a new game (§10) at its first step (ValueError on bad seats or
        settings)."""
        from rules.lupus.engine import new_game

        return new_game(seats, settings)

    @override
    def resolve(self, state: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        from rules.lupus.engine import resolve

        return resolve(state)

    @override
    def remove(self, state: GameState, name: str) -> Resolution[GameState]:
        """Take ``name`` out of the game: a death by removal, with what follows from it."""
        from rules.lupus.removal import remove

        return remove(state, name)

    @override
    def start_events(self, state: GameState) -> tuple[Event, ...]:
        """The start's events (§13.1): roles, what each knows, the propositions, the mayor."""
        from rules.lupus.engine import start_events

        return start_events(state)

    @override
    def view(self, state: GameState) -> GameView:
        """Return the typed view: step and phase, players (``alive`` = in play), the Sindaco."""
        return GameView(
            step=state.step,
            phase=STEP_TABLE.get(state.step).phase if state.step is not None else None,
            night=state.night,
            day=state.day,
            over=state.is_over,
            winners=state.winners,
            teams=state.teams,
            players=tuple(
                seat_view(
                    name=p.name,
                    alive=p.alive,
                    role=p.role,
                    team=p.faction,
                    missed=p.missed,
                    exiled=p.exiled,
                )
                for p in state.players
            ),
            votes=state.vote_map(),
            facts={"mayor": state.mayor, "has_mayor": state.has_mayor},
        )

    @override
    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return a distribution for ``n_players`` chosen by ``seed`` (ValueError: none fits)."""
        from rules.lupus.distributions import pick_distribution

        return pick_distribution(n_players, seed, extra)

    @override
    def asked(self, state: GameState) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        return actions.asked(state)

    @override
    def all_voted(self, state: GameState) -> bool:
        """Whether every player with a main action sent it (optional votes never hold a step)."""
        voters = {key.partition(":")[0] for key, _ in state.votes if _is_main(key)}
        return all(name in voters for name in actions.main_voters(state))

    @override
    def choices(self, state: GameState, player: str) -> Choices:
        """Return what ``player`` may send now (no ``actions`` when he is not asked)."""
        return actions.choices(state, player)

    @override
    def apply(self, state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
        """Validate and store a vote (it replaces the player's earlier vote for that action)."""
        return actions.apply_vote(state, vote)

    @override
    def recipients(self, state: GameState, audience: Audience) -> frozenset[str] | None:
        """Return who may learn an event (None: everybody); a team is its members in play,
        the dead among them (only the exiled are out)."""
        from rules.core.events import AudienceKind  # the events: only where a game is played

        if audience.kind is AudienceKind.PUBLIC:
            return None
        if audience.kind is AudienceKind.PLAYERS:
            return frozenset(audience.names)
        teams = set(audience.names)
        return frozenset(p.name for p in state.players if not p.exiled and p.faction in teams)

    @override
    def tell(
        self,
        before: GameState,
        after: GameState,
        events: Sequence[Mapping[str, Any]],
        *,
        reveal_roles: bool,
    ) -> list[dict[str, Any]]:
        """The base's story facts, and an ``exile``'s ``dead``: whether its player was dead
        already, or died in the same step (a beaten faction's dead leave the game too, but
        gather no belongings)."""
        told = super().tell(before, after, events, reveal_roles=reveal_roles)
        died = {str(e.get("player")) for e in events if e.get("type") == "death"}
        for data in told:
            if data.get("type") == "exile":
                name = str(data.get("player"))
                player = before.find(name)
                was_dead = player is not None and not player.alive and not player.exiled
                data["dead"] = was_dead or name in died
        return told

    @override
    def transcript_start(self, state: GameState) -> dict[str, Any] | None:
        """Return the start line (§13.1): night 0, day 0 and the start events."""
        return {
            "start": True,
            "night": 0,
            "day": 0,
            "events": [event.to_dict() for event in self.start_events(state)],
        }


def _is_main(key: str) -> bool:
    """Whether a vote key is a main action's (not ``sindaco`` or ``successore``)."""
    return key.partition(":")[2] not in ("sindaco", "successore")


RULESET: Ruleset[GameState] = LupusRuleset()  # typed: mypy checks the whole Protocol
