"""One typed JSON codec for the rulesets' frozen states, driven by their type hints.

Dataclasses become objects (one key per field, in field order), tuples and lists become lists,
sets become sorted lists, enums their value, :class:`~rules.core.model.Settings` its dict form
(:meth:`Settings.to_dict`).  A mapping becomes an object, unless its field is annotated
``Annotated[Mapping[K, V], AS_PAIRS]``: then a list of ``[key, value]`` pairs, which keeps the
order (a PostgreSQL ``jsonb`` column does not keep an object's key order), as a ruleset's votes
in arrival order need.  Loading reads the same forms back; a field absent from the data takes
its default, so a state stored before a field was added still loads.  A field whose metadata
is :data:`NOT_STORED` is neither written nor read.

A record is written sparse: a field whose value is its default (equal to it and of the same
type; a ``default_factory``'s value counts, the factory called when the codec is built) is
left out, the other fields keep their order.  Loading reads both forms, the full one (stored
before) and the sparse one, to equal values.  So a stored game's meaning depends on the
defaults in the code: changing a stored field's default changes every game stored with that
field at the old default, and needs a migration of the stored states instead
(``tests/rules/test_stored_defaults.py`` pins every stored field's default and fails when one
changes).  The state's header keys (``ruleset``, ``version``, see :class:`StateCodec`) are
always written, and :class:`~rules.core.model.Settings` keeps its own full form.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rules.core.model import Settings
from rules.core.records import is_plain_record

T = TypeVar("T")


class _Pairs:
    """The marker of a mapping stored as ``[key, value]`` pairs (see the module's docstring)."""

    def __repr__(self) -> str:
        return "AS_PAIRS"


AS_PAIRS = _Pairs()

NOT_STORED: Mapping[str, Any] = types.MappingProxyType({"stored": False})
"""A dataclass field's ``metadata`` for a field the codec neither writes nor reads (derived
data a value may share with another, such as a state's vote-free table): it takes its default
on load."""


def _stored(spec: dataclasses.Field[Any]) -> bool:
    """Whether the codec writes and reads this field: an ``init`` field, not :data:`NOT_STORED`."""
    return spec.init and spec.metadata.get("stored", True) is not False


_REQUIRED = object()
"""The default of a field that has none (never equal to a value: the field is always written)."""


def _default(spec: dataclasses.Field[Any]) -> Any:
    """The value a stored field takes when the data lacks it, which the sparse form leaves out:
    its ``default``, or its ``default_factory``'s value when two calls give equal values of one
    type (a factory that does not always give the same value is always written); else
    :data:`_REQUIRED`."""
    if spec.default is not dataclasses.MISSING:
        return spec.default
    if spec.default_factory is not dataclasses.MISSING:
        first, second = spec.default_factory(), spec.default_factory()
        if type(first) is type(second) and first == second:
            return first
    return _REQUIRED


Convert = Callable[[Any], Any]
"""One value to or from its JSON form."""


def _same(value: Any) -> Any:
    return value


class _Compiler:
    """Builds, once per type, the function that converts its values: reading a class's hints
    evaluates its annotations, far too slow to do for each value a state holds."""

    def __init__(self) -> None:
        self.encoders: dict[Any, Convert] = {}
        self.decoders: dict[Any, Convert] = {}
        self.plans: dict[Any, list[tuple[str, Any, type, Convert | None]]] = {}
        """A record type -> its encoder's plan (see :meth:`_record_encoder`)."""

    def encoder(self, kind: Any) -> Convert:
        """The function from a value of ``kind`` to its JSON form."""
        key = _cache_key(kind)
        if key in self.encoders:
            return self.encoders[key]
        if typing.get_origin(kind) is typing.Annotated:
            inner, *marks = typing.get_args(kind)
            if any(mark is AS_PAIRS for mark in marks):
                value = self.encoder(_mapping_args(inner)[1])
                return lambda v: [[k, value(x)] for k, x in v.items()]
            return self.encoder(inner)
        if kind is Settings:
            return Settings.to_dict
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return lambda v: v.value
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            return self._record_encoder(kind, key)
        origin, args = typing.get_origin(kind), typing.get_args(kind)
        if origin in (typing.Union, types.UnionType):
            options = [self.encoder(a) for a in args if a is not type(None)]
            if all(option is _same for option in options):
                return _same
            if len(options) == 1:
                only = options[0]
                return lambda v: None if v is None else only(v)
            return _plain
        if origin in (frozenset, set):
            item = self.encoder(args[0]) if args else _plain
            return lambda v: sorted(item(x) for x in v)
        if origin in (tuple, list):
            if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
                items = [self.encoder(a) for a in args]
                return lambda v: [f(x) for f, x in zip(items, v, strict=True)]
            item = self.encoder(args[0]) if args else _plain
            return list if item is _same else (lambda v: [item(x) for x in v])
        if origin in (Mapping, dict, typing.Mapping):
            value = self.encoder(_mapping_args(kind)[1])
            return lambda v: {str(k): value(x) for k, x in v.items()}
        if kind in (str, int, bool, float, type(None)):
            return _same
        return _plain

    def _record_encoder(self, kind: type, key: Any) -> Convert:
        # each stored field in field order: its name, its default (_REQUIRED: none, or one
        # not left out), the default's type, and its converter (None: the JSON form is the value)
        plan: list[tuple[str, Any, type, Convert | None]] = []
        self.plans[key] = plan

        def encode(value: Any) -> dict[str, Any]:
            data = vars(value)
            result: dict[str, Any] = {}
            for name, default, default_type, convert in plan:
                item = data[name]
                # left out: the default itself, or a value equal to it and of its type (a float
                # 1.0 is written where the default is the int 1: it would load as the int)
                if item is default or (item == default and type(item) is default_type):
                    continue
                result[name] = item if convert is None else convert(item)
            return result

        self.encoders[key] = encode  # before the fields: a record may hold itself
        hints = typing.get_type_hints(kind, include_extras=True)
        for spec in dataclasses.fields(kind):
            if _stored(spec):
                convert = self.encoder(hints[spec.name])
                default = _default(spec)
                plan.append(
                    (spec.name, default, type(default), None if convert is _same else convert)
                )
        return encode

    def decoder(self, kind: Any) -> Convert:
        """The function from the JSON form of a value of ``kind`` to the value (ValueError:
        the data does not fit)."""
        key = _cache_key(kind)
        if key in self.decoders:
            return self.decoders[key]
        if kind is Any or isinstance(kind, typing.ForwardRef):
            return _same
        if typing.get_origin(kind) is typing.Annotated:
            inner, *marks = typing.get_args(kind)
            if any(mark is AS_PAIRS for mark in marks):
                key_type, value_type = _mapping_args(inner)
                return _pairs_decoder(self.decoder(key_type), self.decoder(value_type))
            return self.decoder(inner)
        if kind is Settings:
            return _settings
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return kind
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            return self._record_decoder(kind, key)
        origin, args = typing.get_origin(kind), typing.get_args(kind)
        if origin in (typing.Union, types.UnionType):
            return _union_decoder(kind, [self.decoder(a) for a in args if a is not type(None)])
        if origin in (tuple, frozenset, set, list):
            if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
                return _fixed_decoder([self.decoder(a) for a in args])
            if not args:
                return _sequence_decoder(origin, _same, frozenset())
            return _sequence_decoder(origin, self.decoder(args[0]), _plain_types(args[0]))
        if origin in (Mapping, dict, typing.Mapping):
            key_type, value_type = _mapping_args(kind)
            return _mapping_decoder(key_type is int, self.decoder(value_type))
        if kind in (str, int, bool, float):
            return _scalar_decoder(kind)
        raise ValueError(f"cannot load type {kind!r}")

    def _record_decoder(self, kind: type, key: Any) -> Convert:
        # each stored field by name: the types its values may have as they are (none for a
        # converted field: a tuple, a record), and its decoder
        by_name: dict[str, tuple[frozenset[type], Convert]] = {}
        decode = _record_reader(kind, by_name)
        self.decoders[key] = decode  # before the fields: a record may hold itself
        hints = typing.get_type_hints(kind, include_extras=True)
        for spec in dataclasses.fields(kind):
            if _stored(spec):
                hint = hints[spec.name]
                by_name[spec.name] = (_plain_types(hint), self.decoder(hint))
        return decode


def _record_reader(kind: type, by_name: Mapping[str, tuple[frozenset[type], Convert]]) -> Convert:
    """The decoder of a record from its JSON object, sparse or full: each stored field the data
    holds is read (``by_name``: its types that are their own JSON form, kept as they are, and
    its decoder for any other value, which says what is wrong), an absent field takes its
    default as ``kind``'s ``__init__`` gives it, a key that is no stored field is not read.

    The record is made without the generated ``__init__`` of a frozen dataclass, which sets each
    field by ``object.__setattr__`` (a big game's fifty players of eighteen fields each cost
    most of its state's load in those calls), as :func:`rules.core.records.made` makes one:
    ``object.__new__``, then its ``__dict__`` takes every field's default, a factory's value
    for each field the data does not give (called for each record, as ``__init__`` calls it),
    and each field present as it is read (no dict of the values first, and no copy of it: a
    vote loads its game's fifty players).  A record that needs its
    ``__init__`` (no plain record: :func:`rules.core.records.is_plain_record`; or a field
    without default that its data lacks: ``__init__`` says which, by its TypeError) is made by
    ``kind(**values)``."""
    specs = dataclasses.fields(kind)
    missing = dataclasses.MISSING
    # every field __init__ sets (an argument's, or a factory's of a field that is none; a
    # field that is none and has a default keeps it in the class), in its order: its default
    # (the None of a field without one, or of a factory's, is replaced)
    template = {
        s.name: None if s.default is missing else s.default
        for s in specs
        if s.init or s.default_factory is not missing
    }
    # each field with a factory: its name, its factory, whether the codec reads it
    factories = tuple(
        (s.name, s.default_factory, _stored(s)) for s in specs if s.default_factory is not missing
    )
    required = frozenset(
        s.name for s in specs if s.init and s.default is missing and s.default_factory is missing
    )
    # (a field without default that the codec does not read: __init__ refuses every record)
    plain = is_plain_record(kind) and all(_stored(s) for s in specs if s.name in required)
    new = object.__new__

    def by_init(data: Mapping[str, Any]) -> Any:
        values = {}
        for name, item in data.items():
            field_of = by_name.get(name)
            if field_of is not None:
                exact, convert = field_of
                values[name] = item if type(item) in exact else convert(item)
        return kind(**values)  # (a required field missing: its TypeError)

    def decode(data: Any) -> Any:
        if not isinstance(data, dict) and not isinstance(data, Mapping):
            raise ValueError(f"{kind.__name__}: expected an object, got {data!r}")
        if not plain or not required.issubset(data):
            return by_init(data)
        # rules.core.records.made(kind, template), written out: a call for each record would
        # cost a tenth of a big game's load
        record: Any = new(kind)
        fields_of = vars(record)
        fields_of.update(template)
        if factories:  # (most records have none)
            for name, factory, stored in factories:
                if not stored or name not in data:  # (a field the data gives is read below)
                    fields_of[name] = factory()
        for name, item in data.items():
            field_of = by_name.get(name)
            if field_of is not None:
                exact, convert = field_of
                fields_of[name] = item if type(item) in exact else convert(item)
        return record

    return decode


def _plain_types(kind: Any) -> frozenset[type]:
    """The JSON types whose values are already values of ``kind`` (``str | None``: str and
    NoneType), or nothing when a value of ``kind`` is not its JSON form (a float, written ``1``
    for ``1.0``; a tuple; a record)."""
    if kind in (str, int, bool):
        return frozenset({kind})
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        options = [_plain_types(option) for option in typing.get_args(kind)]
        if all(options):
            return frozenset().union(*options)
    if kind is type(None):
        return frozenset({kind})
    return frozenset()


def _cache_key(kind: Any) -> Any:
    try:
        hash(kind)
    except TypeError:
        return id(kind)
    return kind


def _plain(value: Any) -> Any:
    """A value of no declared type (``Any``, a JSON value) as plain JSON data."""
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _Compiler().encoder(type(value))(value)
    if isinstance(value, frozenset | set):
        return sorted(_plain(item) for item in value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    return value


def _settings(data: Any) -> Settings:
    if not isinstance(data, Mapping):
        raise ValueError(f"settings: expected an object, got {data!r}")
    return Settings.from_dict(data)


def _pairs_decoder(key: Convert, value: Convert) -> Convert:
    def decode(data: Any) -> dict[Any, Any]:
        if not isinstance(data, list | tuple):
            raise ValueError(f"expected a list of pairs, got {data!r}")
        return {key(k): value(x) for k, x in data}

    return decode


def _union_decoder(kind: Any, options: list[Convert]) -> Convert:
    nullable = type(None) in typing.get_args(kind)  # read once, not for every value

    def decode(data: Any) -> Any:
        if data is None and nullable:
            return None
        errors = []
        for option in options:
            try:
                return option(data)
            except (ValueError, TypeError, KeyError) as error:
                errors.append(str(error))
        raise ValueError(f"no type of {kind} fits {data!r}: {errors}")

    return decode


def _fixed_decoder(items: list[Convert]) -> Convert:
    def decode(data: Any) -> tuple[Any, ...]:
        if not isinstance(data, list | tuple):
            raise ValueError(f"expected a list, got {data!r}")
        return tuple(f(x) for f, x in zip(items, data, strict=True))

    return decode


def _sequence_decoder(origin: Any, item: Convert, exact: frozenset[type]) -> Convert:
    """``exact``: the types of the items that are their own JSON form (see :func:`_plain_types`)."""

    def decode(data: Any) -> Any:
        if not isinstance(data, list | tuple):
            raise ValueError(f"expected a list, got {data!r}")
        if exact and exact.issuperset(map(type, data)):
            return origin(data)
        return origin(map(item, data))

    return decode


def _mapping_decoder(int_keys: bool, value: Convert) -> Convert:
    def decode(data: Any) -> dict[Any, Any]:
        if not isinstance(data, Mapping):
            raise ValueError(f"expected an object, got {data!r}")
        return {(int(k) if int_keys else k): value(x) for k, x in data.items()}

    return decode


def _scalar_decoder(kind: type) -> Convert:
    def decode(data: Any) -> Any:
        if kind is float and isinstance(data, int) and not isinstance(data, bool):
            return float(data)  # JSON writes 1.0 as 1
        if (kind is int and isinstance(data, bool)) or not isinstance(data, kind):
            raise ValueError(f"expected {kind.__name__}, got {data!r}")
        return data

    return decode


def _mapping_args(kind: Any) -> tuple[Any, Any]:
    args = typing.get_args(kind)
    return (args[0], args[1]) if len(args) == 2 else (Any, Any)


def dump(kind: Any, value: Any) -> Any:
    """Return ``value``, of type ``kind``, as plain JSON data."""
    return _Compiler().encoder(kind)(value)


def load(kind: type[T] | Any, data: Any) -> T:
    """Return the value of type ``kind`` that :func:`dump` turned into ``data``.

    Raises ValueError when ``data`` does not fit ``kind``.
    """
    result: T = _Compiler().decoder(kind)(data)
    return result


S = TypeVar("S")


@dataclass(frozen=True)
class StateCodec(Generic[S]):
    """A ruleset's state to and from its stored JSON form.

    ``ruleset`` is the id the stored form carries in its ``ruleset`` key, checked when loading
    (a state without the key loads: a ``ruleset`` field's default, or nothing to check); None:
    the form has no such key (Lupus).  ``version`` is written as ``version`` (Mafia) and not read.
    The ``ruleset`` key comes first, or with ``version`` after the fields (``header_last``, as
    Mafia's stored states have them), where the states stored before have them.  The header is
    always written, even where a ``ruleset`` field holds its default (the sparse form leaves
    out the fields at their defaults, never the header): a reader of the stored JSON finds
    the ruleset without the code's defaults.
    """

    state_type: type[S]
    ruleset: str | None = None
    version: int | None = None
    header_last: bool = False
    encode: Convert = dataclasses.field(init=False, repr=False, compare=False)
    decode: Convert = dataclasses.field(init=False, repr=False, compare=False)
    plan: tuple[tuple[str, Any, type, Convert | None], ...] = dataclasses.field(
        init=False, repr=False, compare=False
    )
    """The state's stored fields in order: name, default, the default's type, converter."""

    def __post_init__(self) -> None:
        compiler = _Compiler()  # the state's converters, built once with the codec
        object.__setattr__(self, "encode", compiler.encoder(self.state_type))
        object.__setattr__(self, "decode", compiler.decoder(self.state_type))
        object.__setattr__(self, "plan", tuple(compiler.plans[_cache_key(self.state_type)]))

    def dump(self, state: S) -> dict[str, Any]:
        """Return ``state`` as a JSON-safe dict."""
        return self._headed(self.encode(state))

    def dump_from(self, before: S, stored: Mapping[str, Any], state: S) -> dict[str, Any]:
        """Return :meth:`dump` of ``state``, a state made from ``before`` whose stored form is
        ``stored`` (``dump(before)``, as its row holds it): a field that holds the same object
        in both states takes its JSON form from ``stored`` instead of being encoded again.  A
        vote's new state shares every field but its votes with the state it was cast in: the
        players (fifty records in a big game) are not encoded again.

        The result is ``dump(state)`` whenever ``stored`` is ``dump(before)``
        (tests/rules/test_state_codec.py holds them to each other over played games); from
        another form of ``before`` (the full form stored before the sparse one) the unchanged
        fields keep that form, which loads the same.  A field ``stored`` lacks is encoded."""
        old, new = vars(before), vars(state)
        body: dict[str, Any] = {}
        for name, default, default_type, convert in self.plan:
            item = new[name]
            if item is default or (item == default and type(item) is default_type):
                continue  # left out, as dump leaves it out
            if convert is None:
                body[name] = item
            elif item is old[name] and name in stored:
                body[name] = stored[name]
            else:
                body[name] = convert(item)
        return self._headed(body)

    def _headed(self, body: dict[str, Any]) -> dict[str, Any]:
        """The stored form of a state's encoded fields: ``body`` with the header."""
        header: dict[str, Any] = {}
        if self.ruleset is not None:
            header["ruleset"] = self.ruleset
        if self.version is not None:
            header["version"] = self.version
        return {**body, **header} if self.header_last else {**header, **body}

    def load(self, data: Mapping[str, Any]) -> S:
        """Return the state of :meth:`dump`'s dict (ValueError: another ruleset's, or malformed;
        KeyError: a field without default is missing)."""
        if self.ruleset is not None and data.get("ruleset", self.ruleset) != self.ruleset:
            raise ValueError(f"not a {self.ruleset} state: {data.get('ruleset')!r}")
        try:
            result: S = self.decode(data)  # reads the state's fields, not the header
            return result
        except TypeError as error:  # a required field is missing
            raise KeyError(str(error)) from error
