"""Story keys, the event and mail names, and the mapping between pack files and keys."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

from rules.core.registry import get_ruleset, ruleset_ids

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
    "help_digest",
    "epilogue",
    "help_received",
)

#: Mails a pack may leave out: the narrator sends none where a language has no template
#: (`stories check` does not ask for one).
OPTIONAL_MAILS: Final = frozenset({"epilogue", "help_digest", "help_received"})


#: The theme that holds a language's shared templates (`stories/<ruleset>/<lang>/_base/`):
#: mails that read the same in every theme, and partials for `include`/`import`/`extends`.
BASE_THEME: Final = "_base"

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
#: A partial (`_name.j2`): a piece for include/import only, never rendered on its own.
_PARTIAL = re.compile(r"^_[a-z][a-z0-9_]*$")
_FILE = re.compile(r"^(?P<event>_?[a-z][a-z0-9_]*)(?:\.(?P<variant>[1-9][0-9]*))?\.j2$")


def event_types() -> tuple[str, ...]:
    """Transcript event types of every registered ruleset (interfaces §3), from their
    ``event_types``: rendered as fragments of a story mail.  Per ruleset: :func:`events_of`.

    A function, not a constant: importing the story keys loads no ruleset."""
    return tuple(
        dict.fromkeys(event for rid in ruleset_ids() for event in get_ruleset(rid).event_types)
    )


def all_keys() -> tuple[str, ...]:
    """Every event type of every ruleset, then every mail."""
    return event_types() + MAIL_TYPES


def events_of(ruleset: str) -> tuple[str, ...]:
    """The event types of `ruleset` (its ``event_types``), or of every ruleset when unknown."""
    if ruleset in ruleset_ids():
        return tuple(get_ruleset(ruleset).event_types)
    return event_types()


def keys_of(ruleset: str) -> tuple[str, ...]:
    """Every event and mail a pack of `ruleset` tells (the optional mails, `OPTIONAL_MAILS`,
    only where it has a template for them)."""
    return events_of(ruleset) + tuple(m for m in MAIL_TYPES if m not in OPTIONAL_MAILS)


def is_partial(event: str) -> bool:
    """True for a partial's name (`_macros`): included or imported, never rendered alone."""
    return bool(_PARTIAL.match(event))


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
            if not _NAME.match(value) and not (
                (field == "theme" and value == BASE_THEME)
                or (field == "event" and is_partial(value))
            ):
                raise StoryKeyError(f"bad {field} {value!r}: use lower-case letters, digits, _")

    def checked(self) -> StoryKey:
        """This key, when its event is one the ruleset tells (an event of its rules, a mail,
        an optional mail or a partial); else StoryKeyError.  Called where a key comes from
        outside (a pack's file name, the CLI, a stored story): keys the narrator derives from
        checked ones (`with_event` for the rules' own events, `with_theme`) need no check."""
        if (
            not is_partial(self.event)
            and self.event not in keys_of(self.ruleset)
            and self.event not in OPTIONAL_MAILS
        ):
            raise StoryKeyError(f"unknown event or mail {self.event!r}")
        return self

    @property
    def is_mail(self) -> bool:
        """True for the non-event mails, whose templates have subject and body blocks."""
        return self.event in MAIL_TYPES

    @property
    def is_partial(self) -> bool:
        """True for a partial (`_name`), which is only included or imported."""
        return is_partial(self.event)

    @property
    def template_name(self) -> str:
        """The name the sandbox knows the template by: `ruleset/lang/theme/event`."""
        return str(self)

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
    key = StoryKey(ruleset, language, theme, match.group("event")).checked()
    return key, int(match.group("variant") or 1)


def file_name(event: str, variant: int) -> str:
    """The pack file name of a variant: `death.j2` for variant 1, `death.2.j2` for variant 2."""
    if variant < 1:
        raise StoryKeyError(f"variant must be 1 or more, not {variant}")
    return f"{event}.j2" if variant == 1 else f"{event}.{variant}.j2"
