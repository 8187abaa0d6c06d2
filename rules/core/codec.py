"""One typed JSON codec for the rulesets' frozen states, driven by their type hints.

Dataclasses become objects (one key per field, in field order), tuples and lists become lists,
sets become sorted lists, enums their value, :class:`~rules.core.model.Settings` its dict form
(:meth:`Settings.to_dict`).  A mapping becomes an object, unless its field is annotated
``Annotated[Mapping[K, V], AS_PAIRS]``: then a list of ``[key, value]`` pairs, which keeps the
order (a PostgreSQL ``jsonb`` column does not keep an object's key order), as a ruleset's votes
in arrival order need.  Loading reads the same forms back; a field absent from the data takes
its default, so a state stored before a field was added still loads.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rules.core.model import Settings

T = TypeVar("T")


class _Pairs:
    """The marker of a mapping stored as ``[key, value]`` pairs (see the module's docstring)."""

    def __repr__(self) -> str:
        return "AS_PAIRS"


AS_PAIRS = _Pairs()


def dump(kind: Any, value: Any) -> Any:
    """Return ``value``, of type ``kind``, as plain JSON data."""
    if typing.get_origin(kind) is typing.Annotated:
        inner, *marks = typing.get_args(kind)
        if any(mark is AS_PAIRS for mark in marks):
            _, value_type = _mapping_args(inner)
            return [[key, dump(value_type, item)] for key, item in value.items()]
        return dump(inner, value)
    if value is None:
        return None
    if isinstance(value, Settings):
        return value.to_dict()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        hints = _hints(type(value))
        return {f.name: dump(hints[f.name], getattr(value, f.name)) for f in _fields(value)}
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return dump(_option_of(kind, value), value)
    if isinstance(value, frozenset | set):
        (item_type,) = typing.get_args(kind) or (Any,)
        return sorted(dump(item_type, item) for item in value)
    if isinstance(value, tuple | list):
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return [dump(args[0], item) for item in value]
        if args and origin is tuple:
            return [dump(arg, item) for arg, item in zip(args, value, strict=True)]
        return [dump(Any, item) for item in value]
    if isinstance(value, Mapping):
        _, value_type = _mapping_args(kind)
        return {str(key): dump(value_type, item) for key, item in value.items()}
    return value


def load(kind: type[T] | Any, data: Any) -> T:
    """Return the value of type ``kind`` that :func:`dump` turned into ``data``.

    Raises ValueError when ``data`` does not fit ``kind``.
    """
    result: T = _load(kind, data)
    return result


def _load(kind: Any, data: Any) -> Any:
    origin = typing.get_origin(kind)
    if kind is Any:
        return data
    if origin is typing.Annotated:
        inner, *marks = typing.get_args(kind)
        if any(mark is AS_PAIRS for mark in marks):
            key_type, value_type = _mapping_args(inner)
            if not isinstance(data, list | tuple):
                raise ValueError(f"expected a list of pairs, got {data!r}")
            return {_load(key_type, key): _load(value_type, item) for key, item in data}
        return _load(inner, data)
    if kind is Settings:
        if not isinstance(data, Mapping):
            raise ValueError(f"settings: expected an object, got {data!r}")
        return Settings.from_dict(data)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(data)
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        if not isinstance(data, Mapping):
            raise ValueError(f"{kind.__name__}: expected an object, got {data!r}")
        hints = _hints(kind)
        values = {
            f.name: _load(hints[f.name], data[f.name]) for f in _fields(kind) if f.name in data
        }
        return kind(**values)
    if origin in (typing.Union, types.UnionType):
        return _load_union(kind, data)
    if origin in (tuple, frozenset, set, list):
        if not isinstance(data, list | tuple):
            raise ValueError(f"expected a list, got {data!r}")
        args = typing.get_args(kind)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return tuple(_load(arg, item) for arg, item in zip(args, data, strict=True))
        items = [_load(args[0] if args else Any, item) for item in data]
        return origin(items)
    if origin in (Mapping, dict, typing.Mapping):
        key_type, value_type = _mapping_args(kind)
        if not isinstance(data, Mapping):
            raise ValueError(f"expected an object, got {data!r}")
        return {_key(key_type, key): _load(value_type, item) for key, item in data.items()}
    if kind is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)  # JSON writes 1.0 as 1
    if kind in (str, int, bool, float):
        if (kind is int and isinstance(data, bool)) or not isinstance(data, kind):
            raise ValueError(f"expected {kind.__name__}, got {data!r}")
        return data
    raise ValueError(f"cannot load type {kind!r}")


def _load_union(kind: Any, data: Any) -> Any:
    options = typing.get_args(kind)
    if data is None and type(None) in options:
        return None
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _load(option, data)
        except (ValueError, TypeError, KeyError) as error:
            errors.append(str(error))
    raise ValueError(f"no type of {kind} fits {data!r}: {errors}")


def _option_of(kind: Any, value: Any) -> Any:
    """The option of a union that ``value`` is (its first generic option of the right class)."""
    for option in typing.get_args(kind):
        base = typing.get_origin(option) or option
        if isinstance(base, type) and isinstance(value, base):
            return option
    return Any


def _mapping_args(kind: Any) -> tuple[Any, Any]:
    args = typing.get_args(kind)
    return (args[0], args[1]) if len(args) == 2 else (Any, Any)


def _key(kind: Any, key: str) -> Any:
    return int(key) if kind is int else key


def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind, include_extras=True)


def _fields(value: Any) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(f for f in dataclasses.fields(value) if f.init)


S = TypeVar("S")


@dataclass(frozen=True)
class StateCodec(Generic[S]):
    """A ruleset's state to and from its stored JSON form.

    ``ruleset`` is the id the stored form carries in its ``ruleset`` key, checked when loading
    (a state without the key loads: a ``ruleset`` field's default, or nothing to check); None:
    the form has no such key (Lupus).  ``version`` is written as ``version`` (Mafia) and not read.
    The ``ruleset`` key comes first, or with ``version`` after the fields (``header_last``, as
    Mafia's stored states have them), so that a state dumps to the same bytes as before.
    """

    state_type: type[S]
    ruleset: str | None = None
    version: int | None = None
    header_last: bool = False

    def dump(self, state: S) -> dict[str, Any]:
        """Return ``state`` as a JSON-safe dict."""
        body: dict[str, Any] = dump(self.state_type, state)
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
        fields = {f.name for f in dataclasses.fields(self.state_type)}  # type: ignore[arg-type]
        body = {key: value for key, value in data.items() if key in fields}
        try:
            return load(self.state_type, body)
        except TypeError as error:  # a required field is missing
            raise KeyError(str(error)) from error
