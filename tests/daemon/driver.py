"""Plays a whole game by mail against a running daemon, and checks every player's mailbox.

The players are simple bots: in each step every asked player mails a vote for the first valid
choice (blanco where no name is needed). One player skips the first step, so that step ends at
its deadline and he gets a reminder; every other step closes early when all have voted.
"""

from __future__ import annotations

import asyncio
import email
import email.header
import mailbox
import re
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from email.message import Message
from email.policy import compat32
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus, OutboxMessage, OutboxState, Step, game_players
from narrator.service import games as service
from narrator.service.threads import root_message_id
from narrator.service.work import unit_of_work
from tests.support.aio import wait_until

NARRATOR = "verteller@example.org"
PLAYERS = [
    ("Anna", "vrouw"),
    ("Bram", "man"),
    ("Carla", "vrouw"),
    ("Dirk", "man"),
    ("Eva", "vrouw"),
    ("Frank", "man"),
    ("Greet", "vrouw"),
    ("Hans", "man"),
]

DAY_SUBJECT = re.compile(r"WW\d+ — (Het begin|Nacht \d+|Dag \d+)")
Send = Callable[[str, bytes], Awaitable[None]]  # (sender address, raw mail)


def address(name: str) -> str:
    return f"{name.lower()}@spelers.example.org"


def compose(sender: str, subject: str, body: str, message_id: str) -> bytes:
    return (
        f"From: {sender}\r\nTo: {NARRATOR}\r\nSubject: {subject}\r\n"
        f"Message-ID: <{message_id}>\r\nDate: Wed, 18 Nov 2026 09:00:00 +0000\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


@dataclass
class Transcript:
    """What the bots did: per player, the votes sent and the steps they were asked in."""

    votes: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    asked: Counter[str] = field(default_factory=Counter)
    skipped: str | None = None
    steps: int = 0


def _read(factory: sessionmaker[Session], name: str) -> dict[str, object]:
    with unit_of_work(factory) as work:
        session = work.session
        game = session.scalars(select(Game).where(Game.name == name)).one()
        view: dict[str, object] = {
            "status": game.status,
            "number": game.step_number,
            "ballots": [],
        }
        if game.status != GameStatus.RUNNING.value:
            return view
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        players = {p.name: p for p in game_players(session, game)}
        ballots = []
        for player in rs.asked(state):
            action = rs.choices(state, player).actions[0]
            names = list(action.targets[: action.min_names]) if action.min_names else []
            body = " ".join(names) if names else "blanco"
            if action.keyword:
                body += f" {action.keyword}"
            ballots.append((player, players[player].email, body))
        view["ballots"] = ballots
        return view


async def sign_up(send: Send, game: str) -> None:
    """Every player mails his signup."""
    for name, gender in PLAYERS:
        await send(address(name), compose(address(name), game, f"{name}, {gender}", f"su-{name}"))


async def play(
    factory: sessionmaker[Session], game: str, send: Send, *, timeout: float = 60.0
) -> Transcript:
    """Vote in every step until the game has ended; return what was sent."""
    transcript = Transcript()
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    handled = 0
    while True:
        view = await asyncio.to_thread(_read, factory, game)
        if view["status"] == GameStatus.ENDED.value:
            return transcript
        number = int(view["number"])  # type: ignore[call-overload]
        if view["status"] == GameStatus.RUNNING.value and number > handled:
            handled = number
            transcript.steps += 1
            for n, (player, sender, body) in enumerate(view["ballots"]):  # type: ignore[arg-type]
                transcript.asked[player] += 1
                if number == 1 and n == 0:
                    transcript.skipped = player  # waits for his reminder; misses the step
                    continue
                message_id = f"vote-{number}-{player}@spelers.example.org"
                transcript.votes[player].append(message_id)
                await send(sender, compose(sender, f"Re: {game}", body, message_id))
        if loop.time() > give_up:
            raise AssertionError(f"{game} did not end within {timeout}s ({handled} steps)")
        await asyncio.sleep(0.02)  # poll the database for the next step


async def delivered(factory: sessionmaker[Session], maildir: Path, *, timeout: float = 20) -> None:
    """Wait until every queued mail is sent and present in the Maildir."""

    def done() -> bool:
        with transaction(factory) as session:
            states = session.scalars(select(OutboxMessage.state)).all()
        if any(state == OutboxState.PENDING.value for state in states):
            return False
        box = mailbox.Maildir(maildir, create=False)
        return len(box) >= len(states)

    await wait_until(done, timeout=timeout, message="every mail to be delivered")


def check_mailboxes(factory: sessionmaker[Session], maildir: Path, transcript: Transcript) -> None:
    """Every player got exactly what he should: signup, role, step mails, receipts, the
    skipped step's reminder, stories and the game's end; nothing doubled, nothing failed."""
    with unit_of_work(factory) as work:
        session = work.session
        rows = session.scalars(select(OutboxMessage)).all()
        kinds = {row.message_id.strip("<>"): row.kind for row in rows}
        assert {row.state for row in rows} == {OutboxState.SENT.value}
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
        winners = service.load_state(work, game).winners
        steps_closed = game.step_number
        root = root_message_id(game, NARRATOR.rpartition("@")[2])
        zone = game.timezone
        deadlines = {
            f"{deadline.astimezone(ZoneInfo(zone)):%H:%M} ({zone})"
            for deadline in session.scalars(select(Step.deadline).where(Step.game_id == game.id))
        }
    box = mailbox.Maildir(maildir, create=False)
    seen: Counter[str] = Counter()
    per_player: dict[str, Counter[str]] = defaultdict(Counter)
    replies: dict[str, list[str]] = defaultdict(list)
    for key in box.iterkeys():
        message = email.message_from_bytes(box.get_bytes(key), policy=compat32)
        message_id = str(message["Message-ID"]).strip("<>")
        seen[message_id] += 1
        recipient = str(message["Delivered-To"])
        kind = kinds[message_id]
        per_player[recipient][kind] += 1
        if kind in ("receipt", "error"):
            replies[recipient].append(str(message["In-Reply-To"]).strip("<>"))
        assert _header(message, "Auto-Submitted") in ("auto-replied", "auto-generated")
        # One thread per game: every mail References its root; answers are "Re: " his subject,
        # the game's own mails are titled with the game day (issue 12).
        assert _header(message, "References").split()[0] == root, (kind, message_id)
        subject = _subject(message)
        if kind in ("signup_confirmed", "receipt", "error"):
            assert subject == f"Re: {game.name}", (kind, subject)
        else:
            assert DAY_SUBJECT.fullmatch(subject), (kind, subject)
        if kind in ("step", "reminder"):
            text = _text(message)
            assert any(deadline in text for deadline in deadlines), (kind, deadlines, text)
    doubled = [message_id for message_id, n in seen.items() if n > 1]
    assert not doubled, f"mails delivered twice: {doubled}"
    assert set(seen) == set(kinds), "every queued mail is in the Maildir, and only those"
    assert set(per_player) == {address(name) for name, _ in PLAYERS}
    for name, _ in PLAYERS:
        got = per_player[address(name)]
        votes = transcript.votes.get(name, [])
        expected = {
            "signup_confirmed": 1,
            "role": 1,
            "step": transcript.asked[name],
            "receipt": len(votes),
            "game_over": 1,
            "reminder": 1 if name == transcript.skipped else 0,
        }
        assert {kind: got[kind] for kind in expected} == expected, (name, dict(got))
        assert got["error"] == 0, (name, dict(got))
        # a step's public story, and his own private one when he may know more
        assert 1 <= got["story"] <= 2 * steps_closed, (name, dict(got))
        assert got["epilogue"] <= 1, (name, dict(got))
        assert sorted(replies[address(name)]) == sorted(votes), name
    assert winners, "the game ended with winners"


def _subject(message: Message) -> str:
    return str(email.header.make_header(email.header.decode_header(_header(message, "Subject"))))


def _text(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    return ""


def _header(message: Message, name: str) -> str:
    value = message[name]
    return "" if value is None else str(value)
