"""Turning game moments into queued mails: render a story template, compose, add to the outbox.

A :class:`Mailer` is built once per process (it keeps compiled templates) and is handed a
session for every call, so a mail is queued in the same transaction as whatever caused it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from narrator.config import NarratorSection
from narrator.models import Game
from narrator.outbound.compose import (
    Address,
    MailKind,
    OutgoingMail,
    make_message_id,
    parse_message_ids,
)
from narrator.outbound.outbox import queue_mail
from narrator.service.authenticity import ReplyAddresses
from narrator.service.threads import reply_subject, root_message_id
from narrator.storystore import DatabaseStore, LayeredStore
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
    inbox requires it on votes (:mod:`narrator.service.authenticity`).
    """

    store: TemplateStore
    address: str
    display_name: str = "Verteller"
    # The story key of mails that belong to no game (config [narrator] ruleset/theme/language).
    default_ruleset: str = NarratorSection.ruleset
    default_theme: str = ""
    default_language: str = NarratorSection.language
    reply_addresses: ReplyAddresses | None = None
    renderer: Renderer = field(init=False)
    _shipped: Renderer | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        self.renderer = Renderer(self.store)

    def reload(self, session: Session) -> None:
        """Render from the stories table from now on (over the shipped packs for keys it lacks).

        The table is read once here, not per mail: the daemon reloads it every little while,
        so stories that writers add take effect without a restart.  Compiled templates are kept.
        """
        rows = DatabaseStore(session).all()
        self.store = LayeredStore(MemoryStore(rows), FileStore())
        self.renderer.store = self.store

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
            self._shipped = Renderer(FileStore())
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
            return renderer.render_mail(key.with_theme(key.ruleset), context, seed)

    def sender_name(self, game: Game | None) -> str:
        """The From name of a mail: the narrator's name in the game's theme and language (the
        pack's words.toml ``[narrators]``), else the mailer's ``display_name``."""
        if game is None:
            return self.display_name
        try:
            name = load_words(game.ruleset, game.language).narrator(game.theme)
        except (WordsError, OSError):
            return self.display_name
        return name or self.display_name

    def queue(
        self,
        session: Session,
        *,
        rendered: RenderedMail,
        to: str,
        to_name: str,
        now: datetime,
        kind: str,
        identity: str,
        game: Game | None = None,
        reply: ReplyTo | None = None,
        reply_to: Address | None = None,
        subject: str | None = None,
    ) -> str:
        """Queue one rendered mail; return its Message-ID.

        ``identity`` names the mail once and for all (e.g. ``"receipt/<inbox id>"``): the
        Message-ID is derived from it, so a mail rebuilt after a crash keeps its id.
        A reply whose ``reply.silent`` is set is not queued (the id is still returned).

        Threads (:mod:`narrator.service.threads`): a mail of a `game` References the game's
        root; an answer to a player's mail (`reply`) is titled ``Re: <his subject>`` and keeps
        his References; any other mail is titled `subject` (the game day's), else the
        template's subject.
        """
        message_id = make_message_id(self.domain, f"{identity}/{to}")
        if reply is not None and reply.silent:
            log.info("not answering %s (%s): over its reply limit", to, kind)
            return message_id
        sender_name = self.sender_name(game)
        if reply_to is None and game is not None and self.reply_addresses is not None:
            reply_to = Address(self.reply_addresses.for_player(game, to), sender_name)
        root = (root_message_id(game, self.domain),) if game is not None else ()
        answered = reply_subject(reply.subject) if reply is not None else ""
        mail = OutgoingMail(
            sender=Address(self.address, sender_name),
            to=Address(to, to_name),
            subject=answered or subject or rendered.subject,
            text=rendered.text,
            html=rendered.html,
            kind=MailKind.REPLY if reply is not None else MailKind.GENERATED,
            in_reply_to=reply.message_id if reply is not None else None,
            references=(*root, *parse_message_ids(reply.references if reply else ())),
            reply_to=reply_to,
        )
        queue_mail(
            session,
            mail,
            now=now,
            kind=kind,
            game_id=game.id if game is not None else None,
            message_id=message_id,
        )
        return message_id
