"""Story templates: the Jinja2 sandbox, story packs and rendering of events into mails.

The daemon's API (see docs/stories.md)::

    from stories import Renderer, StoryKey, FileStore
    renderer = Renderer(store)                      # store: any TemplateStore (files, database)
    mail = renderer.render_mail(StoryKey("wakkerdam", "nl", "wakkerdam", "role"), context, seed)
    story = renderer.render_story(key, context, events, seed, groups=frozenset({"weerwolven"}))
    mail.subject, mail.text, mail.html
    words = load_words("wakkerdam", "nl")           # the pack's words.toml (parser words too)
"""

from stories.check import CheckReport, check_store, validate_source
from stories.context import Action, Cast, ContextError, Event, Game, Player
from stories.helpers import StoryError
from stories.keys import (
    ALL_KEYS,
    BASE_THEME,
    EVENT_TYPES,
    MAIL_TYPES,
    StoryKey,
    StoryKeyError,
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

__all__ = [
    "ALL_KEYS",
    "BASE_THEME",
    "EVENT_TYPES",
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
    "check_store",
    "default_pack_root",
    "events_of",
    "key_from_path",
    "keys_of",
    "load_words",
    "render_mail",
    "render_story",
    "story_mail_for",
    "validate_source",
]
