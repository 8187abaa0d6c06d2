"""Plays whole games of any ruleset by mail against a running daemon, and checks every mailbox.

A game is a :class:`Plan`: its ruleset, language and theme, its players and seed, and (rarely)
a ruleset's extra words. The players are bots: in each step every asked player waits for his step
mail, then mails the vote of :func:`tests.support.bymail.ballot` in the game's own words (the
names in one seeded order, so that the village agrees; blank and keyword words from the pack's
``words.toml``), after checking that his step mail offers what he writes. With ``skip_first``
one player skips the first step, so that step ends at its deadline and he gets a reminder; every
other step closes early when all have voted. Several games play at once with
:func:`asyncio.gather`, their mails interleaved. The skipped step's reminder and deadline come
when a :class:`ClockHand` moves the daemons' clock to them, once every game waits on nothing
else: the steps last an hour of that clock, and no test waits for the wall clock's seconds.

The outgoing mail is read from an :class:`Outbox`: the daemon's Maildir, or a real SMTP server
the daemon submits to.
"""

from __future__ import annotations

import asyncio
import email
import mailbox
import random
import threading
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import Message
from email.policy import compat32
from functools import cached_property
from pathlib import Path
from typing import Protocol
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import (
    Game,
    GameLogEntry,
    GameStatus,
    InboxMessage,
    InboxState,
    OutboxMessage,
    OutboxState,
    Step,
    game_players,
)
from narrator.outbound.compose import domain_of, make_message_id
from narrator.scheduler import DeadlineScheduler, reminder_time
from narrator.service import games as service
from narrator.service.threads import root_message_id
from narrator.service.work import unit_of_work
from stories.words import Words, load_words
from tests.support.aio import wait_until
from tests.support.bymail import (
    NARRATOR,
    Ballot,
    ExtraKeywords,
    ballot,
    compose,
    header,
    language_of,
    moment_subject,
    no_extra,
    roles_named,
    subject_of,
    text_of,
)
from tests.support.clock import MovableClock
from tests.support.smtp import SmtpCapture

PLAYERS = (
    ("Anna", "vrouw"),
    ("Bram", "man"),
    ("Carla", "vrouw"),
    ("Dirk", "man"),
    ("Eva", "vrouw"),
    ("Frank", "man"),
    ("Greet", "vrouw"),
    ("Hans", "man"),
)
Send = Callable[[str, bytes], Awaitable[None]]  # (sender address, raw mail)


@dataclass(frozen=True)
class Plan:
    """One game for the bots: ruleset, language, theme (default the ruleset's own), name (the
    mail subject), players (name, gender id ``man``/``vrouw``), the seed of the deal and of the
    bots' order, the players' mail domain, the ruleset's extra words (see ``ballot``), and
    whether its pack writes the time zone beside a deadline ("alle 04:15 (Europe/Rome)")."""

    ruleset: str
    lang: str
    name: str
    players: tuple[tuple[str, str], ...] = PLAYERS
    seed: int = 5
    theme: str | None = None
    domain: str = "spelers.example.org"
    extra: ExtraKeywords = no_extra
    strictness: int = 5
    zone_named: bool = True  # the pack names the time zone beside a deadline

    @property
    def theme_id(self) -> str:
        """The theme the game's mails are told in."""
        return self.theme or self.ruleset

    @cached_property
    def words(self) -> Words:
        """The pack's words of the game's ruleset and language."""
        return load_words(self.ruleset, self.lang)

    def address(self, name: str) -> str:
        """The mail address of player ``name`` in this game (ASCII, as most players' are: a
        Cyrillic name gets a local part of its code points)."""
        local = name.lower()
        if not local.isascii():
            local = "p-" + "-".join(f"{ord(c):x}" for c in local)
        return f"{local}@{self.domain}"

    def create(self, speed: str) -> list[str]:
        """The arguments of ``narrator game create`` for this game."""
        theme = ["--theme", self.theme] if self.theme else []
        return [
            "game", "create", self.name, "--ruleset", self.ruleset, "--lang", self.lang, *theme,
            "--speed", speed, "--strictness", str(self.strictness), "--close-early",
            "--tz", "Europe/Amsterdam",
        ]  # fmt: skip

    def order(self) -> list[str]:
        """The bots' shared order of the players, seeded."""
        names = [name for name, _ in self.players]
        random.Random(self.seed).shuffle(names)
        return names


@dataclass
class Transcript:
    """What the bots did in one game: per player the votes sent and the steps he was asked in;
    the phase of every step number they saw."""

    plan: Plan
    votes: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    asked: Counter[str] = field(default_factory=Counter)
    phases: dict[int, str | None] = field(default_factory=dict)
    skipped: str | None = None
    steps: int = 0


# --- the outgoing mail -----------------------------------------------------------------------


class Outbox(Protocol):
    """Where the daemon's mail went: every delivered copy, parsed once."""

    def messages(self) -> list[tuple[str, Message]]:
        """Every mail delivered so far, once per recipient: (recipient, message), new ones last."""
        ...


@dataclass
class MaildirOutbox:
    """The daemon's Maildir (``[outbound] maildir``); the recipient is in ``Delivered-To``."""

    path: Path
    _parsed: dict[str, tuple[str, Message]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def messages(self) -> list[tuple[str, Message]]:
        """Every mail in the Maildir (none before it exists)."""
        with self._lock:  # the bots of several games look from their threads
            return self._messages()

    def _messages(self) -> list[tuple[str, Message]]:
        if (self.path / "new").is_dir():
            box = mailbox.Maildir(self.path, create=False)
            for key in box.iterkeys():
                if key not in self._parsed:
                    message = email.message_from_bytes(box.get_bytes(key), policy=compat32)
                    self._parsed[key] = (header(message, "Delivered-To"), message)
        return list(self._parsed.values())


@dataclass
class SmtpOutbox:
    """A real SMTP server (aiosmtpd) the daemon submits to (``[outbound] mode = "smtp"``)."""

    capture: SmtpCapture
    _parsed: list[tuple[str, Message]] = field(default_factory=list)
    _read: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def messages(self) -> list[tuple[str, Message]]:
        """Every accepted mail, once per envelope recipient."""
        with self._lock:  # the bots of several games look from their threads
            received = self.capture.received
            for mail in received[self._read :]:
                message = email.message_from_bytes(mail.raw, policy=compat32)
                self._parsed.extend((rcpt, message) for rcpt in mail.rcpt_tos)
            self._read = len(received)
            return list(self._parsed)


class Mailboxes:
    """The delivered mail by Message-ID (without <>): [(recipient, message)]."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox
        self.by_id: dict[str, list[tuple[str, Message]]] = defaultdict(list)
        self._seen = 0

    def refresh(self) -> Mailboxes:
        """Take in what arrived since the last look; return self."""
        messages = self.outbox.messages()
        for recipient, message in messages[self._seen :]:
            self.by_id[header(message, "Message-ID").strip("<>")].append((recipient, message))
        self._seen = len(messages)
        return self


# --- the clock -------------------------------------------------------------------------------


class ClockHand:
    """Moves the daemons' clock through the skipped first steps of ``games`` games played at once.

    Each game's bots call :meth:`wait_out` once they have mailed their first step's votes (one of
    them skipping it). When every game has, and every one of those mails is applied, the hand
    moves the clock to the games' reminders (the latest of them, which must come before the
    earliest deadline) and waits until each game has sent its reminder; then past the latest
    deadline, and waits until each game has left its first step. Each time the ``schedulers``
    re-read the deadlines at once, and run what the clock has made due.
    """

    def __init__(
        self,
        clock: MovableClock,
        factory: sessionmaker[Session],
        schedulers: Callable[[], list[DeadlineScheduler]],
        *,
        games: int,
        timeout: float = 30.0,
    ) -> None:
        self.clock = clock
        self._factory = factory
        self._schedulers = schedulers
        self._games = games
        self._timeout = timeout
        self._waiting: dict[int, list[str]] = {}
        self._moved = asyncio.Event()
        self._failure: BaseException | None = None

    async def wait_out(self, game_id: int, votes: list[str]) -> None:
        """Return once the first step of game ``game_id`` (whose bots mailed ``votes``, by
        Message-ID) and of every other game has had its reminder and its deadline."""
        self._waiting[game_id] = votes
        if len(self._waiting) == self._games:
            try:
                await self._move()
            except BaseException as error:
                self._failure = error
                raise
            finally:
                self._moved.set()
        await self._moved.wait()
        if self._failure is not None:
            raise AssertionError("the clock hand failed (see the other game)") from self._failure

    async def _move(self) -> None:
        games = list(self._waiting)
        votes = {m for ids in self._waiting.values() for m in ids}
        await self._until(lambda: self._applied(votes), "the first steps' votes applied")
        times = await asyncio.to_thread(self._times, games)
        reminders = [reminder for reminder, _ in times.values()]
        deadlines = [deadline for _, deadline in times.values()]
        assert max(reminders) < min(deadlines), f"the games' reminders and deadlines: {times}"
        self.clock.move_to(max(reminders))
        await self._sync()
        await self._until(lambda: self._reminded(games), "every game's reminder")
        self.clock.move_to(max(deadlines) + timedelta(seconds=1))
        await self._sync()
        await self._until(lambda: self._past_first_step(games), "every first step's deadline")

    async def _until(self, predicate: Callable[[], bool], what: str) -> None:
        async def check() -> bool:
            return await asyncio.to_thread(predicate)

        await wait_until(check, timeout=self._timeout, interval=0.05, message=what)

    async def _sync(self) -> None:
        await asyncio.gather(*(scheduler.sync() for scheduler in self._schedulers()))

    def _applied(self, votes: set[str]) -> bool:
        """Every one of ``votes`` is stored, and no stored mail waits to be applied."""
        with transaction(self._factory) as session:
            rows = session.execute(select(InboxMessage.message_id, InboxMessage.state)).all()
        stored = {message_id for message_id, _ in rows}
        return votes <= stored and all(state != InboxState.NEW.value for _, state in rows)

    def _times(self, games: list[int]) -> dict[int, tuple[datetime, datetime]]:
        """Game id -> (its reminder's time, its deadline)."""
        times = {}
        with transaction(self._factory) as session:
            for game_id in games:
                game = session.get(Game, game_id)
                assert game is not None and game.deadline is not None and game.step_number == 1
                reminder = reminder_time(game)
                assert reminder is not None
                times[game_id] = (reminder, game.deadline)
        return times

    def _reminded(self, games: list[int]) -> bool:
        with transaction(self._factory) as session:
            reminded = session.scalars(select(Game.reminded_at).where(Game.id.in_(games))).all()
        return all(at is not None for at in reminded)

    def _past_first_step(self, games: list[int]) -> bool:
        with transaction(self._factory) as session:
            numbers = session.scalars(select(Game.step_number).where(Game.id.in_(games))).all()
        return all(number > 1 for number in numbers)


# --- playing ---------------------------------------------------------------------------------


def address(name: str) -> str:
    """The mail address of player ``name`` of a game with the default domain."""
    return f"{name.lower()}@spelers.example.org"


def _read(factory: sessionmaker[Session], name: str) -> dict[str, object]:
    """A look at Wakkerdam game ``name`` for the storm bots of ``tests/faults/harness.py``: its
    status, step number and each asked player's (name, address, body): the first valid choice,
    ``blanco`` where no name is needed."""
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


@dataclass(frozen=True)
class _Look:
    """One look at a game: its status, step number and phase, and each asked bot's ballot."""

    status: str
    number: int
    phase: str | None
    game_id: int
    ballots: tuple[tuple[str, str, Ballot], ...] = ()


def _look(factory: sessionmaker[Session], plan: Plan, order: list[str]) -> _Look:
    with unit_of_work(factory) as work:
        session = work.session
        game = session.scalars(select(Game).where(Game.name == plan.name)).one()
        if game.status != GameStatus.RUNNING.value:
            return _Look(game.status, game.step_number, None, game.id)
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        players = {p.name: p for p in game_players(session, game)}
        ballots = tuple(
            (
                name,
                players[name].email,
                ballot(rs.choices(state, name), order, plan.words, plan.extra),
            )
            for name in rs.asked(state)
        )
        return _Look(game.status, game.step_number, rs.view(state).phase, game.id, ballots)


def _step_mails(factory: sessionmaker[Session], game_id: int) -> dict[str, list[str]]:
    """Recipient -> the Message-IDs of the step mails queued to him, oldest first."""
    with transaction(factory) as session:
        rows = session.execute(
            select(OutboxMessage.recipient, OutboxMessage.message_id)
            .where(OutboxMessage.game_id == game_id, OutboxMessage.kind == "step")
            .order_by(OutboxMessage.id)
        ).all()
    found: dict[str, list[str]] = defaultdict(list)
    for recipient, message_id in rows:
        found[recipient].append(message_id.strip("<>"))
    return found


async def _read_step_mails(
    factory: sessionmaker[Session],
    boxes: Mailboxes,
    look: _Look,
    transcript: Transcript,
    timeout: float,
) -> dict[str, str]:
    """Wait until every asked player has his step mail of this step; return email -> its text."""
    texts: dict[str, str] = {}
    waits: list[object] = []

    async def arrived() -> bool:
        queued = await asyncio.to_thread(_step_mails, factory, look.game_id)
        await asyncio.to_thread(boxes.refresh)
        for player, address, _ in look.ballots:
            ids = queued.get(address, [])
            if len(ids) < transcript.asked[player] or ids[-1] not in boxes.by_id:
                waits[:] = [player, len(ids), transcript.asked[player]]
                return False
            texts[address] = text_of(boxes.by_id[ids[-1]][0][1])
        return True

    try:
        await wait_until(arrived, timeout=timeout, interval=0.05, message="the step mails")
    except AssertionError:
        raise AssertionError(
            f"{transcript.plan.name} step {look.number}: waiting for {waits}"
        ) from None
    return texts


async def sign_up(send: Send, plan: Plan) -> None:
    """Every player mails his signup, in the pack's words (``Anna, donna``)."""
    for name, gender in plan.players:
        sender = plan.address(name)
        body = f"{name}, {plan.words.genders[gender][0]}"
        local = sender.partition("@")[0]  # a Message-ID is ASCII, as a mail client makes it
        message_id = f"su-{local}.{plan.name}@{plan.domain}"
        await send(sender, compose(sender, plan.name, body, message_id))


async def play(
    factory: sessionmaker[Session],
    plan: Plan,
    send: Send,
    outbox: Outbox,
    *,
    timeout: float = 60.0,
    skip_first: bool = True,
    hand: ClockHand | None = None,
) -> Transcript:
    """Vote in every step until the game has ended; return what was sent.

    Each asked bot first reads his step mail (it must offer every name and word he writes).
    With ``skip_first`` the first asked player sends nothing in the first step: it ends at its
    deadline, after his reminder, which ``hand`` brings (without one, the wall clock)."""
    transcript = Transcript(plan)
    boxes = Mailboxes(outbox)
    order = plan.order()
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    handled = 0
    while True:
        look = await asyncio.to_thread(_look, factory, plan, order)
        if look.status == GameStatus.ENDED.value:
            return transcript
        if look.status == GameStatus.RUNNING.value and look.number > handled:
            handled = look.number
            transcript.steps += 1
            transcript.phases[look.number] = look.phase
            for player, _, _ in look.ballots:
                transcript.asked[player] += 1
            left = max(give_up - loop.time(), 1.0)
            texts = await _read_step_mails(factory, boxes, look, transcript, left)
            sent: list[str] = []
            for n, (player, sender, vote) in enumerate(look.ballots):
                offered = texts[sender]
                missing = [w for w in (*vote.names, *vote.words) if w not in offered]
                assert not missing, (plan.name, player, missing, offered)
                if skip_first and look.number == 1 and n == 0:
                    transcript.skipped = player  # waits for his reminder; misses the step
                    continue
                # ASCII, as a mail client makes it (the narrator answers no UTF-8 Message-ID)
                local = sender.partition("@")[0]
                message_id = f"vote-{look.number}-{local}.{plan.name}@{plan.domain}"
                transcript.votes[player].append(message_id)
                sent.append(message_id)
                await send(sender, compose(sender, f"Re: {plan.name}", vote.body, message_id))
            if skip_first and look.number == 1 and hand is not None:
                await hand.wait_out(look.game_id, sent)
        if loop.time() > give_up:
            raise AssertionError(f"{plan.name} did not end within {timeout}s ({handled} steps)")
        await asyncio.sleep(0.05)  # poll the database for the next step


async def delivered(factory: sessionmaker[Session], outbox: Outbox, *, timeout: float = 20) -> None:
    """Wait until every queued mail is sent and delivered."""

    def done() -> bool:
        with transaction(factory) as session:
            rows = session.execute(select(OutboxMessage.state, OutboxMessage.recipient)).all()
        if any(state == OutboxState.PENDING.value for state, _ in rows):
            return False
        return len(outbox.messages()) >= len(rows)

    await wait_until(done, timeout=timeout, message="every mail to be delivered")


# --- checking --------------------------------------------------------------------------------


def check_outbox(factory: sessionmaker[Session], outbox: Outbox) -> None:
    """Every queued mail was sent and delivered once, to its recipient; nothing else was."""
    with transaction(factory) as session:
        rows = session.scalars(select(OutboxMessage)).all()
        queued = {row.message_id.strip("<>"): row.recipient for row in rows}
        assert {row.state for row in rows} == {OutboxState.SENT.value}
    seen: Counter[str] = Counter()
    for recipient, message in outbox.messages():
        message_id = header(message, "Message-ID").strip("<>")
        seen[message_id] += 1
        assert queued.get(message_id) == recipient, (message_id, recipient, queued.get(message_id))
    doubled = [message_id for message_id, n in seen.items() if n > 1]
    assert not doubled, f"mails delivered twice: {doubled}"
    assert set(seen) == set(queued), "every queued mail was delivered, and only those"


def check_mailboxes(factory: sessionmaker[Session], outbox: Outbox, transcript: Transcript) -> None:
    """Every player of the game got exactly what he should, in the game's thread and language:
    signup, role, step mails, receipts, the skipped step's reminder, every dawn's and dusk's
    story and the game's end; nothing doubled, nothing failed, nothing to another player, and
    no role in any subject."""
    plan = transcript.plan
    with unit_of_work(factory) as work:
        session = work.session
        game = session.scalars(select(Game).where(Game.name == plan.name)).one()
        assert game.status == GameStatus.ENDED.value
        assert (game.ruleset, game.language, game.theme) == (plan.ruleset, plan.lang, plan.theme_id)
        rs = service.ruleset_of(game)
        winners = service.load_state(work, game).winners
        log = session.scalars(
            select(GameLogEntry).where(GameLogEntry.game_id == game.id).order_by(GameLogEntry.seq)
        ).all()
        # The log replays to the stored state; its start is the deal the role mails tell.
        assert rs.dump_state(service.replay(game, log)) == game.state
        start = next(n for n, entry in enumerate(log) if entry.kind == "start")
        dealt = service.replay(game, log[: start + 1])
        told = {p.name: rs.told_role(dealt, p.name) for p in game_players(session, game)}
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.game_id == game.id)).all()
        kinds = {row.message_id.strip("<>"): row.kind for row in rows}
        root = root_message_id(game, domain_of(NARRATOR))
        zone = game.timezone
        deadlines = {
            f"{deadline.astimezone(ZoneInfo(zone)):%H:%M}{f' ({zone})' if plan.zone_named else ''}"
            for deadline in session.scalars(select(Step.deadline).where(Step.game_id == game.id))
        }
        ids = {p.name: (p.id, p.email) for p in game_players(session, game)}
        name, game_id, last = game.name, game.id, game.step_number
    addresses = {plan.address(player) for player, _ in plan.players}
    assert {address for _, address in ids.values()} == addresses
    days = moment_subject(name, plan.words)
    boxes = Mailboxes(outbox).refresh()
    per_player: dict[str, Counter[str]] = defaultdict(Counter)
    texts: dict[tuple[str, str], list[str]] = defaultdict(list)
    replies: dict[str, list[str]] = defaultdict(list)
    got: dict[str, set[str]] = defaultdict(set)
    errors: dict[str, list[str]] = defaultdict(list)
    for message_id, kind in kinds.items():
        [(recipient, message)] = boxes.by_id[message_id]  # delivered once
        assert recipient in addresses, (name, kind, recipient)
        per_player[recipient][kind] += 1
        got[recipient].add(message_id)
        if kind in ("receipt", "error"):
            replies[recipient].append(header(message, "In-Reply-To").strip("<>"))
        if kind == "error":  # which mail it answered, and what it said (for a failure's message)
            answered = header(message, "In-Reply-To").strip("<>")
            errors[recipient].append(f"{answered}: {text_of(message)[:300]}")
        assert header(message, "Auto-Submitted") in ("auto-replied", "auto-generated")
        # One thread per game: every mail References its root; answers are "Re: " his subject,
        # the game's own mails are titled with the game day in its language (issue 12).
        assert header(message, "References").split()[0] == root, (kind, message_id)
        subject = subject_of(message)
        if kind in ("signup_confirmed", "receipt", "error"):
            assert subject == f"Re: {name}", (kind, subject)
        else:
            assert days.fullmatch(subject), (kind, subject, days.pattern)
        # (The reply's "Re:" aside: Vampiri's king is a Re.)
        assert not roles_named(subject.removeprefix("Re: "), plan.words), (kind, subject)
        text = text_of(message)
        texts[recipient, kind].append(text)
        assert language_of(text) == plan.lang, (name, kind, text)
        if kind in ("step", "reminder"):  # the deadline, in the game's time zone
            assert any(deadline in text for deadline in deadlines), (kind, deadlines, text)
    # Every dawn and dusk (the phase turns, or the game ends) is told to every player.
    assert sorted(transcript.phases) == list(range(1, last + 1)), (transcript.phases, last)
    turns = [
        n
        for n in transcript.phases
        if n == last or transcript.phases[n] != transcript.phases[n + 1]
    ]
    assert turns, transcript.phases
    for player, _ in plan.players:
        player_id, address = ids[player]
        mine = per_player[address]
        votes = transcript.votes.get(player, [])
        expected = {
            "signup_confirmed": 1,
            "role": 1,
            "step": transcript.asked[player],
            "receipt": len(votes),
            "game_over": 1,
            "reminder": 1 if player == transcript.skipped else 0,
            "error": 0,
        }
        assert {kind: mine[kind] for kind in expected} == expected, (
            name,
            player,
            dict(mine),
            errors[address],
        )
        stories = {_story_id(game_id, n, player_id, address) for n in turns}
        assert stories <= got[address], (name, player, sorted(turns))
        assert sorted(replies[address]) == sorted(votes), (name, player)
        role = told[player]
        assert role is not None
        [role_mail] = texts[address, "role"]  # his own role, in the pack's word
        for part in role.split("+"):  # a Mafia role is composite: "doctor+mafia"
            assert plan.words.roles[part].name in role_mail, (name, player, role, role_mail)
        assert mine["epilogue"] <= 1, (name, player, dict(mine))
    assert winners, "the game ended with winners"


def _story_id(game_id: int, number: int, player_id: int, address: str) -> str:
    """The Message-ID of the story of step ``number`` to one player (the mailer's identity)."""
    key = f"story/{game_id}/{number}/{player_id}/{address}"
    return make_message_id(domain_of(NARRATOR), key).strip("<>")
