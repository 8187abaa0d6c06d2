"""The data a story sees: players, the game, actions, events, and the fields of every mail."""

from __future__ import annotations

import dataclasses
import datetime as dt
import keyword
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Final, cast

from rules.core.events import Event as RulesEvent
from rules.core.registry import get_ruleset, ruleset_ids
from stories.keys import MAIL_TYPES

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
_GENDERS = frozenset({"man", "vrouw"})
_STR = frozenset({str})
_PLAYER_KEYS = frozenset({"name", "gender", "role", "alive", "exiled", "revealed", "email"})


class ContextError(ValueError):
    """The caller passed a context or event that does not match the documented shape."""


def clean_text(value: str) -> str:
    """A one-line string: control characters (CR, LF, TAB, NUL…) become single spaces."""
    if value.isprintable():  # no control character, nor a line or paragraph separator
        return value.strip()
    return _CONTROL.sub(" ", value).strip()


def clean_texts(values: Iterable[object]) -> tuple[str, ...]:
    """:func:`clean_text` of each value as a string (the choices of an action: a name a
    player), all checked at once: when none has a control character, each is only stripped."""
    texts = tuple(values)
    if set(map(type, texts)) <= _STR:  # plain strings, each its own str()
        strings = cast(tuple[str, ...], texts)
        if "".join(strings).isprintable():
            return tuple(map(str.strip, strings))
    return tuple(clean_text(str(value)) for value in texts)


def clean_names(names: Iterable[str]) -> dict[str, str]:
    """Each name -> :func:`clean_text` of it: the names of a step, cleaned once for its mails."""
    return {name: clean_text(name) for name in names}


def _gender(value: str) -> str:
    if value in _GENDERS:
        return value
    lowered = value.strip().lower()
    if lowered in ("man", "m", "male", "he"):
        return "man"
    if lowered in ("vrouw", "v", "f", "female", "woman", "she"):
        return "vrouw"
    raise ContextError(f"gender must be 'man' or 'vrouw', not {value!r}")


@dataclass(frozen=True)
class Player:
    """A player as stories see him: name, gender (`man`|`vrouw`), known role, alive; `exiled`:
    out of play but living (Lupus), so `alive` is False; `revealed`: his `role` is public while he
    lives (Wakkerdam's Dorpsgek)."""

    name: str
    gender: str = "man"
    role: str | None = None
    alive: bool = True
    exiled: bool = False
    revealed: bool = False

    def __post_init__(self) -> None:
        # Cast.of_rows checks a whole roster so at once, and makes its Players without this:
        # a check added here must be added there too.
        name, gender = clean_text(self.name), _gender(self.gender)
        if name is not self.name:  # most names are clean already: no write for them
            object.__setattr__(self, "name", name)
        if gender is not self.gender:
            object.__setattr__(self, "gender", gender)

    @classmethod
    def from_any(cls, value: Player | Mapping[str, Any]) -> Player:
        """A Player from a Player or a mapping with name, gender, role, alive."""
        if isinstance(value, Player):
            return value
        if not _PLAYER_KEYS.issuperset(value):
            raise ContextError(f"unknown player fields {sorted(set(value) - _PLAYER_KEYS)}")
        return cls(
            name=str(value["name"]),
            gender=str(value.get("gender", "man")),
            role=value.get("role"),
            alive=bool(value.get("alive", True)),
            exiled=bool(value.get("exiled", False)),
            revealed=bool(value.get("revealed", False)),
        )

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Game:
    """The game as stories see it (`game` in every template)."""

    name: str
    ruleset: str = "wakkerdam"
    language: str = "nl"
    theme: str = "wakkerdam"
    step: str | None = None
    phase: str | None = None
    night: int = 0
    day: int = 0
    speed: str = "2d"
    strictness: int = 2
    has_mayor: bool = False
    mayor: str | None = None
    deadline: dt.datetime | None = None
    # The IANA name of the zone `deadline` is given in ("UTC", "Europe/Amsterdam").
    timezone: str = "UTC"

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_text(self.name))

    @classmethod
    def from_any(cls, value: Game | Mapping[str, Any]) -> Game:
        """A Game from a Game or a mapping of its fields."""
        if isinstance(value, Game):
            return value
        if not value.keys() <= cls.__dataclass_fields__.keys():  # (compared in C)
            unknown = set(value) - set(cls.__dataclass_fields__)
            raise ContextError(f"unknown game fields {sorted(unknown)}")
        return cls(**value)


@dataclass(frozen=True)
class Action:
    """One thing a player is asked to do in a step (`step`, `receipt`, `error`, `reminder`).

    `kind` is the acting role id (`ziener`, `weerwolf` for a pack vote, `witte_weerwolf` for the
    white wolf's solo kill, `jager`, …) or `testament` (dead mayor), `burgemeesterverkiezing`,
    `brandstapel`.  `choices` are the valid names; `min`/`max` how many names one vote holds;
    `blanco` whether blanco is allowed; `keyword` a word the mail must contain (`witte`,
    `burgemeester`); `previous` the names of the last choice a no-repeat role may not repeat
    (`["blanco"]` when that was blanco); `extra` what the ruleset adds for this action (the
    rules' ``ActionChoice.extra``, e.g. the heks's `wounded`, `elixir`, `poison`); `mates`
    the other pack members who vote too; `move` the move the action is one of when several
    actions are one move (the rules' ``ActionChoice.move``; None: a move of its own): a mail
    may hold several moves, one a line.
    """

    kind: str
    choices: tuple[str, ...] = ()
    min: int = 1
    max: int = 1
    blanco: bool = True
    keyword: str | None = None
    previous: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    mates: tuple[str, ...] = ()
    move: str | None = None

    @classmethod
    def from_any(
        cls, value: Action | Mapping[str, Any], names: Mapping[str, str] | None = None
    ) -> Action:
        """An Action from an Action or a mapping of its fields (lists become tuples).  `names`
        (:func:`clean_names` of a step's players) holds names already cleaned."""
        if isinstance(value, Action):
            return value
        if not value.keys() <= cls.__dataclass_fields__.keys():  # (compared in C)
            unknown = set(value) - set(cls.__dataclass_fields__)
            raise ContextError(f"unknown action fields {sorted(unknown)}")
        fields = dict(value)
        for name in ("choices", "previous", "mates"):
            if name in fields:
                if names:
                    fields[name] = tuple(
                        names[n] if n in names else clean_text(str(n)) for n in fields[name]
                    )
                else:
                    fields[name] = clean_texts(fields[name])
        if "extra" in fields:
            fields["extra"] = MappingProxyType(_clean(dict(fields["extra"] or {})))
        return cls(**fields)


_REQUIRED: Final = object()


def _transcript_names(event_type: type[RulesEvent]) -> dict[str, str]:
    """Field name -> its name in the transcript form, for a field named after a Python keyword:
    the dataclass spells it ``<keyword>_<noun>`` and ``to_dict`` writes the keyword (the Mafia
    ``role_change``'s ``from_player`` is ``from``, rules/mafia/events.py)."""
    spelt = {}
    for spec in dataclasses.fields(event_type):
        head = spec.name.split("_", 1)[0]
        if head != spec.name and keyword.iskeyword(head):
            spelt[spec.name] = head
    return spelt


def event_schema(ruleset: str) -> Mapping[str, Mapping[str, Any]]:
    """event type -> {field: default} for `ruleset` (transcript form, interfaces §3).

    The fields are those of the ruleset's event dataclasses (``event_types``; a field without a
    default is required), plus the optional facts the ruleset tells with them (None when
    absent): its ``story_facts`` (:meth:`rules.core.ruleset.Ruleset.tell`).  An unknown ruleset
    gets the events of every registered one.
    """
    if ruleset not in ruleset_ids():
        return all_event_fields()
    rules = get_ruleset(ruleset)
    added = rules.story_facts
    schema: dict[str, Mapping[str, Any]] = {}
    for name, event_type in rules.event_types.items():
        fields: dict[str, Any] = {}
        spelt = _transcript_names(event_type)
        for spec in dataclasses.fields(event_type):
            factory = spec.default_factory
            field_name = spelt.get(spec.name, spec.name)
            if spec.default is not dataclasses.MISSING:
                fields[field_name] = spec.default
            elif callable(factory):
                fields[field_name] = factory()
            else:
                fields[field_name] = _REQUIRED
        for extra in added.get(name, ()):
            fields.setdefault(extra, None)
        schema[name] = MappingProxyType(fields)
    return MappingProxyType(schema)


def all_event_fields() -> Mapping[str, Mapping[str, Any]]:
    """event type -> {field: default} over every registered ruleset (the first ruleset's fields
    where two define one type); `_REQUIRED` fields must be present.  Per ruleset: event_schema.

    A function, not a constant: importing the story context loads no ruleset and no pack."""
    merged: dict[str, Mapping[str, Any]] = {}
    for ruleset in ruleset_ids():
        for name, fields in event_schema(ruleset).items():
            merged.setdefault(name, fields)
    return MappingProxyType(merged)


#: mail -> {field: default}: the fields a mail template sees besides the common ones.
MAIL_FIELDS: Final[Mapping[str, Mapping[str, Any]]] = MappingProxyType(
    {
        "signup_confirmed": {"player": _REQUIRED, "signups": (), "replaced": False},
        "role": {
            "player": _REQUIRED,
            "role": _REQUIRED,
            "team": None,
            "mates": (),
            "announced": (),
            "facts": {},
        },
        "step": {"player": _REQUIRED, "actions": _REQUIRED},
        "receipt": {
            "player": _REQUIRED,
            "action": _REQUIRED,
            "targets": (),
            "blanco": False,
            "corrected": (),
            "moves": (),
            "keywords": (),
        },
        "error": {
            "player": None,
            "code": _REQUIRED,
            "message": "",
            "action": None,
            "choices": (),
        },
        "reminder": {"player": _REQUIRED, "actions": _REQUIRED, "missed": 0},
        "night_result": {"stories": (), "events": (), "private": False, "announcement": False},
        "day_result": {"stories": (), "events": (), "private": False, "announcement": False},
        "game_over": {
            "winners": _REQUIRED,
            "teams": _REQUIRED,
            "roles": _REQUIRED,
            "alive": (),
            "mayor": None,
        },
        "help_forward": {"sender": _REQUIRED, "player": None, "subject": "", "body": ""},
        "help_digest": {
            "sender": _REQUIRED,
            "player": None,
            "forwarded": 0,
            "held": _REQUIRED,
            "subjects": (),
            "closing": False,
            "hour": None,
        },
        "help_received": {"player": None, "subject": "", "over": False},
        "epilogue": {
            "chapters": _REQUIRED,
            "dealt": {},
            "roles": {},
            "winners": (),
            "teams": (),
        },
    }
)
assert set(MAIL_FIELDS) == set(MAIL_TYPES)

#: Names every template sees (besides the helpers): see docs/stories.md.
COMMON_NAMES: Final = frozenset(
    {"game", "players", "recipient", "lang", "moment", "you", "page_link", "unlisted"}
)
EVENT_NAMES: Final = frozenset({"event"})
#: What a mail's context may carry for its layout besides the common names (not for
#: templates): the public game page (`game_link`, docs/web.md) and who died in the step just
#: told (`fallen`), which a big game's summed-up roster tells (stories.layout.summed_roster).
LAYOUT_FIELDS: Final = frozenset({"page_link", "game_link", "fallen"})


def _clean(value: Any) -> Any:
    """Names and other strings from outside, made one-line; containers cleaned recursively."""
    if isinstance(value, str):
        return clean_text(value)
    if value is None or isinstance(value, bool | int):  # (most fields: no Mapping check)
        return value
    if isinstance(value, list | tuple):
        return tuple(_clean(v) for v in value)
    if isinstance(value, Mapping):
        return {clean_text(str(k)): _clean(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Event:
    """An event in transcript form with its audience, fields filled to the documented shape."""

    type: str
    audience: tuple[str, ...]
    fields: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        ruleset: str | None = None,
        schema: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Event:
        """An Event from the daemon's dict: `{"type": …, "audience": …, <fields>}`.

        `audience` is "public", a player name, a team id, or a list of these (default public).
        The fields are those of `ruleset`'s event (of any ruleset's when None), as `schema`
        gives them (default: :func:`event_schema`; a caller reading many events of one ruleset
        works it out once and passes it).  Raises ContextError for an unknown type or a
        missing field.
        """
        if schema is None:
            schema = all_event_fields() if ruleset is None else event_schema(ruleset)
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in schema:
            raise ContextError(f"unknown event type {kind!r}")
        audience = data.get("audience", "public")
        audiences = (audience,) if isinstance(audience, str) else tuple(audience)
        fields: dict[str, Any] = {}
        for name, default in schema[kind].items():
            if name in data:
                fields[name] = _clean(data[name])
            elif default is _REQUIRED:
                raise ContextError(f"event {kind!r} lacks field {name!r}")
            else:
                fields[name] = default
        extra = set(data) - set(schema[kind]) - {"type", "audience"}
        for name in sorted(extra):
            fields[name] = _clean(data[name])
        return cls(kind, tuple(clean_text(a) for a in audiences), fields)

    def is_visible_to(self, recipient: str | None, groups: frozenset[str] = frozenset()) -> bool:
        """True when the event's audience includes `recipient` (or one of his `groups`)."""
        for audience in self.audience:
            if audience == "public" or audience == recipient or audience in groups:
                return True
        return False

    def as_context(self) -> dict[str, Any]:
        """The `event` variable of a template: the fields plus `type`.

        An event with `votes` (voter -> targets, or None) also gets `voters` (target ->
        voters, in vote order) and `blanco` (who voted blanco).  Worked out once per event (a
        story goes to every player: a lynch of 1,000 votes is not tallied again for each of
        them); each
        call returns a fresh top-level dict, and templates cannot change what is inside.
        """
        return dict(self._context)

    @cached_property
    def _context(self) -> dict[str, Any]:
        context = {"type": self.type, **self.fields}
        if "votes" in self.fields:  # a vote's outcome (Wakkerdam's lynch): who voted whom
            votes = self.fields.get("votes") or {}
            voters: dict[str, list[str]] = {}
            for voter, targets in votes.items():
                for target in targets:
                    voters.setdefault(target, []).append(voter)
            context["voters"] = {k: tuple(v) for k, v in voters.items()}
            context["blanco"] = tuple(v for v, targets in votes.items() if not targets)
        return context

    def subjects(self) -> tuple[str, ...]:
        """The players the event is about (`player` and/or `players`)."""
        names: list[str] = []
        if isinstance(self.fields.get("player"), str):
            names.append(self.fields["player"])
        names.extend(self.fields.get("players") or ())
        return tuple(names)


#: What a mail's context may hold besides its own fields (checked by :func:`mail_fields`).
_GIVEN_TO_EVERY_MAIL: Final = frozenset({"game", "players", "recipient", *LAYOUT_FIELDS})


def mail_fields(mail: str, given: Mapping[str, Any], ruleset: str | None = None) -> dict[str, Any]:
    """The mail-specific fields of `mail` filled from `given` (defaults for optional ones).

    Players become Player objects where a player is expected; actions become Actions.
    Raises ContextError for unknown or missing fields.
    """
    schema = MAIL_FIELDS[mail]
    unknown = set(given).difference(schema, _GIVEN_TO_EVERY_MAIL)
    if unknown:
        raise ContextError(f"{mail}: unknown fields {sorted(unknown)}")
    out: dict[str, Any] = {}
    for name, default in schema.items():
        if name in given:
            value = given[name]
        elif default is _REQUIRED:
            raise ContextError(f"{mail}: missing field {name!r}")
        else:
            value = default
        if name == "player" and value is not None and not isinstance(value, str):
            value = Player.from_any(value)
        elif name == "player" and isinstance(value, str):
            value = clean_text(value)
        elif name in ("action",) and value is not None:
            value = Action.from_any(value)
        elif name == "actions":
            value = tuple(Action.from_any(a) for a in value)
        elif name == "corrected":
            value = tuple((clean_text(a), clean_text(b)) for a, b in value)
        elif name == "moves":
            value = tuple(_move(move) for move in value)
        elif name == "events":
            value = tuple(e if isinstance(e, Event) else Event.from_dict(e, ruleset) for e in value)
        elif name == "stories":
            value = tuple(str(s) for s in value)
        else:
            value = _clean(value)
        out[name] = value
    return out


def _move(move: Mapping[str, Any]) -> dict[str, Any]:
    """One move of a receipt's `moves`, its action an Action and its strings cleaned."""
    action = move.get("action")
    cleaned = _clean({k: v for k, v in move.items() if k != "action"})
    cleaned["action"] = Action.from_any(action) if action is not None else None
    cleaned["corrected"] = tuple(tuple(pair) for pair in cleaned.get("corrected", ()))
    return dict(cleaned)


def is_known_mail_or_event(name: str) -> bool:
    """True for every event type and mail name."""
    return name in MAIL_FIELDS or name in all_event_fields()


class Cast(tuple[Player, ...]):
    """The players of a render, checked once, in seat order, with a case-folded name index.

    Built once for a batch of mails (all players of a step, say) and shared by every render:
    :func:`players_from` and the helpers take it as it is, so a render does no work per player.
    :meth:`with_player` gives one recipient his own copy with his own entry replaced (his role),
    the shared cast itself never changes.  (The data attributes start with ``_``, which
    templates cannot reach; the players they see are the same as in the tuple.)
    """

    _by_folded: Mapping[str, Player]
    _seats: Mapping[str, int]
    # The cast every reader of a batch shares (itself, unless this is one recipient's copy
    # with his own role): what the whole village may know, for the roster (stories.layout).
    _shared: Cast
    # What is worked out once per shared cast (the roster lines, per language): a batch of n
    # mails does not join n names n times.
    _memo: dict[Any, Any]
    # Player -> the role he was told he has, which only his own mails show him (seen_by).
    _own: Mapping[str, str | None]
    # How many are alive, dead, exiled (out of play but living): counted at construction, so
    # a mail of a big game tells the numbers without going over every player again.
    _counts: tuple[int, int, int]

    def __new__(
        cls,
        values: Iterable[Player | Mapping[str, Any]] = (),
        own_roles: Mapping[str, str | None] | None = None,
    ) -> Cast:
        """A cast of Players or mappings (see :meth:`Player.from_any`), in the given order;
        `own_roles` is each player's role as he was told it (shown to him only)."""
        players = super().__new__(cls, (Player.from_any(v) for v in values))
        return players._indexed(own_roles)

    def _indexed(self, own_roles: Mapping[str, str | None] | None) -> Cast:
        """This new cast with its index, seats and counts (its players are set): the end of
        both constructors."""
        self._by_folded = {p.name.casefold(): p for p in self}
        self._seats = {p.name: seat for seat, p in enumerate(self)}
        self._shared = self
        self._memo = {}
        self._own = own_roles if own_roles is not None else {}
        alive = sum(1 for p in self if p.alive)
        exiled = sum(1 for p in self if not p.alive and p.exiled)
        self._counts = (alive, len(self) - alive - exiled, exiled)
        return self

    @classmethod
    def of_rows(
        cls,
        rows: Iterable[tuple[str, str, str | None, bool, bool, bool]],
        own_roles: Mapping[str, str | None] | None = None,
    ) -> Cast:
        """A cast of players given by their fields in :class:`Player`'s order (name, gender,
        role, alive, exiled, revealed): one call for a caller that holds them so, without a
        mapping per player to check again.

        The names and genders are checked for the whole roster at once, as :func:`clean_texts`
        checks choices: when every name is a string without a control character and every
        gender is `man` or `vrouw` (a game's players, always), each Player is made as
        :mod:`copy` makes one, ``object.__new__`` and then its fields, the names only stripped:
        the same Player as ``Player(*row)``, whose generated ``__init__`` of a frozen dataclass
        sets each field by a call of ``object.__setattr__`` and then cleans the name and checks
        the gender again (most of a big roster's cost).  Any other roster is made by
        ``Player(*row)``, with its cleaning and its ContextError.
        """
        rows = tuple(rows)
        if set(map(len, rows)) != {6}:  # no row, or a row short of fields: by Player's defaults
            return cls([Player(*row) for row in rows], own_roles)
        names = tuple(row[0] for row in rows)
        if not (
            set(map(type, names)) <= _STR
            and "".join(names).isprintable()
            and {row[1] for row in rows} <= _GENDERS
        ):
            return cls([Player(*row) for row in rows], own_roles)
        new = object.__new__
        players = []
        for name, gender, role, alive, exiled, revealed in rows:
            player = new(Player)
            player.__dict__.update(
                name=name.strip(),
                gender=gender,
                role=role,
                alive=alive,
                exiled=exiled,
                revealed=revealed,
            )
            players.append(player)
        return tuple.__new__(cls, players)._indexed(own_roles)

    def find(self, name: str) -> Player | None:
        """The player called `name` (case ignored), or None."""
        return self._by_folded.get(name.casefold())

    def with_player(self, player: Player) -> Cast:
        """A copy where the entry with `player`'s name is `player` (unchanged when absent).

        Costs two C-level copies (the tuple and the index), no work per player in Python.
        """
        seat = self._seats.get(player.name)
        if seat is None:
            return self
        copy = tuple.__new__(Cast, (*self[:seat], player, *self[seat + 1 :]))
        by_folded = dict(self._by_folded)
        by_folded[player.name.casefold()] = player
        copy._by_folded = by_folded
        copy._seats = self._seats  # same names at the same seats
        copy._shared = self._shared
        copy._memo = self._memo
        copy._own = self._own
        copy._counts = self._counts  # his own entry differs in its role only
        return copy

    def seen_by(self, recipient: str) -> Cast:
        """The cast as `recipient` sees it: with his own role, as he was told it (its
        `own_roles`), where nobody is shown it anyway; unchanged for anybody else."""
        told = self._own.get(recipient)
        own = self.find(recipient) if told is not None else None
        if own is None or own.name != recipient or own.role is not None:
            return self  # not a player, or his role is shown to everybody anyway
        # (Player's own fields given: what dataclasses.replace does, without its look at them)
        seen = Player(own.name, own.gender, told, own.alive, own.exiled, own.revealed)
        return self.with_player(seen)


def story_events(
    events: Iterable[Mapping[str, Any]], ruleset: str | None = None
) -> tuple[Event, ...]:
    """Events from the daemon's dicts (see :meth:`Event.from_dict`): a step's story, parsed
    once for every reader, against the ruleset's event schema worked out once."""
    schema = all_event_fields() if ruleset is None else event_schema(ruleset)
    return tuple(Event.from_dict(event, ruleset, schema) for event in events)


def shared_cast(cast: Cast) -> Cast:
    """The cast every reader shares: without any recipient's own role (see Cast.with_player)."""
    return cast._shared


def cast_counts(cast: Cast) -> tuple[int, int, int]:
    """How many players of `cast` are alive, dead, and exiled (out of play but living)."""
    return cast._counts


def players_from(values: Sequence[Player | Mapping[str, Any]]) -> Cast:
    """Players from Players or mappings, in the given (seat) order; a Cast is taken as it is."""
    return values if isinstance(values, Cast) else Cast(values)
