"""Value objects every ruleset shares: seats, settings, votes, verdicts, choices, distributions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rules.core.view import JsonValue

if TYPE_CHECKING:  # only annotated here: a read of a state loads no event class
    from rules.core.events import Event

S = TypeVar("S")


@dataclass(frozen=True)
class Seat:
    """A player at the start of a game: name, dealt role, and gender (``man``/``vrouw``/None)."""

    name: str
    role: str
    gender: str | None = None


CORE_SETTINGS = ("seed", "strictness", "close_early", "reveal_roles")
"""The settings every ruleset has; any other key of a settings dict is a ruleset option."""


@dataclass(frozen=True)
class Settings:
    """Game settings that the rules need (the step length is the daemon's business).

    ``options`` holds the ruleset's own settings (Wakkerdam: ``mayor``), validated by the
    ruleset's ``new_game``.  The dict form (:meth:`to_dict`) writes them beside the core keys,
    as a scenario file does, so one form serves the state dump, the game log, scenarios and replay.
    """

    seed: int = 0
    strictness: int = 2
    close_early: bool = False
    reveal_roles: bool = True
    options: Mapping[str, JsonValue] = field(default_factory=dict)

    def option(self, key: str, default: JsonValue = None) -> JsonValue:
        """Return the ruleset option ``key``, or ``default`` when it is not set."""
        return self.options.get(key, default)

    def check_options(self, allowed: Mapping[str, JsonValue]) -> None:
        """Raise ValueError unless every option is one of ``allowed`` with its default's type."""
        for key, value in self.options.items():
            if key not in allowed:
                known = ", ".join(sorted(allowed)) or "none"
                raise ValueError(f"unknown option {key!r} (this ruleset has: {known})")
            default = allowed[key]
            if default is None:
                continue  # an option whose default is None takes any JSON value
            expected = type(default)
            if not isinstance(value, expected) or (
                isinstance(value, bool) and expected is not bool
            ):
                raise ValueError(f"option {key!r} must be a {expected.__name__}, not {value!r}")

    def to_dict(self) -> dict[str, JsonValue]:
        """Return the JSON form: the core keys, then every option as a key of its own."""
        result: dict[str, JsonValue] = {
            "seed": self.seed,
            "strictness": self.strictness,
            "close_early": self.close_early,
            "reveal_roles": self.reveal_roles,
        }
        for key, value in sorted(self.options.items()):
            result[key] = value
        return result

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        ignore: Iterable[str] = (),
        defaults: Settings | None = None,
    ) -> Settings:
        """Build settings from their dict form; keys other than the core ones are options.

        ``ignore`` names keys that are not settings (a scenario's ``ruleset``, ``players`` …);
        a core key that is absent keeps its value in ``defaults``.  Raises ValueError for a core
        key of the wrong type.
        """
        base = defaults if defaults is not None else cls()
        skipped = set(ignore)
        options = dict(base.options)
        for key, value in data.items():
            if key not in CORE_SETTINGS and key not in skipped:
                options[str(key)] = value
        return cls(
            seed=_whole(data, "seed", base.seed),
            strictness=_whole(data, "strictness", base.strictness),
            close_early=_flag(data, "close_early", base.close_early),
            reveal_roles=_flag(data, "reveal_roles", base.reveal_roles),
            options=options,
        )


def _whole(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be a whole number, not {value!r}")
    return value


def _flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{key} must be true or false, not {value!r}")
    return value


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
    """The vote was invalid; ``code`` is a stable rejection code (a
    :class:`rules.core.refusals.Refusal` or a ruleset's own), ``detail`` says more."""

    code: str
    detail: str = ""

    def __post_init__(self) -> None:
        # a code given as an enum member is kept as its plain string, the contract's form
        object.__setattr__(self, "code", str(self.code))


@dataclass(frozen=True)
class Resolution(Generic[S]):
    """The outcome of resolving a step: the new state, the events in order, and the trace."""

    state: S
    events: tuple[Event, ...]
    trace: tuple[str, ...]


@dataclass(frozen=True)
class ToldStep:
    """A resolved step's events in the two forms the narrator keeps: ``log``, the truth in
    transcript form with each event's audience (the game log); ``story``, each event as its
    audience is told it, with what its story needs beside the rules' facts (the mails)."""

    log: list[dict[str, Any]]
    story: list[dict[str, Any]]


@dataclass(frozen=True)
class ToldRoles:
    """The roles a game's readers are told, for every player by name: ``own``, the role he
    believes he has (Wakkerdam's Dwaas: ``ziener``); ``shown``, for a player out of play, the
    role his death showed the village where the game reveals roles (None: nothing shown)."""

    own: Mapping[str, str | None]
    shown: Mapping[str, str | None]


@dataclass(frozen=True)
class ActionChoice:
    """One vote a player may send in the current step (most players have exactly one).

    ``keyword`` is the word the mail must carry to select this vote (None: a plain vote).
    ``targets`` are the valid names in seat order; ``previous`` is the choice the player may not
    repeat (``()`` = blanco) or None.  ``extra`` carries what a ruleset's step mail needs beyond
    that, in JSON form (Wakkerdam's Heks: ``wounded``, ``elixir``, ``poison``).
    A target need not be a player's name: a ruleset may offer other ids (a role, a team), which
    a mail names by the words its story pack has for them.  ``number`` is true when the vote
    names a number instead (written in digits; ``targets`` is then empty).  ``move`` names the
    move the vote is one of, when several votes are one move and replace each other (a Mafia
    ``check`` and ``verify``, a vampiri slot's options); None: the vote is a move of its own.
    A mail may hold several moves, never two votes of one move.
    """

    action: str
    keyword: str | None
    targets: tuple[str, ...]
    min_names: int
    max_names: int
    blanco: bool
    previous: tuple[str, ...] | None = None
    extra: Mapping[str, JsonValue] = field(default_factory=dict)
    number: bool = False
    move: str | None = None


@dataclass(frozen=True)
class Receipt:
    """What a voter's receipt tells beside his vote: the ``action`` it was for, as he was told
    it (None: he has none now), and the other ``readers`` the receipt is copied to (the vampiri's
    hunters)."""

    action: ActionChoice | None
    readers: tuple[str, ...] = ()


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
        """The plain vote (no keyword), if the player has one: a keyword vote is never main."""
        return next((a for a in self.actions if a.keyword is None), None)

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
    """The declarative description of a role (its words live in the story packs).

    ``flags`` are the ruleset's role categories, written once here (Wakkerdam: ``evil`` for the
    Ziener's "kwaad", ``burns`` for the Priester's holy water, ``pack`` for who wakes with the
    werewolves); ``step`` is the step in which the role acts, if any.
    """

    id: str
    team: str
    step: str | None = None
    no_repeat: bool = False
    flags: frozenset[str] = frozenset()
    description: str = ""

    def has(self, flag: str) -> bool:
        """Whether the role carries the category ``flag``."""
        return flag in self.flags


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
    """A role distribution: ``players`` seats get the multiset ``roles``, with ruleset options.

    ``roles`` may be given as a mapping role -> count or as a sequence of role ids; it is
    stored as a sorted tuple of role ids.  ``options`` are ruleset settings that come with the
    distribution (Wakkerdam: ``mayor``).  Raises ValueError when the count does not match.
    """

    id: str
    players: int
    roles: tuple[str, ...] = field(default=())
    options: Mapping[str, JsonValue] = field(default_factory=dict)

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
        """Return the JSON/TOML form: id, players, roles (role -> count), then the options."""
        result: dict[str, Any] = {
            "id": self.id,
            "players": self.players,
            "roles": self.role_counts(),
        }
        result.update(sorted(self.options.items()))
        return result

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, default_id: str = "") -> Distribution:
        """Build a distribution from its dict/TOML form; keys beside id, players and roles are
        options.  Raises ValueError when malformed."""
        try:
            roles = data["roles"]
            players = int(data.get("players", len(_role_tuple(roles))))
        except (KeyError, TypeError) as error:
            raise ValueError(f"bad distribution: {error}") from error
        options = {
            str(key): value for key, value in data.items() if key not in ("id", "players", "roles")
        }
        return cls(
            id=str(data.get("id", default_id) or default_id or f"custom-{players}"),
            players=players,
            roles=roles,
            options=options,
        )
