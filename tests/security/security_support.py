"""Helpers of the security tests: a narrator pipeline in-process (inbox -> process -> outbox)."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.inbound.dbsink import DbSink
from narrator.models import Game, InboxMessage, OutboxMessage, OutboxState
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, Outcome, process_pending
from narrator.service.mailer import Mailer
from narrator.service.work import unit_of_work
from tests.support.games import game_taking_signups

NARRATOR = "verteller@example.org"
START = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)
ALLOWED_HEADERS = {
    "message-id",
    "date",
    "from",
    "to",
    "subject",
    "reply-to",
    "in-reply-to",
    "references",
    "auto-submitted",
    "x-auto-response-suppress",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
}


class Clock:
    """A settable clock."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


_counter = iter(range(10**9))


def mail(
    sender: str,
    subject: str,
    body: str,
    *,
    to: str = NARRATOR,
    headers: Sequence[tuple[str, str]] = (),
    message_id: str | None = None,
    name: str = "",
) -> bytes:
    """A plain UTF-8 text mail; `headers` come first (as a receiving server adds them)."""
    n = next(_counter)
    mid = message_id or f"<t{n}.{sender.replace('@', '.at.')}>"
    sender_field = f'"{name}" <{sender}>' if name else sender
    lines = [f"{k}: {v}" for k, v in headers]
    lines += [
        f"From: {sender_field}",
        f"To: {to}",
        f"Subject: {subject}",
        f"Message-ID: {mid}",
        "Date: Wed, 18 Nov 2026 09:00:00 +0000",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n" + body + "\r\n").encode()


@dataclass
class Sent:
    """One outbox mail, decoded."""

    id: int
    recipient: str
    kind: str
    raw: bytes
    message: EmailMessage = field(repr=False)
    at: datetime | None = None  # when it was queued (the outbox row's created_at)

    @property
    def text(self) -> str:
        """The plain-text body."""
        part = self.message.get_body(preferencelist=("plain",))
        assert part is not None
        return str(part.get_content())

    @property
    def header_names(self) -> set[str]:
        """The header names, lower-cased."""
        return {name.lower() for name in self.message}


def plain_text(raw: bytes) -> str:
    """The plain-text body of a mail the narrator wrote, as :attr:`Sent.text` reads it, with
    the plain (compat32) parser: a whole game's hundreds of mails are read in a tenth of the
    time :func:`decode` takes (its parser builds every header's structure)."""
    message = email.message_from_bytes(raw)
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "ascii")
    raise AssertionError("no text/plain part")


def decode(row: OutboxMessage) -> Sent:
    """An outbox row as a :class:`Sent`."""
    message = email.message_from_bytes(row.raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return Sent(row.id, row.recipient, row.kind, row.raw, message, row.created_at)


@dataclass
class Narrator:
    """One narrator: database, mailer, settings and clock, driven by hand."""

    factory: sessionmaker[Session]
    mailer: Mailer
    settings: InboxSettings
    clock: Clock = field(default_factory=Clock)

    @property
    def sink(self) -> DbSink:
        """The inbox sink."""
        return DbSink(self.factory)

    def deliver(self, raw: bytes, *, envelope_from: str | None = None) -> int:
        """Store `raw` in the inbox (as the SMTP receiver or `narrator inject` does)."""
        return self.sink.store_sync(raw, source="inject", envelope_from=envelope_from).inbox_id

    def process(self) -> list[Outcome]:
        """Process everything pending."""
        return process_pending(self.factory, self.mailer, self.settings, self.clock)

    def receive(self, raw: bytes, **kwargs: str | None) -> Outcome:
        """Deliver and process one mail; return its outcome."""
        self.deliver(raw, **kwargs)
        outcomes = self.process()
        assert len(outcomes) == 1, outcomes
        return outcomes[0]

    def outbox(self, after: int = 0) -> list[Sent]:
        """Every outbox mail with an id above `after`."""
        with transaction(self.factory) as session:
            rows = session.scalars(
                select(OutboxMessage).where(OutboxMessage.id > after).order_by(OutboxMessage.id)
            ).all()
            return [decode(row) for row in rows]

    def last_outbox_id(self) -> int:
        """The highest outbox id so far (0 when empty)."""
        mails = self.outbox()
        return mails[-1].id if mails else 0

    def take_pending(self) -> list[Sent]:
        """The pending outbox mail, marked sent (as the sender would)."""
        with transaction(self.factory) as session:
            rows = session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.state == OutboxState.PENDING.value)
                .order_by(OutboxMessage.id)
            ).all()
            for row in rows:
                row.state = OutboxState.SENT.value
                row.sent_at = self.clock()
            return [decode(row) for row in rows]

    def inbox_states(self) -> list[tuple[str, str | None]]:
        """(state, error) of every inbox row."""
        with transaction(self.factory) as session:
            return [(r.state, r.error) for r in session.scalars(select(InboxMessage))]

    def add_game(self, name: str = "WW5", *, status: str = "signup", language: str = "nl") -> None:
        """Create a game taking signups."""
        with transaction(self.factory) as session:
            session.add(game_taking_signups(name, language=language, status=status))

    def sign_up(self, game: str, players: Iterable[tuple[str, str]]) -> None:
        """Sign up (name, email) pairs by mail; every signup must succeed."""
        for name, address in players:
            outcome = self.receive(mail(address, game, f"{name}, man"))
            assert outcome.what.startswith("signup"), outcome

    def start(self, game: str = "WW5", *, seed: int = 7, distribution: str | None = None) -> None:
        """Start `game` (deal roles, first step)."""
        with unit_of_work(self.factory) as work:
            session = work.session
            row = session.scalars(select(Game).where(Game.name == game)).one()
            service.start_game(
                work,
                self.mailer,
                row,
                now=self.clock(),
                seed=seed,
                distribution_id=distribution,
            )


PLAYER_NAMES = [
    "Anna",
    "Bram",
    "Carla",
    "Dirk",
    "Eva",
    "Frank",
    "Gerda",
    "Hugo",
    "Iris",
    "Jan",
    "Kim",
    "Lars",
    "Mila",
    "Nico",
    "Olga",
    "Piet",
]


def players(count: int, domain: str = "example.net") -> list[tuple[str, str]]:
    """`count` (name, address) pairs."""
    return [(name, f"{name.lower()}@{domain}") for name in PLAYER_NAMES[:count]]
