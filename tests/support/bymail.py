"""Games played by mail in tests: the players' mails, reading the narrator's, and the bots' vote.

Shared by the service tests (``tests/service/test_*_by_mail.py``: a :class:`Table` whose mail
the narrator reads at once, on a settable :class:`Clock`) and the daemon's end-to-end tests
(``tests/daemon/driver.py``: bots mailing a running daemon, voting by :func:`ballot`).
"""

from __future__ import annotations

import email
import email.header
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import Message
from functools import cache
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.inbound.dbsink import DbSink
from narrator.models import Game, GameStatus, OutboxMessage
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, process_pending
from narrator.service.work import unit_of_work
from rules.core.model import ActionChoice, Choices
from rules.core.registry import ruleset_ids
from rules.core.view import GameView
from stories.words import Words, languages_of, load_shared
from tests.support.shipped import shipped_mailer

NARRATOR = "verteller@example.org"
START = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)


def compose(sender: str, subject: str, body: str, message_id: str, *, to: str = NARRATOR) -> bytes:
    """A player's plain-text mail to the narrator, as his mail program would send it."""
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\n"
        f"Message-ID: <{message_id.strip('<>')}>\r\nDate: Wed, 18 Nov 2026 09:00:00 +0000\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


def header(message: Message, name: str) -> str:
    """A header of ``message`` as a string ("" when it is missing)."""
    value = message[name]
    return "" if value is None else str(value)


def subject_of(message: Message) -> str:
    """The decoded subject of a mail."""
    return str(email.header.make_header(email.header.decode_header(header(message, "Subject"))))


def text_of(message: Message) -> str:
    """The plain-text part of a mail the narrator wrote, decoded."""
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    raise AssertionError("no text/plain part")


def role_words(words: Words) -> set[str]:
    """Every word a role is called by (name and plural, folded): none may be in a subject."""
    return {w.casefold() for role in words.roles.values() for w in (role.name, role.plural)}


def roles_named(subject: str, words: Words) -> set[str]:
    """The role words of ``words`` that ``subject`` holds as whole words."""
    folded = subject.casefold()
    return {w for w in role_words(words) if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", folded)}


def moment_subject(game: str, words: Words) -> re.Pattern[str]:
    """The subjects of a game's own mails: ``NAME — <moment>`` in the pack's words (``Borgo —
    Notte 2``), the moments being the phases' and the steps' own (numbers as ``\\d+``)."""
    moments = {*words.phases.values(), *(s.moment for s in words.steps.values() if s.moment)}
    patterns = sorted(
        {re.sub(r"\\\{(night|day)\\\}", r"\\d+", re.escape(moment)) for moment in moments if moment}
    )
    return re.compile(rf"{re.escape(game)} — ({'|'.join(patterns)})")


@cache
def ordinary_words() -> dict[str, frozenset[str]]:
    """Language -> its ordinary words: the stop words the language's shared words hold
    (stories/_lang), folded.  Not a pack's whole list: a pack may read another language's too
    (``stop_words_from``: Wakkerdam's Dutch and English packs read each other's)."""
    languages = {language for ruleset in ruleset_ids() for language in languages_of(ruleset)}
    return {
        language: frozenset(w.casefold() for w in load_shared(language).get("stop_words", ()))
        for language in languages
    }


def language_of(text: str) -> str:
    """The language of the packs whose ordinary words ``text`` uses most (``it``, ``nl``…)."""
    tokens = re.findall(r"\w+", text.casefold())
    counts = {lang: sum(t in words for t in tokens) for lang, words in ordinary_words().items()}
    return max(counts, key=lambda lang: counts[lang])


# --- the bots' vote --------------------------------------------------------------------------

#: Extra keyword ids a ruleset's vote must carry beside the names (Lupus: a Negromante names
#: one of the powers left, listed in the action's ``extra["powers"]``).
ExtraKeywords = Callable[[ActionChoice], Sequence[str]]


def no_extra(action: ActionChoice) -> Sequence[str]:
    """No keyword beyond the action's own."""
    return ()


@dataclass(frozen=True)
class Ballot:
    """What one bot writes in one step: the mail's body, and the names and words in it."""

    body: str
    names: tuple[str, ...]
    words: tuple[str, ...]


def ballot(
    choices: Choices, order: Sequence[str], words: Words, extra: ExtraKeywords = no_extra
) -> Ballot:
    """The bots' rule: a player votes his plain vote (else his first that he can fill: one with
    a valid choice or no names at all), naming as many players as it needs and at least one
    where it takes names, the first valid ones in ``order`` (one seeded order shared by the
    bots, so the village agrees and somebody dies each day); the keyword words and the blank
    word are the pack's first (``visione``, ``nessuno``).

    When that vote takes names but none of its choices is a player (a Mafia Investigator's
    ``request`` names a role; the step mail says "Выбрать пока некого" of a ``verify`` with no
    passed check), he sends it blank, its keyword and the blank word (``запрос пропуск``): a
    keyword alone is a mail with no name, which the narrator refuses, and the step would wait
    for its deadline."""
    fillable = (a for a in choices.actions if a.targets or not a.max_names)
    plain = next((a for a in choices.actions if a.keyword is None), None)
    action = plain or next(fillable, choices.actions[0])
    count = max(action.min_names, 1) if action.max_names else 0
    names = tuple(name for name in order if name in action.targets)[:count]
    keywords = [action.keyword] if action.keyword else []
    keywords += [k for k in extra(action) if k not in keywords][:1]
    written = tuple(words.keywords[k][0] for k in keywords)
    if not names and (not written or (action.min_names and action.blanco)):
        return Ballot(" ".join((*written, words.blanco[0])), (), (*written, words.blanco[0]))
    return Ballot(" ".join((*names, *written)), names, written)


# --- the service's side: a table whose mail the narrator reads at once ----------------------


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def address_of(name: str) -> str:
    """The address a player at a :class:`Table` writes from: ``anna@example.org``."""
    return f"{name.lower()}@example.org"


def game_view(factory: sessionmaker[Session]) -> GameView:
    """The rules' view of the one game in the database."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        return service.ruleset_of(game).view(work.state(game))


class Table:
    """The players' side: they write mail, the narrator reads it at once (no daemon)."""

    def __init__(self, factory: sessionmaker[Session], *, language: str = "it") -> None:
        self.factory = factory
        self.sink = DbSink(factory)
        self.clock = Clock()
        self.mailer = shipped_mailer(NARRATOR)
        self.settings = InboxSettings(address=NARRATOR, language=language)
        self.count = 0
        # The players' mailboxes: every queued mail as read so far, (outbox id, recipient, kind,
        # message); :meth:`mails` reads (parses) each new mail once, as it arrives.
        self.received: list[tuple[int, str, str, Message]] = []

    def open_game(self, *, name: str, **fields: Any) -> None:
        """Open a game for signups, as `narrator game create` does (``ruleset``, ``language``,
        ``theme``, ``speed`` in seconds, ``strictness``, ``options``…: the Game's columns)."""
        fields.setdefault("status", GameStatus.SIGNUP.value)
        with transaction(self.factory) as session:
            session.add(Game(name=name, name_key=name.casefold(), **fields))

    def write(self, name: str, body: str, subject: str = "Borgo") -> str:
        """``name`` mails ``body``; return what the narrator made of it (``vote accepted``…)."""
        self.count += 1
        address = f"{name} <{address_of(name)}>"
        raw = compose(address, subject, body, f"m{self.count}.{name.lower()}@example.org")
        self.sink.store_sync(raw, source="inject")
        outcomes = process_pending(self.factory, self.mailer, self.settings, self.clock)
        return outcomes[-1].what

    def deadline(self) -> None:
        """A day passes: every step due is closed."""
        self.clock.now += timedelta(days=1)
        with unit_of_work(self.factory) as work:
            for game in service.due_games(work.session, self.clock()):
                service.close_step(work, self.mailer, game, now=self.clock())

    def mails(self) -> list[tuple[str, str, Message]]:
        """Every queued mail, in order: (recipient, kind, message).  The mails read before are
        not parsed again (a whole game's test asks after every step: parsing them all each time
        took most of its time); should a row read before be gone, all are read again."""
        outbox = OutboxMessage.__table__.c
        with transaction(self.factory) as session:
            last = self.received[-1][0] if self.received else 0
            kept = session.scalar(select(func.count()).where(outbox.id <= last))
            if kept != len(self.received):
                self.received, last = [], 0
            rows = session.execute(
                select(outbox.id, outbox.recipient, outbox.kind, outbox.raw)
                .where(outbox.id > last)
                .order_by(outbox.id)
            ).all()
        self.received += [(i, to, kind, email.message_from_bytes(raw)) for i, to, kind, raw in rows]
        return [(to, kind, message) for _, to, kind, message in self.received]

    def ask_help(self, name: str, body: str, subject: str, address: str = "") -> Message:
        """``name`` mails Help: it goes to the one admin of ``settings`` (``help_forward``), and
        the asker (at ``address``, else his Table address) gets the acknowledgement, returned."""
        assert self.write(name, body, subject) == "help forwarded to 1 admin(s)"
        [admin] = self.settings.admins
        mails = self.mails()
        assert [(to, kind) for to, kind, _ in mails[-2:]] == [
            (admin, "help_forward"),
            (address or address_of(name), "help_received"),
        ]
        return mails[-1][2]

    def roles(self) -> dict[str, str]:
        """Player -> dealt role, of the one game."""
        with unit_of_work(self.factory) as work:
            game = work.session.scalars(select(Game)).one()
            view = service.ruleset_of(game).view(work.state(game))
            return {seat.name: seat.role for seat in view.players}


def above_roster(text: str) -> str:
    """The story of a mail's text: what stands above the running roster (below ``-- ``)."""
    return text.replace("\r\n", "\n").partition("\n-- \n")[0]


def stories_by_reader(mails: Iterable[tuple[str, str, Message]]) -> dict[str, str]:
    """Address -> the texts of the story mails to it, joined (the public story, then his own)."""
    told: dict[str, str] = {}
    for to, kind, message in mails:
        if kind == "story":
            told[to] = told.get(to, "") + text_of(message)
    return told
