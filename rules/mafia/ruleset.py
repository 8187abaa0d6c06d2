"""The Mafia ruleset object: the public entry points of rules.core.ruleset.Ruleset."""

from __future__ import annotations

from collections import Counter
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
from rules.mafia import actions, state
from rules.mafia.ids import CAUSES, TEAMS, Cause
from rules.mafia.roles import ROLES
from rules.mafia.state import GameState
from rules.mafia.steps import DISTRIBUTION_KEYS, OPTIONS, STEP_TABLE

if TYPE_CHECKING:
    from rules.core.events import Audience, Event


class MafiaRuleset(RulesetBase[GameState]):
    """The rules of forum Mafia (seed 004) by mail (docs/rules/mafia.md).

    What reads a state (its view, who is asked, its stored form) loads the step table, the
    actions and the state; the engine that resolves steps, the vote validation, the events,
    the removal, the outcomes and the built-in distributions are imported by the members that
    use them, so that a command that only shows a game (``narrator game show``) does not load
    them.
    """

    id = "mafia"
    roles = ROLES
    step_table = STEP_TABLE
    causes = CAUSES
    teams = TEAMS
    keywords = actions.KEYWORD_ORDER
    action_kinds = actions.ACTION_KINDS
    options = OPTIONS
    distribution_keys = DISTRIBUTION_KEYS
    settings_defaults = MappingProxyType({"strictness": 3})  # docs/rules/mafia.md §3
    story_facts = MappingProxyType(
        {"mayor": ("votes",), "no_mayor": ("votes",), "election_tie": ("votes",)}
    )
    codec = state.CODEC

    @property
    @override
    def event_types(self) -> Mapping[str, type[Event]]:
        """Transcript event type -> its class, for every event the ruleset emits."""
        from rules.mafia.events import EVENT_TYPES

        return EVENT_TYPES

    @property
    @override
    def distributions(self) -> tuple[Distribution, ...]:
        """The built-in role distributions."""
        from rules.mafia.distributions import DEFAULT_DISTRIBUTIONS

        return DEFAULT_DISTRIBUTIONS

    @override
    def new_game(self, seats: Sequence[Seat], settings: Settings) -> GameState:
        """Return the state of a new game at its first step (ValueError on bad seats or
        settings)."""
        from rules.mafia.engine import new_game

        return new_game(seats, settings)

    @override
    def apply(self, state: GameState, vote: Vote) -> Accepted[GameState] | Rejected:
        """Validate and store a vote."""
        from rules.mafia.validate import apply_vote

        return apply_vote(state, vote)

    @override
    def resolve(self, state: GameState) -> Resolution[GameState]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        from rules.mafia.engine import resolve

        return resolve(state)

    @override
    def remove(self, state: GameState, name: str) -> Resolution[GameState]:
        """Take ``name`` out of the game: a death by removal, with what follows from it."""
        from rules.mafia.removal import remove

        return remove(state, name)

    @override
    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return a distribution for ``n_players`` chosen by ``seed`` (ValueError: none fits)."""
        from rules.mafia.distributions import pick

        return pick(n_players, seed, extra)

    @override
    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the distribution (seat order kept); a black's role is ``peaceful+negative``."""
        from rules.mafia.distributions import deal

        return deal(names, distribution, seed)

    @override
    def view(self, state: GameState) -> GameView:
        """Return the typed view: step, numbering, players with their composite roles, titles."""
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
                seat_view(p.name, p.alive, p.role, p.team.value, p.missed) for p in state.players
            ),
            votes={actions.vote_key(state, v): v.targets for v in state.votes},
            facts={
                "mayor": state.mayor_in_office(),
                "secretary": state.secretary_in_office(),
                "format": state.format,
                "vertical": state.today.vertical,
            },
        )

    @override
    def asked(self, state: GameState) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        return actions.asked(state)

    @override
    def all_voted(self, state: GameState) -> bool:
        """Whether every asked player has sent his vote (for ``close_early``, §3).

        A player with a primary action must have a vote in force for it; a player without one
        (a black citizen at night, the Investigator) any vote.  The keyword-only statements
        (`suicide`, `approve`, `noinsure`, hunt approval, `fake_*`) are choices not to wait for.
        """
        for name in actions.asked(state):
            primary = [a for a in actions.actions_of(state, name) if a.primary]
            if primary:
                if state.vote_of(name, primary[0].spec.group) is None:
                    return False
            elif not any(True for _ in state.votes_by(name)):
                return False
        return True

    @override
    def choices(self, state: GameState, player: str) -> Choices:
        """Return what ``player`` may send now (no actions when he is not asked)."""
        return actions.choices(state, player)

    @override
    def start_events(self, state: GameState) -> tuple[Event, ...]:
        """The ``setup`` event and one ``role`` event per player (§10)."""
        from rules.mafia.events import RoleInfo, Setup  # the events: only where a game is played

        peaceful = Counter(p.peaceful for p in state.players if not p.is_elite)
        negative = Counter(p.negative for p in state.players if p.negative)
        elite = {p.name: p.peaceful for p in state.players if p.is_elite}
        events: list[Event] = [
            Setup(
                state.format,
                dict(sorted(peaceful.items())),
                dict(sorted(negative.items())),
                False,
                elite,
            )
        ]
        for p in state.players:
            if p.is_elite:
                continue  # an elite player's role is public (`setup`, §17)
            events.append(
                RoleInfo(p.name, p.peaceful, p.negative, p.team.value, state.partners(p.name))
            )
        return tuple(events)

    @override
    def shown_role(self, state: GameState, name: str) -> str | None:
        """Return the roles ``name``'s death showed (§8.1): both roles for a day death (the
        lynch, inactivity, removal), only the peaceful role for a night death; None while he
        lives."""
        player = state.find(name)
        if player is None or player.alive:
            return None
        if player.cause in (Cause.LYNCH, Cause.INACTIVITY, Cause.REMOVED):
            return player.role
        return player.peaceful

    @override
    def as_told(self, event: Event) -> Event:
        """A night death is told without its cause (§7.11); other events as they are."""
        from rules.mafia.events import Death

        if isinstance(event, Death) and event.at_night:
            return Death(player=event.player, cause=None, revealed=event.revealed, via=event.via)
        return event

    @override
    def recipients(self, state: GameState, audience: Audience) -> frozenset[str] | None:
        """Return who may learn an event (None: everybody); a team is its living main members
        (the elite players aside, §17)."""
        from rules.core.events import AudienceKind

        if audience.kind is AudienceKind.PUBLIC:
            return None
        if audience.kind is AudienceKind.PLAYERS:
            return frozenset(audience.names)
        return frozenset(p.name for p in state.living if p.team.value in audience.names)

    @override
    def transcript_start(self, state: GameState) -> dict[str, Any] | None:
        """The first line (§13.2): ``{"start": true, "night": 0, "day": 0, "events": [...]}``."""
        events = [event.to_dict() for event in self.start_events(state)]
        return {"start": True, "night": 0, "day": 0, "events": events}

    @override
    def transcript_end(self, state: GameState) -> dict[str, Any]:
        """The end line (§13.2): the base's (winners, teams, alive, roles in scenario form,
        mayor), then the outcomes."""
        from rules.mafia import wins

        return {**super().transcript_end(state), "outcomes": wins.outcomes(state)}


RULESET: Ruleset[GameState] = MafiaRuleset()  # typed: mypy checks the whole Protocol
