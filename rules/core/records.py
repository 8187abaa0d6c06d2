"""Frozen dataclass records made without their generated ``__init__``, as :mod:`copy` and
:mod:`pickle` make one: ``object.__new__``, then the fields in its ``__dict__``.

A frozen dataclass's ``__init__`` sets each field by a call of ``object.__setattr__``; a big
game's state holds fifty players of many fields, loaded, copied for each vote and viewed, so
the rules' hot paths (a vote's copy, a view's seats; the codec's load writes :func:`made`'s
two lines out, filling the record's fields as it reads them) make their records here instead:
the same values, at a fraction of the cost.  Only a *plain* record (:func:`is_plain_record`)
may be made so; any other is made by its constructor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def is_plain_record(kind: type) -> bool:
    """Whether a record of `kind` is the same made by :func:`made` as by its ``__init__``:
    no ``__post_init__`` (a check or a derived field ``__init__`` would run), no slots (its
    fields would not be in a ``__dict__``) and no ``__new__`` of its own in its bases."""
    return not hasattr(kind, "__post_init__") and not any(
        "__new__" in vars(base) or vars(base).get("__slots__")
        for base in kind.__mro__[:-1]  # but object
    )


def made(kind: type[T], fields: Mapping[str, Any]) -> T:
    """A record of `kind` (plain: :func:`is_plain_record`) whose ``__dict__`` is `fields`, in
    their order (every field its ``__init__`` would set, as it would set it)."""
    record: Any = object.__new__(kind)
    vars(record).update(fields)
    return record  # type: ignore[no-any-return]
