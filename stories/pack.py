"""What a story pack knows of its ruleset besides the rules' ids: `stories/<ruleset>/samples.toml`.

The file holds the sample data `stories check` and `stories preview` render with (players,
actions, events and mails of that ruleset), `[added_fields]`: the optional fields the narrator
adds to the rules' events (Wakkerdam: a death's revealed `role`, a lynch's `votes`), and
`[vote_keywords]`: for an event whose added `votes` are the ballots of a keyword vote, that
keyword (Lupus: the `election` is told with the `sindaco` ballots).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

SAMPLES_FILE = "samples.toml"


class PackError(ValueError):
    """A samples.toml that is malformed; the message names the file and key."""


@dataclass(frozen=True)
class Pack:
    """The parsed samples.toml of one ruleset (empty when the ruleset has none)."""

    ruleset: str
    origin: str = ""
    added_fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)
    vote_keywords: Mapping[str, str] = field(default_factory=dict)


def pack_path(ruleset: str, root: Path | None = None) -> Path:
    """Where the samples of `ruleset` live."""
    base = root if root is not None else Path(__file__).resolve().parent
    return base / ruleset / SAMPLES_FILE


@cache
def load_pack(ruleset: str) -> Pack:
    """The shipped samples.toml of `ruleset` (read once per process; empty when absent).

    Raises PackError naming the file and key when it is malformed.
    """
    path = pack_path(ruleset)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Pack(ruleset)
    except tomllib.TOMLDecodeError as error:
        raise PackError(f"{path}: {error}") from None
    added = data.get("added_fields", {})
    if not isinstance(added, dict) or not all(
        isinstance(v, list) and all(isinstance(f, str) for f in v) for v in added.values()
    ):
        raise PackError(f"{path}: [added_fields] must map event types to lists of field names")
    keyed = data.get("vote_keywords", {})
    if not isinstance(keyed, dict) or not all(isinstance(v, str) for v in keyed.values()):
        raise PackError(f"{path}: [vote_keywords] must map event types to keyword ids")
    return Pack(
        ruleset,
        str(path),
        MappingProxyType({event: tuple(fields) for event, fields in added.items()}),
        MappingProxyType(data),
        MappingProxyType(dict(keyed)),
    )
