"""The narrator's pen: story keys, rendering (with fallbacks), the From name, reply addresses.

A :class:`Mailer` is built once per process (it keeps compiled templates).  Several mailers
may share one renderer of an unchanged store (`shared`: the tests' renderer of the shipped
packs); a mailer never changes a renderer it was given.  Only the post office
(:func:`narrator.service.letters.post`) uses it: it renders each letter with it and queues the
mail in the caller's transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass, field, replace
from typing import Any

from sqlalchemy.orm import Session

from narrator.config import Config, NarratorSection
from narrator.models import Game
from narrator.service.authenticity import ReplyAddresses
from narrator.storystore import DatabaseStore, LayeredStore, ReloadedStore
from narrator.web.tokens import PageLinks
from stories import (
    FileStore,
    MemoryStore,
    RenderedMail,
    Renderer,
    StoryError,
    StoryKey,
    TemplateStore,
    WordsError,
    load_words,
)

log = logging.getLogger("narrator.mailer")


@dataclass(frozen=True)
class ReplyTo:
    """The inbound mail a reply answers (threading headers, its subject, the Message-ID key)."""

    message_id: str
    references: Sequence[str] = ()
    inbox_id: int | None = None
    # The sender is over his reply limit (narrator.service.limits): nothing is sent in answer.
    silent: bool = False
    # His own subject, as he wrote it: the answer is titled "Re: <subject>" (threads.py).
    subject: str = ""


@dataclass
class Mailer:
    """Renders story templates for a game and queues the result in the outbox.

    ``address`` is the narrator's own address (From of every mail).  With ``reply_addresses``
    every mail to a player of a game carries his personal reply address (Reply-To), and the
    inbox requires it on votes (:mod:`narrator.service.authenticity`).  With ``pages`` (the
    personal pages are configured) his role mail and the mails that ask him to act carry his
    personal link (:func:`narrator.service.letters.post` adds it to their context).

    The mailer renders `store` with a renderer of its own, through a store its
    :meth:`reload` swaps; or, given ``shared`` (a renderer of `store` built once and shared by
    several mailers, keeping the templates it compiled for all of them), with that one until
    its first reload, which never changes it: from then on the mailer renders with its own.
    """

    store: TemplateStore
    address: str
    display_name: str = "Verteller"
    # The story key of mails that belong to no game (config [narrator] ruleset/theme/language).
    default_ruleset: str = NarratorSection.ruleset
    default_theme: str = ""
    default_language: str = NarratorSection.language
    reply_addresses: ReplyAddresses | None = None
    pages: PageLinks | None = None
    shared: InitVar[Renderer | None] = None
    renderer: Renderer = field(init=False)
    # The store the mailer's own renderer renders through (None while it renders with a
    # shared one): its reload swaps what it holds.
    _reloaded: ReloadedStore | None = field(init=False, default=None, repr=False)
    _shipped: Renderer | None = field(init=False, default=None, repr=False)
    # The shipped packs (1,271 files), read once per mailer: they are files of the installed
    # package, which do not change while the process runs.  Each reload layers the stories
    # table over them; a mailer built on them (the daemon's) reads none again.
    shipped_packs: FileStore = field(init=False, repr=False)

    def __post_init__(self, shared: Renderer | None) -> None:
        self.shipped_packs = self.store if isinstance(self.store, FileStore) else FileStore()
        if shared is None:
            self._reloaded = ReloadedStore(self.store)
            self.renderer = Renderer(self._reloaded)
        elif shared.store is not self.store:
            raise ValueError("a mailer's shared renderer must render the mailer's store")
        else:
            self.renderer = shared

    def reload(self, session: Session) -> None:
        """Render from the stories table from now on (over the shipped packs for keys it lacks).

        The table is read once here, not per mail: the daemon reloads it every little while,
        so stories that writers add take effect without a restart.  The shipped packs are those
        the mailer read when it was built (``shipped_packs``), not read again.  Compiled
        templates are kept (the renderer stays the same: the web pages render with it too).
        A mailer that rendered with a shared renderer leaves that one as it is and renders
        from now on with a renderer of its own.
        """
        rows = DatabaseStore(session).all()
        self.store = LayeredStore(MemoryStore(rows), self.shipped_packs)
        if self._reloaded is None:
            self._reloaded = ReloadedStore(self.store)
            self.renderer = Renderer(self._reloaded)
        else:
            self._reloaded.current = self.store

    def prepare(self) -> None:
        """Compile now what every mail's render needs, whatever its story: the mail layout
        (:meth:`stories.Renderer.compile_layout`).  The daemon asks at its start, before it
        takes mail, so that its first mail does not compile it; a mailer that is not asked
        compiles it at its first HTML mail, as ever."""
        self.renderer.compile_layout()

    @property
    def domain(self) -> str:
        """The domain of the narrator's address (for Message-IDs)."""
        return self.address.rpartition("@")[2] or "localhost"

    def key(self, game: Game | None, event: str, language: str | None = None) -> StoryKey:
        """The story key of `event` for `game`; without a game, of the configured default
        ruleset and theme in `language` (default: the configured language)."""
        if game is None:
            theme = self.default_theme or self.default_ruleset
            return StoryKey(self.default_ruleset, language or self.default_language, theme, event)
        return StoryKey(game.ruleset, game.language, game.theme, event)

    def render(self, key: StoryKey, context: Mapping[str, Any], seed: str) -> RenderedMail:
        """Render a non-event mail; a broken template falls back to the main theme's variant,
        and a broken stored story (from the stories table) to the shipped pack's."""
        try:
            return self._render_with_theme_fallback(self.renderer, key, context, seed)
        except StoryError:
            if isinstance(self.store, FileStore):
                raise
            log.exception("story %s failed; using the shipped pack", key)
            return self._render_with_theme_fallback(self.shipped, key, context, seed)

    @property
    def shipped(self) -> Renderer:
        """A renderer of the shipped packs only (the fallback for broken stored stories)."""
        if self._shipped is None:
            self._shipped = Renderer(self.shipped_packs)
        return self._shipped

    @staticmethod
    def _render_with_theme_fallback(
        renderer: Renderer, key: StoryKey, context: Mapping[str, Any], seed: str
    ) -> RenderedMail:
        try:
            return renderer.render_mail(key, context, seed)
        except StoryError:
            if key.theme == key.ruleset:
                raise
            log.exception("story %s failed; using the %s theme", key, key.ruleset)
            mail = renderer.render_mail(key.with_theme(key.ruleset), context, seed)
            # signed as in the theme asked for (only its template failed)
            return replace(mail, narrator=renderer.words(key).narrator(key.theme) or "")

    def sender_name(self, game: Game | None) -> str:
        """The From name of a mail: the narrator's name in the game's theme and language (the
        pack's words.toml ``[narrators]``), else the mailer's ``display_name``.  (A rendered
        mail of a game carries that name: ``RenderedMail.narrator``.)"""
        if game is None:
            return self.display_name
        try:
            name = load_words(game.ruleset, game.language).narrator(game.theme)
        except (WordsError, OSError):
            return self.display_name
        return name or self.display_name


def page_links_from_config(config: Config) -> PageLinks | None:
    """How mails write the players' personal links: None (no link in any mail) unless the pages
    are enabled (``[web] enabled``) and their key is set (``[web] secret_env``)."""
    web = config.web
    if not web.enabled or web.secret is None:
        return None
    return PageLinks(web.secret, web.base_url)
