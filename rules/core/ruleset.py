"""The interface every ruleset offers: the daemon, the stories and the runner code against it.

A ruleset is a folder of its own (``rules/<id>/``) whose module exposes ``RULESET``, an object of
this protocol, and one line in :mod:`rules.core.registry`.  Callers outside the ruleset never
read its state object: they read :meth:`Ruleset.view` and call these methods.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from rules.core.model import (
    Accepted,
    Choices,
    Distribution,
    Receipt,
    Rejected,
    Resolution,
    RoleSpec,
    Seat,
    Settings,
    ToldRoles,
    ToldStep,
    Vote,
)
from rules.core.view import GameView, JsonValue

if TYPE_CHECKING:  # only annotated here: a read of a state loads no event class
    from rules.core.events import Audience, Event

S = TypeVar("S")


class RulesState(Protocol):
    """A ruleset's state as every caller outside the ruleset holds it: opaque.

    It has no member to read (mypy refuses any): what the rest of the program may read of a
    state is the ruleset's :meth:`Ruleset.view`; the state itself is only handed back to the
    functions of the ruleset that made it.
    """


class Ruleset(Protocol[S]):
    """A complete ruleset: its ids, roles, distributions, and the pure game functions.

    ``S`` is the ruleset's own (immutable) state type.  Every function is pure and
    deterministic for the state's seed.
    """

    @property
    def id(self) -> str:
        """The ruleset id (``wakkerdam``), as in ``narrator game create --ruleset``."""
        ...

    @property
    def roles(self) -> Mapping[str, RoleSpec]:
        """Role id -> spec."""
        ...

    @property
    def steps(self) -> tuple[str, ...]:
        """The step ids, in table order."""
        ...

    @property
    def causes(self) -> tuple[str, ...]:
        """The death cause ids."""
        ...

    @property
    def teams(self) -> tuple[str, ...]:
        """The team ids (what ``winners``' ``teams`` may hold)."""
        ...

    @property
    def keywords(self) -> tuple[str, ...]:
        """The ids of the special votes' keywords, in the order a vote reports them."""
        ...

    @property
    def action_kinds(self) -> tuple[str, ...]:
        """Every action id a player may be asked (each :class:`ActionChoice`'s ``action``):
        the kinds a step mail, a receipt and an error may meet, which the story packs' samples
        must cover."""
        ...

    @property
    def options(self) -> Mapping[str, JsonValue]:
        """The ruleset's own settings with their defaults (Wakkerdam: ``{"mayor": True}``)."""
        ...

    @property
    def distribution_keys(self) -> Mapping[str, JsonValue]:
        """Keys a role distribution may carry beside the options, with their defaults (Mafia:
        ``negative``, ``faceless``, ``elite``: the black roles, the Faceless and the extra
        players); empty for most rulesets."""
        ...

    @property
    def settings_defaults(self) -> Mapping[str, JsonValue]:
        """The core settings a new game of this ruleset starts with unless the admin says
        otherwise (Lupus: ``{"reveal_roles": False}``, its dead are never revealed; Mafia:
        ``{"strictness": 3}``); empty: the core's own defaults."""
        ...

    @property
    def event_types(self) -> Mapping[str, type[Event]]:
        """Transcript event type -> its class, for every event the ruleset emits."""
        ...

    @property
    def story_facts(self) -> Mapping[str, tuple[str, ...]]:
        """Event type -> the facts :meth:`tell` adds to it for its story (beside a death's shown
        role and a role change's previous role, which every ruleset tells)."""
        ...

    @property
    def distributions(self) -> tuple[Distribution, ...]:
        """The built-in role distributions."""
        ...

    def pick_distribution(
        self, n_players: int, seed: int, extra: Sequence[Distribution] = ()
    ) -> Distribution:
        """Return a distribution for ``n_players`` chosen by ``seed`` (ValueError: none fits)."""
        ...

    def deal(
        self, names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
    ) -> tuple[Seat, ...]:
        """Deal the distribution's roles to ``names`` (seat order kept), seeded."""
        ...

    def new_game(self, seats: Sequence[Seat], settings: Settings) -> S:
        """Return the state of a new game at its first step (ValueError on bad seats/settings)."""
        ...

    def view(self, state: S) -> GameView:
        """Return what the rest of the program may read of ``state``."""
        ...

    def asked(self, state: S) -> tuple[str, ...]:
        """Return who may vote in the current step, in seat order."""
        ...

    def all_voted(self, state: S) -> bool:
        """Whether every vote that can close the step early has been sent."""
        ...

    def choices(self, state: S, player: str) -> Choices:
        """Return what ``player`` may send now (no ``actions`` when he is not asked)."""
        ...

    def told_choices(self, state: S, player: str) -> Choices:
        """Return :meth:`choices` as ``player`` is told them: the action of his own role named
        by the role he was told he has (the Dwaas asked as the Ziener)."""
        ...

    def receipt(self, state: S, voter: str, keywords: Collection[str]) -> Receipt:
        """Return what ``voter``'s receipt (or the refusal of his vote) tells in ``state``: the
        action of his :meth:`told_choices` that his vote with ``keywords`` was for, and who else
        reads the receipt (:meth:`relay`)."""
        ...

    def apply(self, state: S, vote: Vote) -> Accepted[S] | Rejected:
        """Validate and store a vote (it replaces the player's earlier vote for that action)."""
        ...

    def resolve(self, state: S) -> Resolution[S]:
        """Resolve the current step and advance (ValueError when the game is over)."""
        ...

    def remove(self, state: S, name: str) -> Resolution[S]:
        """Take player ``name`` out of the running game by an admin's decision, the ruleset's own
        way (Lupus: an exile; the others: a death by removal), with what follows from it (a
        lover's bond, a successor, a win): the new state (still at the same step, its
        deadline unchanged, unless the game ended) and the events, ``removed`` first.

        Raises ValueError when the game is over or the player cannot be removed (unknown,
        already out of play)."""
        ...

    def known_mates(self, state: S) -> Mapping[str, tuple[str, ...]]:
        """Return player -> the players his role information names to him (his pack)."""
        ...

    def start_events(self, state: S) -> tuple[Event, ...]:
        """Return the start's events: one ``role`` event per player, and any public ones."""
        ...

    def told_role(self, state: S, name: str) -> str | None:
        """Return the role ``name`` believes he has (Wakkerdam's Dwaas: ``ziener``)."""
        ...

    def shown_role(self, state: S, name: str) -> str | None:
        """Return the role the whole village was shown for ``name``, who is out of play, in a
        game that reveals roles (the truth in most rulesets; a Mafia night death shows only the
        peaceful role); None: no such player, or nothing was shown."""
        ...

    def told_roles(self, state: S) -> ToldRoles:
        """Return every player's :meth:`told_role` and every out-of-play player's
        :meth:`shown_role`, by name: what a game's readers are told of its roles."""
        ...

    def as_told(self, event: Event) -> Event:
        """Return ``event`` as its audience is told it (a role change to a hidden role)."""
        ...

    def addressed(
        self, state: S, events: Sequence[Event], *, told: bool = False
    ) -> list[dict[str, Any]]:
        """Return ``events`` in transcript form with their ``audience`` (``"public"`` or the
        sorted names of their readers); with ``told``, as their audience is told them."""
        ...

    def tell(
        self,
        before: S,
        after: S,
        events: Sequence[Mapping[str, Any]],
        *,
        reveal_roles: bool,
    ) -> list[dict[str, Any]]:
        """Return a step's events (transcript form with audiences; ``before``: the state the
        step was resolved from, ``after``: the new one) with what their stories need beside the
        rules' facts: the shown role of the dead, the previous role, mates, votes, ballots."""
        ...

    def tell_step(
        self, before: S, after: S, events: Sequence[Event], *, reveal_roles: bool
    ) -> ToldStep:
        """Return a resolved step's ``events`` (``before``: the state it was resolved from,
        ``after``: the new one) in both forms at once: the truth with audiences, as
        :meth:`addressed` writes it (the game log), and as told with their story facts, as
        :meth:`tell` adds them (the stories)."""
        ...

    def relay(self, state: S, voter: str, extra: Mapping[str, JsonValue]) -> tuple[str, ...]:
        """Return who else reads ``voter``'s receipt for the action with this ``extra`` (the
        members of its ``group``: the vampiri's hunters), in the group's order."""
        ...

    def recipients(self, state: S, audience: Audience) -> frozenset[str] | None:
        """Return the players who may learn an event with ``audience`` (None: everybody)."""
        ...

    def transcript_start(self, state: S) -> dict[str, Any] | None:
        """Return the first transcript line (Lupus, Mafia: ``{"start": true, ...}``), or None."""
        ...

    def transcript_end(self, state: S) -> dict[str, Any]:
        """Return the final object of a transcript (interfaces §3) for ``state``."""
        ...

    def dump_state(self, state: S) -> dict[str, Any]:
        """Return the state as a JSON-safe dict."""
        ...

    def dump_state_from(self, before: S, stored: Mapping[str, Any], state: S) -> dict[str, Any]:
        """Return :meth:`dump_state` of ``state``, made from ``before`` whose dict is ``stored``:
        what the two states share is not encoded again (a vote's state: all but its votes)."""
        ...

    def load_state(self, data: Mapping[str, Any]) -> S:
        """Return the state from :meth:`dump_state`'s dict."""
        ...
