"""The ruleset base: every :class:`Ruleset` member with a default, so a ruleset writes what differs.

A ruleset subclasses :class:`RulesetBase` and says what only it can say: its ids (``id``,
``roles``, ``causes``, ``teams``, ``event_types``, ``distributions``), its order of play (the
``step_table``), its state's ``codec`` (rules/core/codec.py), and its engine functions
(``view``, ``new_game``, ``choices``, ``apply``, ``resolve``).  Everything else has a default
derived from those, as python-chess's ``Board`` gives each variant its defaults and
boardgame.io derives ``playerView`` and ``endIf``: a ruleset overrides a member only where its
rules differ (a Dwaas told he is Ziener, a Mafia night death shown by its peaceful role only).

Every member a ruleset writes carries ``@override``, so that mypy (strict) fails on a name that
is not a member of the base (a misspelling, or a member renamed in the protocol); and a subclass
may define no other public name (checked when the class is made: a misspelt data member such as
``optoins`` is refused at import).
"""

from __future__ import annotations

import sys
from abc import abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from rules.core.codec import StateCodec
from rules.core.deal import deal_shuffled
from rules.core.model import (
    ActionChoice,
    Choices,
    Distribution,
    Receipt,
    Resolution,
    Seat,
    ToldRoles,
    ToldStep,
)
from rules.core.rng import draw_from
from rules.core.ruleset import Ruleset
from rules.core.steps import StepTable
from rules.core.view import JsonValue

if TYPE_CHECKING:
    from typing_extensions import override as override

    from rules.core.events import Audience, Event
elif sys.version_info >= (3, 12):
    from typing import override as override
else:  # Python 3.11 has no typing.override: the same marker (mypy reads typing_extensions')
    F = TypeVar("F", bound=Callable[..., Any])

    def override(method: F) -> F:
        """Mark ``method`` as overriding a member of the base (checked by mypy)."""
        method.__override__ = True
        return method


class PlayerLike(Protocol):
    """What the defaults read of a ruleset's player: his name, his true role, whether he is in
    play."""

    @property
    def name(self) -> str: ...

    @property
    def role(self) -> str: ...

    @property
    def alive(self) -> bool: ...


class StateLike(Protocol):
    """What the defaults read of a ruleset's state: the current step, its players in seat
    order, and a player by name."""

    @property
    def step(self) -> str | None: ...

    @property
    def players(self) -> Sequence[PlayerLike]: ...

    def find(self, name: str) -> PlayerLike | None: ...


S = TypeVar("S", bound=StateLike)

_NO_OPTIONS: Mapping[str, JsonValue] = MappingProxyType({})


class RulesetBase(Ruleset[S]):
    """A ruleset: its ids, its step table and engine functions; the rest has defaults.

    Abstract (mypy refuses to instantiate a subclass that lacks one): ``id``, ``roles``,
    ``causes``, ``teams``, ``event_types``, ``distributions``, ``step_table``, ``view``,
    ``new_game``, ``choices``, ``apply``, ``resolve``, and the state's ``codec``.
    """

    keywords: tuple[str, ...] = ()
    options: Mapping[str, JsonValue] = _NO_OPTIONS
    distribution_keys: Mapping[str, JsonValue] = _NO_OPTIONS
    settings_defaults: Mapping[str, JsonValue] = _NO_OPTIONS
    story_facts: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    """Event type -> the facts :meth:`tell` adds to it for its story (Wakkerdam: a ``death``'s
    shown ``role``, a ``lynch``'s ``votes`` and the ``marked`` and ``mayor`` of the view)."""
    ballots_of: Mapping[str, str] = MappingProxyType({})
    """Event type -> the keyword whose ballots are its told ``votes`` (Lupus: the ``election``
    is told with the ``sindaco`` ballots); any other event's ``votes`` are the plain votes."""
    told_as: Mapping[str, str] = MappingProxyType({})
    """Role -> the role a player who has it is told he has (Wakkerdam: the Dwaas believes he is
    the Ziener); the defaults of ``told_role``, ``start_events`` and ``as_told`` follow it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a public name that is no member of the base (a misspelt override)."""
        super().__init_subclass__(**kwargs)
        members = {name for klass in RulesetBase.__mro__ for name in vars(klass)}
        unknown = sorted(
            name for name in vars(cls) if not name.startswith("_") and name not in members
        )
        if unknown:
            raise TypeError(f"{cls.__name__}: not a Ruleset member: {', '.join(unknown)}")

    @property
    @abstractmethod
    def step_table(self) -> StepTable[S]:
        """The order of play: one table of steps, each with its phase and who is asked."""

    @property
    @abstractmethod
    def codec(self) -> StateCodec[S]:
        """The state to and from its stored JSON form (``StateCodec(GameState, ruleset=id)``)."""

    def dump_state(self, state: S) -> dict[str, Any]:
        """Return the state as a JSON-safe dict (the ``codec``'s form)."""
        return self.codec.dump(state)

    def dump_state_from(self, before: S, stored: Mapping[str, Any], state: S) -> dict[str, Any]:
        """``dump_state(state)`` for a state made from ``before``, whose ``dump_state`` is
        ``stored``: the fields the two share by identity are taken from ``stored`` (the
        codec's ``dump_from``)."""
        return self.codec.dump_from(before, stored, state)

    def load_state(self, data: Mapping[str, Any]) -> S:
        """Return the state from :meth:`dump_state`'s dict (ValueError/KeyError: malformed)."""
        return self.codec.load(data)

    @property
    def steps(self) -> tuple[str, ...]:
        """The step ids, in table order."""
        return self.step_table.ids()

    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Draw (seeded) among the built-in and ``extra`` distributions for ``n_players``.

        Raises ValueError when none fits.
        """
        fitting = [d for d in (*self.distributions, *extra) if d.players == n_players]
        if not fitting:
            raise ValueError(f"no distribution for {n_players} players")
        return draw_from(seed, 0, fitting)

    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the distribution's roles to ``names`` (seat order kept) by a seeded shuffle.

        ``names`` may be ``(name, gender)`` pairs.  Raises ValueError when the counts differ.
        """
        return deal_shuffled(names, distribution, seed)

    def asked(self, state: S) -> tuple[str, ...]:
        """Who the step table asks in the current step, in seat order (none once over)."""
        return self.step_table.get(state.step).asked(state) if state.step is not None else ()

    def all_voted(self, state: S) -> bool:
        """Whether every asked player has a vote in force (any of his votes)."""
        voters = {key.partition(":")[0] for key in self.view(state).votes}
        return all(name in voters for name in self.asked(state))

    def remove(self, state: S, name: str) -> Resolution[S]:
        """Refuse: a ruleset removes a player only where it says how (ValueError)."""
        raise ValueError(f"the {self.id} rules have no removal of a player")

    def known_mates(self, state: S) -> Mapping[str, tuple[str, ...]]:
        """Player -> the players his role information names to him (none by default)."""
        return {}

    def start_events(self, state: S) -> tuple[Event, ...]:
        """One ``role`` event per player: his role as he is told it, his team, his mates."""
        from rules.core.events import RoleInfo  # the events: only where a game is played

        mates = self.known_mates(state)
        return tuple(
            RoleInfo(
                player=seat.name,
                role=self.told_as.get(seat.role, seat.role),
                team=seat.team,
                mates=mates.get(seat.name, ()),
            )
            for seat in self.view(state).players
        )

    def told_role(self, state: S, name: str) -> str | None:
        """The role ``name`` believes he has: his true role, or what ``told_as`` tells him for
        it (None: no such player)."""
        player = state.find(name)
        return None if player is None else self.told_as.get(player.role, player.role)

    def shown_role(self, state: S, name: str) -> str | None:
        """The role ``name``'s death showed the village: his true role (None: no player)."""
        player = state.find(name)
        return None if player is None else player.role

    def told_roles(self, state: S) -> ToldRoles:
        """Every player's ``told_role``, and the ``shown_role`` of every player out of play."""
        players = state.players
        own: dict[str, str | None]
        if type(self).told_role is RulesetBase.told_role:
            # the default told_role, seat by seat: no look-up of each player by his name
            told_as = self.told_as
            own = {p.name: told_as.get(p.role, p.role) for p in players}
        else:
            own = {p.name: self.told_role(state, p.name) for p in players}
        return ToldRoles(
            own=own,
            shown={p.name: self.shown_role(state, p.name) for p in players if not p.alive},
        )

    def told_choices(self, state: S, player: str) -> Choices:
        """``choices``, with the action of ``player``'s own role named by ``told_role``."""
        choices = self.choices(state, player)
        if not choices.actions:
            return choices
        seat = state.find(player)
        told = self.told_role(state, player)
        if seat is None or not told or told == seat.role:
            return choices
        actions = tuple(
            replace(choice, action=told) if choice.action == seat.role else choice
            for choice in choices.actions
        )
        return replace(choices, actions=actions)

    def as_told(self, event: Event) -> Event:
        """A ``role_change`` to a role of ``told_as`` is told as that role (the log and the
        transcript keep the truth); every other event as it is."""
        from rules.core.events import RoleChange

        if isinstance(event, RoleChange) and event.role in self.told_as:
            return RoleChange(player=event.player, role=self.told_as[event.role])
        return event

    def addressed(
        self, state: S, events: Sequence[Event], *, told: bool = False
    ) -> list[dict[str, Any]]:
        """Return ``events`` in transcript form, each with its ``audience``: ``"public"`` or the
        sorted names of the players who may learn it (``recipients`` in ``state``).  With
        ``told``, each event as its audience is told it (``as_told``); without, the truth, as
        the game log keeps it."""
        out = []
        for event in events:
            data = (self.as_told(event) if told else event).to_dict()
            names = self.recipients(state, event.audience)
            data["audience"] = "public" if names is None else sorted(names)
            out.append(data)
        return out

    def tell(
        self,
        before: S,
        after: S,
        events: Sequence[Mapping[str, Any]],
        *,
        reveal_roles: bool,
    ) -> list[dict[str, Any]]:
        """Return the step's events (transcript form with audiences) with what a story tells
        beside the rules' facts.

        ``before`` is the state the step was resolved from, ``after`` the new one.  A ``death``
        gets the role his death showed (``shown_role``) when the game reveals roles, and a
        ``role_change`` the ``previous`` role its player believed he had.  An event whose
        ``story_facts`` hold ``votes`` gets the plain votes in force at the deadline, voter ->
        names (``[]``: blank), or for an event of ``ballots_of`` the ballots of that keyword
        vote, unless the view's facts say the vote is secret (``secret_vote``); ``ballots``:
        each voter's keyword (``""``: a vote without keyword); a role change's ``mates``: the
        living players the role information of the new state names to him (a promoted Welp
        learns the pack he now wakes with).  Any other fact is taken from the public facts of
        the view the step was resolved from, when it has one by that name (the lynch's
        ``marked``, and ``mayor``, the mayor who voted).
        """
        seen = self.view(before)
        secret = bool(self.view(after).facts.get("secret_vote"))
        told: list[dict[str, Any]] = []
        mates: Mapping[str, list[str]] | None = None  # worked out at the first role change
        for event in events:
            kind = str(event.get("type"))
            wanted = self.story_facts.get(kind, ())
            data = dict(event)
            player = str(event.get("player"))
            if kind == "death" and reveal_roles and "role" not in data:
                data["role"] = self.shown_role(after, player)
            elif "votes" in wanted and not secret and "votes" not in data:
                data["votes"] = _votes(seen.votes, self.ballots_of.get(kind))
            elif "ballots" in wanted and not secret and "ballots" not in data:
                data["ballots"] = _keywords(seen.votes)
            elif kind == "role_change" and "previous" not in data:
                data["previous"] = self.told_role(before, player)
                if "mates" in wanted:
                    mates = mates if mates is not None else self._living_mates(after)
                    data["mates"] = mates.get(player, [])
            for fact in wanted:
                if fact not in _FILLED and fact not in data and fact in seen.facts:
                    data[fact] = seen.facts[fact]
            told.append(data)
        return told

    def receipt(self, state: S, voter: str, keywords: Collection[str]) -> Receipt:
        """The action of ``voter``'s ``told_choices`` his vote was for: the one whose keyword is
        among ``keywords``, else his plain vote, else his first; and ``relay``'s readers of
        that action."""
        action = _voted_for(self.told_choices(state, voter).actions, keywords)
        readers = self.relay(state, voter, action.extra) if action is not None else ()
        return Receipt(action, readers)

    def tell_step(
        self, before: S, after: S, events: Sequence[Event], *, reveal_roles: bool
    ) -> ToldStep:
        """Return the step's events as the game log keeps them (the truth, ``addressed``) and
        as their stories tell them (``as_told``, then ``tell``'s facts), each event's audience
        worked out once (``recipients`` in ``after``)."""
        log, told = [], []
        for event in events:
            data = event.to_dict()
            names = self.recipients(after, event.audience)
            audience = "public" if names is None else sorted(names)
            shown = self.as_told(event)
            shown_data = data if shown is event else shown.to_dict()
            log.append({**data, "audience": audience})
            told.append(
                {**shown_data, "audience": list(audience) if names is not None else audience}
            )
        return ToldStep(log, self.tell(before, after, told, reveal_roles=reveal_roles))

    def relay(self, state: S, voter: str, extra: Mapping[str, JsonValue]) -> tuple[str, ...]:
        """Return who else reads ``voter``'s receipt for the action whose ``ActionChoice.extra``
        is ``extra``: the living members of its ``group`` (the vampiri's hunters, who converge
        by these copies as they would by gestures at the table), the voter aside."""
        group = extra.get("group")
        if not isinstance(group, list) or not group:
            return ()
        seats = self.view(state).by_name()
        return tuple(
            name
            for name in group
            if isinstance(name, str)
            and name != voter
            and (seat := seats.get(name)) is not None
            and seat.alive
        )

    def _living_mates(self, state: S) -> dict[str, list[str]]:
        """Player -> the living mates the role information of ``state`` names to him."""
        alive = set(self.view(state).alive)
        known: dict[str, list[str]] = {}
        for info in self.start_events(state):
            data = info.to_dict()
            if data.get("type") == "role" and isinstance(data.get("player"), str):
                names = data.get("mates") or ()
                known[data["player"]] = [name for name in names if name in alive]
        return known

    def recipients(self, state: S, audience: Audience) -> frozenset[str] | None:
        """Who may learn an event (None: everybody); a team is its members in play."""
        from rules.core.events import AudienceKind

        if audience.kind is AudienceKind.PUBLIC:
            return None
        if audience.kind is AudienceKind.PLAYERS:
            return frozenset(audience.names)
        teams = set(audience.names)
        return frozenset(s.name for s in self.view(state).players if s.alive and s.team in teams)

    def transcript_start(self, state: S) -> dict[str, Any] | None:
        """No start line."""
        return None

    def transcript_end(self, state: S) -> dict[str, Any]:
        """The final object of a transcript: end, winners, teams, alive, roles (the truth), and
        the view's ``mayor`` fact (null where the ruleset has none)."""
        view = self.view(state)
        return {
            "end": view.over,
            "winners": list(view.winners),
            "teams": list(view.teams),
            "alive": list(view.alive),
            "roles": {seat.name: seat.role for seat in view.players},
            "mayor": view.facts.get("mayor"),
        }


_FILLED = frozenset({"role", "previous", "votes", "ballots", "mates"})
"""The facts :meth:`RulesetBase.tell` works out itself (never copied from the view's facts)."""


def _voted_for(actions: Sequence[ActionChoice], keywords: Collection[str]) -> ActionChoice | None:
    """The action a vote with ``keywords`` was for (see :meth:`RulesetBase.receipt`)."""
    for action in actions:
        if action.keyword is not None and action.keyword in keywords:
            return action
    for action in actions:
        if action.keyword is None:
            return action
    return actions[0] if actions else None


def _votes(votes: Mapping[str, tuple[str, ...]], keyword: str | None) -> dict[str, list[str]]:
    """The plain votes (voter -> names), or the ballots of ``keyword`` (``Anna:sindaco``)."""
    if keyword is None:
        return {key: list(names) for key, names in votes.items() if ":" not in key}
    suffix = f":{keyword}"
    return {key.removesuffix(suffix): list(n) for key, n in votes.items() if key.endswith(suffix)}


def _keywords(votes: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """Voter -> the keyword of his vote in force (``""``: a vote without keyword)."""
    ballots: dict[str, str] = {}
    for key in votes:  # vote keys are "Name" or "Name:keyword" (rules.core.view)
        voter, _, keyword = key.partition(":")
        ballots[voter] = keyword
    return ballots
