"""Story keys, the event and mail names, and the mapping between pack files and keys."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

#: Transcript event types (interfaces §3): rendered as fragments of a story mail.
EVENT_TYPES: Final = (
    "death",
    "saved",
    "role_change",
    "lovers",
    "bodyguard",
    "asleep",
    "seen",
    "burns",
    "tally",
    "enchanted",
    "warned",
    "marked",
    "jailed",
    "guilty",
    "mayor",
    "no_mayor",
    "fool_revealed",
    "lynch",
    "inactive",
    "rejected",
    "win",
)

#: Mails that are not events (interfaces §4): each has a subject and a body block.
MAIL_TYPES: Final = (
    "signup_confirmed",
    "role",
    "step",
    "receipt",
    "error",
    "reminder",
    "night_result",
    "day_result",
    "game_over",
    "help_forward",
)

ALL_KEYS: Final = EVENT_TYPES + MAIL_TYPES

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_FILE = re.compile(r"^(?P<event>[a-z][a-z0-9_]*)(?:\.(?P<variant>[1-9][0-9]*))?\.j2$")


class StoryKeyError(ValueError):
    """A story key, file name or variant that does not follow the pack layout."""


@dataclass(frozen=True, order=True)
class StoryKey:
    """Which story: ruleset, language, theme and event (or mail) name."""

    ruleset: str
    language: str
    theme: str
    event: str

    def __post_init__(self) -> None:
        for field in ("ruleset", "language", "theme", "event"):
            value = getattr(self, field)
            if not _NAME.match(value):
                raise StoryKeyError(f"bad {field} {value!r}: use lower-case letters, digits, _")
        if self.event not in ALL_KEYS:
            raise StoryKeyError(f"unknown event or mail {self.event!r}")

    @property
    def is_mail(self) -> bool:
        """True for the non-event mails, whose templates have subject and body blocks."""
        return self.event in MAIL_TYPES

    def with_event(self, event: str) -> StoryKey:
        """The key of another event in the same ruleset, language and theme."""
        return StoryKey(self.ruleset, self.language, self.theme, event)

    def with_theme(self, theme: str) -> StoryKey:
        """The key of the same event in another theme."""
        return StoryKey(self.ruleset, self.language, theme, self.event)

    def __str__(self) -> str:
        return f"{self.ruleset}/{self.language}/{self.theme}/{self.event}"


def key_from_path(path: PurePath) -> tuple[StoryKey, int]:
    """Return the key and variant of a pack file `…/<ruleset>/<lang>/<theme>/<event>[.N].j2`.

    Raises StoryKeyError when the path does not follow that layout.
    """
    match = _FILE.match(path.name)
    if match is None or len(path.parts) < 4:
        raise StoryKeyError(
            f"{path}: expected …/<ruleset>/<lang>/<theme>/<event>[.N].j2 (N = 2, 3, …)"
        )
    ruleset, language, theme = path.parts[-4:-1]
    key = StoryKey(ruleset, language, theme, match.group("event"))
    return key, int(match.group("variant") or 1)


def file_name(event: str, variant: int) -> str:
    """The pack file name of a variant: `death.j2` for variant 1, `death.2.j2` for variant 2."""
    if variant < 1:
        raise StoryKeyError(f"variant must be 1 or more, not {variant}")
    return f"{event}.j2" if variant == 1 else f"{event}.{variant}.j2"
