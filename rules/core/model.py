"""Value objects every ruleset shares: seats, settings, votes, verdicts, choices, distributions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rules.core.events import Event

S = TypeVar("S")


@dataclass(frozen=True)
class Seat:
    """A player at the start of a game: name, dealt role, and gender (``man``/``vrouw``/None)."""

    name: str
    role: str
    gender: str | None = None


@dataclass(frozen=True)
class Settings:
    """Game settings that the rules need (the step length is the daemon's business)."""

    seed: int = 0
    mayor: bool = True
    strictness: int = 2
    close_early: bool = False
    reveal_roles: bool = True


@dataclass(frozen=True)
class Vote:
    """One mail's worth of vote: canonical target names, or blanco, plus special keywords."""

    player: str
    targets: tuple[str, ...] = ()
    blanco: bool = False
    keywords: frozenset[str] = frozenset()

    @property
    def is_blanco(self) -> bool:
        """Whether the vote names nobody (explicit ``blanco`` or an empty list)."""
        return self.blanco or not self.targets


@dataclass(frozen=True)
class Accepted(Generic[S]):
    """The vote was valid; ``state`` holds it."""

    state: S


@dataclass(frozen=True)
class Rejected:
    """The vote was invalid; ``code`` is a stable rejection code, ``detail`` says more."""

    code: str
    detail: str = ""


@dataclass(frozen=True)
class Resolution(Generic[S]):
    """The outcome of resolving a step: the new state, the events in order, and the trace."""

    state: S
    events: tuple[Event, ...]
    trace: tuple[str, ...]


@dataclass(frozen=True)
class ActionChoice:
    """One vote a player may send in the current step (most players have exactly one).

    ``keyword`` is the word the mail must carry to select this vote (None: a plain vote).
    ``targets`` are the valid names in seat order; ``previous`` is the choice the player may not
    repeat (``()`` = blanco) or None.  The Heks also gets ``wounded``, ``elixir``, ``poison``.
    """

    action: str
    keyword: str | None
    targets: tuple[str, ...]
    min_names: int
    max_names: int
    blanco: bool
    previous: tuple[str, ...] | None = None
    wounded: tuple[str, ...] = ()
    elixir: bool = False
    poison: bool = False


@dataclass(frozen=True)
class Choices:
    """Everything the step mail of ``player`` needs: his possible votes in step ``step``."""

    player: str
    step: str | None
    actions: tuple[ActionChoice, ...] = ()

    @property
    def is_asked(self) -> bool:
        """Whether the player may vote at all now."""
        return bool(self.actions)

    def _main(self) -> ActionChoice | None:
        return self.actions[0] if self.actions else None

    @property
    def targets(self) -> tuple[str, ...]:
        """The valid names of the main (plain) vote."""
        main = self._main()
        return main.targets if main else ()

    @property
    def min_names(self) -> int:
        """The fewest names the main vote may give (blanco aside)."""
        main = self._main()
        return main.min_names if main else 0

    @property
    def max_names(self) -> int:
        """The most names the main vote may give."""
        main = self._main()
        return main.max_names if main else 0

    @property
    def blanco(self) -> bool:
        """Whether blanco is allowed for the main vote."""
        main = self._main()
        return main.blanco if main else False

    @property
    def keywords(self) -> tuple[str, ...]:
        """The special keywords that select the player's other votes."""
        return tuple(a.keyword for a in self.actions if a.keyword is not None)


@dataclass(frozen=True)
class RoleSpec:
    """The declarative description of a role."""

    id: str
    name_nl: str
    name_en: str
    team: str
    step: str | None = None
    no_repeat: bool = False
    evil: bool = False
    burns: bool = False
    description: str = ""


def _role_tuple(roles: Mapping[str, int] | Iterable[str]) -> tuple[str, ...]:
    if isinstance(roles, Mapping):
        counted: Counter[str] = Counter()
        for role, count in roles.items():
            if not isinstance(count, int) or count < 0:
                raise ValueError(f"role {role!r}: count must be a whole number >= 0")
            counted[str(role)] += count
        items = list(counted.elements())
    else:
        items = [str(role) for role in roles]
    return tuple(sorted(items))


@dataclass(frozen=True)
class Distribution:
    """A role distribution: ``players`` seats get the multiset ``roles``; ``mayor`` yes/no.

    ``roles`` may be given as a mapping role -> count or as a sequence of role ids; it is
    stored as a sorted tuple of role ids.  Raises ValueError when the count does not match.
    """

    id: str
    players: int
    roles: tuple[str, ...] = field(default=())
    mayor: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "roles", _role_tuple(self.roles))
        if len(self.roles) != self.players:
            raise ValueError(
                f"distribution {self.id}: {len(self.roles)} roles for {self.players} players"
            )

    def role_counts(self) -> dict[str, int]:
        """Return role -> number of seats, in role-id order."""
        return dict(sorted(Counter(self.roles).items()))

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON/TOML form: id, players, roles (role -> count), mayor."""
        return {
            "id": self.id,
            "players": self.players,
            "roles": self.role_counts(),
            "mayor": self.mayor,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, default_id: str = "") -> Distribution:
        """Build a distribution from its dict/TOML form; raises ValueError when malformed."""
        try:
            roles = data["roles"]
            players = int(data.get("players", len(_role_tuple(roles))))
        except (KeyError, TypeError) as error:
            raise ValueError(f"bad distribution: {error}") from error
        return cls(
            id=str(data.get("id", default_id) or default_id or f"custom-{players}"),
            players=players,
            roles=roles,
            mayor=bool(data.get("mayor", True)),
        )
