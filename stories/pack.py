"""What a story pack knows of its ruleset besides the rules' ids: `stories/<ruleset>/samples.toml`.

The file holds the sample data `stories check` and `stories preview` render with (players,
actions, events and mails of that ruleset).  The facts a story is told beside the rules' own
(a death's shown `role`, a lynch's `votes`) are the ruleset's (`Ruleset.story_facts`, `tell`).
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
    data: Mapping[str, Any] = field(default_factory=dict)


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
    return Pack(ruleset, str(path), MappingProxyType(data))
