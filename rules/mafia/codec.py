"""A typed JSON codec for the frozen state dataclasses, driven by their type hints."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def to_json(value: Any) -> Any:
    """Return ``value`` (dataclasses, tuples, mappings, scalars) as plain JSON data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    return value


Loaders = Mapping[type, Callable[[Any], Any]]


def from_json(kind: type[T], data: Any, loaders: Loaders | None = None) -> T:
    """Return the value of type ``kind`` that :func:`to_json` turned into ``data``.

    ``loaders`` give the constructor of types that are not plain records.  Raises ValueError
    when ``data`` does not fit ``kind``.
    """
    result: T = _load(kind, data, loaders or {})
    return result


def _load(kind: Any, data: Any, loaders: Loaders) -> Any:
    origin = typing.get_origin(kind)
    if kind is Any:
        return data
    if isinstance(kind, type) and kind in loaders:
        return loaders[kind](data)
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        if not isinstance(data, Mapping):
            raise ValueError(f"{kind.__name__}: expected an object, got {data!r}")
        hints = typing.get_type_hints(kind)
        values = {
            f.name: _load(hints[f.name], data[f.name], loaders)
            for f in dataclasses.fields(kind)
            if f.init and f.name in data
        }
        return kind(**values)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if data is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _load(option, data, loaders)
            except (ValueError, TypeError, KeyError) as error:
                errors.append(str(error))
        raise ValueError(f"no type of {kind} fits {data!r}: {errors}")
    if origin is tuple:
        args = typing.get_args(kind)
        if not isinstance(data, list | tuple):
            raise ValueError(f"expected a list, got {data!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], item, loaders) for item in data)
        return tuple(_load(arg, item, loaders) for arg, item in zip(args, data, strict=True))
    if origin in (Mapping, dict, typing.Mapping):
        key_type, value_type = typing.get_args(kind)
        if not isinstance(data, Mapping):
            raise ValueError(f"expected an object, got {data!r}")
        return {_key(key_type, key): _load(value_type, item, loaders) for key, item in data.items()}
    if kind is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)  # JSON writes 1.0 as 1
    if kind in (str, int, bool, float):
        if (kind is int and isinstance(data, bool)) or not isinstance(data, kind):
            raise ValueError(f"expected {kind.__name__}, got {data!r}")
        return data
    raise ValueError(f"cannot load type {kind!r}")


def _key(kind: Any, key: str) -> Any:
    return int(key) if kind is int else key
