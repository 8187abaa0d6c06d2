"""Story templates: the Jinja2 sandbox, story packs and rendering of events into mails.

The daemon's API (see docs/stories.md)::

    from stories import Renderer, StoryKey, FileStore
    renderer = Renderer(store)                      # store: any TemplateStore (files, database)
    mail = renderer.render_mail(StoryKey("wakkerdam", "nl", "wakkerdam", "role"), context, seed)
    story = renderer.render_story(key, context, events, seed, groups=frozenset({"weerwolven"}))
    mail.subject, mail.text, mail.html
    words = load_words("wakkerdam", "nl")           # the pack's words.toml (parser words too)

Importing this package loads none of its modules: each public name is imported from its
module when it is first asked for (`__getattr__`), so that reading a pack's words
(`stories.words`) does not load Jinja2, the story context and every ruleset's events.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stories.check import CheckReport, check_store, validate_source
    from stories.context import Action, Cast, ContextError, Event, Game, Player
    from stories.helpers import StoryError
    from stories.keys import (
        BASE_THEME,
        MAIL_TYPES,
        StoryKey,
        StoryKeyError,
        all_keys,
        event_types,
        events_of,
        key_from_path,
        keys_of,
    )
    from stories.render import (
        RenderedMail,
        Renderer,
        StoryNotFound,
        render_mail,
        render_story,
        story_mail_for,
    )
    from stories.store import FileStore, MemoryStore, StorySource, TemplateStore, default_pack_root
    from stories.words import RoleWords, Words, WordsError, load_words

#: Where each public name is defined.
_HOMES = {
    "Action": "stories.context",
    "BASE_THEME": "stories.keys",
    "Cast": "stories.context",
    "CheckReport": "stories.check",
    "ContextError": "stories.context",
    "Event": "stories.context",
    "FileStore": "stories.store",
    "Game": "stories.context",
    "MAIL_TYPES": "stories.keys",
    "MemoryStore": "stories.store",
    "Player": "stories.context",
    "RenderedMail": "stories.render",
    "Renderer": "stories.render",
    "RoleWords": "stories.words",
    "StoryError": "stories.helpers",
    "StoryKey": "stories.keys",
    "StoryKeyError": "stories.keys",
    "StoryNotFound": "stories.render",
    "StorySource": "stories.store",
    "TemplateStore": "stories.store",
    "Words": "stories.words",
    "WordsError": "stories.words",
    "all_keys": "stories.keys",
    "check_store": "stories.check",
    "default_pack_root": "stories.store",
    "event_types": "stories.keys",
    "events_of": "stories.keys",
    "key_from_path": "stories.keys",
    "keys_of": "stories.keys",
    "load_words": "stories.words",
    "render_mail": "stories.render",
    "render_story": "stories.render",
    "story_mail_for": "stories.render",
    "validate_source": "stories.check",
}

__all__ = [
    "BASE_THEME",
    "MAIL_TYPES",
    "Action",
    "Cast",
    "CheckReport",
    "ContextError",
    "Event",
    "FileStore",
    "Game",
    "MemoryStore",
    "Player",
    "RenderedMail",
    "Renderer",
    "RoleWords",
    "StoryError",
    "StoryKey",
    "StoryKeyError",
    "StoryNotFound",
    "StorySource",
    "TemplateStore",
    "Words",
    "WordsError",
    "all_keys",
    "check_store",
    "default_pack_root",
    "event_types",
    "events_of",
    "key_from_path",
    "keys_of",
    "load_words",
    "render_mail",
    "render_story",
    "story_mail_for",
    "validate_source",
]


def __getattr__(name: str) -> object:
    """The public name `name`, from its module (imported now if it was not yet)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'stories' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
