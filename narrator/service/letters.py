"""Letters: what the service decided to mail, as plain data; the one post office that mails them.

Every service operation (a signup, the start, a vote, a step's close, reminders, Help, an error
reply, the epilogue) *decides*: it returns :class:`Letter` values and never renders or queues
anything itself.  :func:`post` is the only caller of the :class:`~narrator.service.mailer.
Mailer`: it renders each letter's :class:`Draft` (stories) and queues one outbox row per
recipient, in the caller's transaction.  A draft shared by several letters (the village's story
of a step, which every player gets beside his own) is rendered once.  See docs/dev/letters.md.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from narrator.models import ChapterKind, Game, PageChapter, PlayerInfo
from narrator.outbound.compose import (
    Address,
    Content,
    MailKind,
    OutgoingMail,
    encode_content,
    make_message_id,
    parse_message_ids,
)
from narrator.outbound.outbox import Outgoing, queue_mail
from narrator.service.mailer import Mailer, ReplyTo
from narrator.service.threads import reply_subject, root_message_id
from stories import Event as StoryEvent
from stories import RenderedMail, StoryKey, StoryNotFound

log = logging.getLogger("narrator.letters")


@dataclass(frozen=True)
class Story:
    """A step's story as a draft tells it: its events and which part (``public``: the village's
    text, ``private``: what only this reader's `groups` may know)."""

    events: Sequence[StoryEvent]
    part: str
    groups: frozenset[str] = frozenset()
    send_empty: bool = False


@dataclass(frozen=True)
class PageTelling:
    """A story as the game pages keep it (:class:`narrator.models.PageChapter`): its `moment`
    ("Nacht 2") and the public events whose votes the page tallies voter by voter; the
    `reader` it was told to alone (a player's id: his private story; None: the village's);
    its `kind` (``story``, or ``epilogue``).  The post office stores it with the text it
    rendered for the mails."""

    moment: str
    tallies: tuple[Mapping[str, Any], ...] = ()
    reader: int | None = None
    kind: str = ChapterKind.STORY.value


@dataclass(frozen=True)
class Draft:
    """What one rendering needs: the story pack's `event` (of `game`'s key, else the configured
    ruleset's in `language`), the story `context` and the `seed` of the variant drawn.

    With `story` it is a step's story (the ``night_result`` template and its events); with
    `optional` nothing is mailed where the language has no such template; with `page` (the
    village's story, a player's private one, the epilogue) :func:`post` also stores what it
    rendered for the game pages.
    """

    event: str
    context: Mapping[str, Any]
    seed: str
    game: Game | None = None
    language: str | None = None
    story: Story | None = None
    optional: bool = False
    page: PageTelling | None = None


@dataclass(frozen=True)
class Recipient:
    """Who gets a letter; `identity` names his mail once and for all (its Message-ID)."""

    address: str
    name: str
    identity: str


@dataclass(frozen=True)
class Letter:
    """One mail decided by the service, to one or more recipients, as plain data.

    `kind` is the outbox kind (``receipt``, ``story``, ...); the thread is the `game`'s (its
    root in References, the From name, the player's reply address), titled `subject` (the game
    day's), or ``Re: <his subject>`` when it answers `reply`; `reply_to` overrides Reply-To.
    With `page` (his role mail, a mail that asks him to act) the draft's context gets that
    player's personal link as ``page_link`` when the personal pages are configured (see
    :func:`post`).
    """

    kind: str
    draft: Draft
    to: tuple[Recipient, ...]
    game: Game | None = None
    subject: str | None = None
    reply: ReplyTo | None = None
    reply_to: Address | None = None
    page: PlayerInfo | None = None


def post(
    session: Session,
    mailer: Mailer,
    letters: Iterable[Letter],
    now: datetime,
    *,
    outgoing: Outgoing | None = None,
) -> list[str]:
    """Render and queue `letters` in order in `session`; return the Message-IDs queued.

    With `outgoing` (the unit of work's, :attr:`narrator.service.work.Work.outgoing`), the
    mails are queued into it: inserted together when the unit of work flushes, claimed by its
    sender when it has one, which delivers them once the transaction committed (see
    :func:`~narrator.outbound.outbox.queue_mail`); without, each is inserted at once.

    The one place a personal link enters a mail: a letter with a `page` player, when the
    mailer has the personal pages' key, renders with ``page_link`` (his page's address) in its
    context; otherwise the context is the draft's, unchanged, and so is the mail.

    A letter whose draft renders to nothing (an empty private story, a missing optional
    template) is not mailed; one that answers a sender over his reply limit is rendered but
    not queued (its Message-ID is still returned, as the mail would have had it).
    """
    return _PostOffice(session, mailer, now, outgoing).post(letters)


@dataclass
class _PostOffice:
    """One round of :func:`post`, with the story keys and From names it looked up."""

    session: Session
    mailer: Mailer
    now: datetime
    outgoing: Outgoing | None
    keys: dict[tuple[int | None, str, str | None], StoryKey] = field(default_factory=dict)
    # The thread root of each game mailed, by its id: the same for every letter of the game.
    roots: dict[int, str] = field(default_factory=dict)

    def post(self, letters: Iterable[Letter]) -> list[str]:
        rendered: dict[int, RenderedMail | None] = {}  # by draft: a shared draft renders once
        encoded: dict[int, Content] = {}  # and its text and HTML are encoded once
        queued: list[str] = []
        for letter in letters:
            draft = self._with_link(letter)
            key = id(letter.draft)
            content = None
            if draft is not letter.draft:  # his own link: a draft of his own
                mail = self._render(draft)
            else:
                if key not in rendered:
                    rendered[key] = self._render(draft)
                    self._keep_for_the_page(draft, rendered[key])
                mail = rendered[key]
                if mail is not None:
                    content = encoded.get(key)
                    if content is None:
                        content = encoded[key] = encode_content(mail.text, mail.html)
            if mail is None:
                continue
            # signed by the narrator's name in the game's words (the render's), else the mailer's
            name = self.mailer.display_name
            sender = (mail.narrator or name) if letter.game is not None else name
            queued.extend(
                self._queue(letter, recipient, mail, sender, content) for recipient in letter.to
            )
        return queued

    def _keep_for_the_page(self, draft: Draft, mail: RenderedMail | None) -> None:
        """Store a story (the village's, a player's private one, the epilogue), as rendered
        for its mails, for the game pages (a story that tells nothing is no chapter, as it is
        no mail)."""
        if draft.page is None or draft.game is None or mail is None:
            return
        self.session.add(
            PageChapter(
                game_id=draft.game.id,
                player_id=draft.page.reader,
                kind=draft.page.kind,
                moment=draft.page.moment,
                story=mail.text,
                tallies=[dict(event) for event in draft.page.tallies],
                told_at=self.now,
            )
        )

    def _with_link(self, letter: Letter) -> Draft:
        """`letter`'s draft, with his personal link in its context when it carries one."""
        pages, player, game = self.mailer.pages, letter.page, letter.game
        if pages is None or player is None or game is None:
            return letter.draft
        link = pages.link(game.id, player.id, player.page_generation)
        return replace(letter.draft, context={**letter.draft.context, "page_link": link})

    def _render(self, draft: Draft) -> RenderedMail | None:
        mailer = self.mailer
        game_id = draft.game.id if draft.game is not None else None
        known = (game_id, draft.event, draft.language)
        key = self.keys.get(known)
        if key is None:
            key = self.keys[known] = mailer.key(draft.game, draft.event, draft.language)
        if draft.optional:
            try:
                mailer.renderer.variants(key)
            except StoryNotFound:
                return None
        context = draft.context
        if mailer.pages is not None and draft.game is not None:
            # The game's public page: a big game's roster links it instead of every name.
            context = {**context, "game_link": mailer.pages.game(draft.game.name)}
        story = draft.story
        if story is None:
            return mailer.render(key, context, draft.seed)
        return mailer.renderer.render_story(
            key,
            context,
            story.events,
            draft.seed,
            groups=story.groups,
            send_empty=story.send_empty,
            part=story.part,
        )

    def _queue(
        self,
        letter: Letter,
        recipient: Recipient,
        rendered: RenderedMail,
        sender_name: str,
        content: Content | None = None,
    ) -> str:
        """Queue `rendered` to `recipient`; return its Message-ID (see :func:`post`)."""
        mailer = self.mailer
        message_id = make_message_id(mailer.domain, f"{recipient.identity}/{recipient.address}")
        reply, game = letter.reply, letter.game
        if reply is not None and reply.silent:
            log.info("not answering %s (%s): over its reply limit", recipient.address, letter.kind)
            return message_id
        reply_to = letter.reply_to
        if reply_to is None and game is not None and mailer.reply_addresses is not None:
            reply_to = Address(
                mailer.reply_addresses.for_player(game, recipient.address), sender_name
            )
        root: tuple[str, ...] = ()
        if game is not None:
            known = self.roots.get(game.id)
            if known is None:
                known = self.roots[game.id] = root_message_id(game, mailer.domain)
            root = (known,)
        # The ids of the mail he answers as they came (compose keeps the well-formed ones,
        # once: they are not parsed here first); a header's text, as the ids found in it.
        theirs = reply.references if reply is not None else ()
        if isinstance(theirs, str):
            theirs = parse_message_ids(theirs)
        answered = reply_subject(reply.subject) if reply is not None else ""
        mail = OutgoingMail(
            sender=Address(mailer.address, sender_name),
            to=Address(recipient.address, recipient.name),
            subject=answered or letter.subject or rendered.subject,
            text=rendered.text,
            html=rendered.html,
            kind=MailKind.REPLY if reply is not None else MailKind.GENERATED,
            in_reply_to=reply.message_id if reply is not None else None,
            references=(*root, *theirs),
            reply_to=reply_to,
            content=content,
        )
        game_id = game.id if game is not None else None
        queue_mail(
            self.session,
            mail,
            now=self.now,
            kind=letter.kind,
            game_id=game_id,
            message_id=message_id,
            into=self.outgoing,
        )
        return message_id
