"""Processing stored inbound mail: parse, decide, apply, reply — one transaction per message.

The worker takes the oldest unprocessed inbox row (on PostgreSQL with ``FOR UPDATE SKIP
LOCKED``, so several daemons share the work), turns its mail into a command, applies it to the
game, queues the replies, and marks the row done, all in one transaction.  A message that keeps
failing is set aside (state ``failed``) for an operator after a few attempts, never dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import is_sqlite, transaction
from narrator.models import (
    Game,
    GameStatus,
    InboxMessage,
    InboxState,
    Player,
    admin_emails,
    fold_email,
    game_players,
)
from narrator.outbound.compose import Address
from narrator.service import games as service
from narrator.service.mailer import Mailer, ReplyTo
from parsing import (
    GameInfo,
    Help,
    Ignore,
    IgnoreReason,
    MailContext,
    ParsedMail,
    ParseError,
    Signup,
    classify_ignore,
    find_game,
    interpret,
    is_help_subject,
    parse_mail,
)
from parsing import Vote as ParsedVote

log = logging.getLogger("narrator.inbox")

MAX_ATTEMPTS = 5
OPEN_STATUSES = (GameStatus.SIGNUP.value, GameStatus.RUNNING.value, GameStatus.PAUSED.value)


@dataclass(frozen=True)
class InboxSettings:
    """What processing needs from the configuration."""

    address: str
    language: str = "nl"
    admins: tuple[str, ...] = ()
    own_addresses: frozenset[str] = field(default_factory=frozenset)

    @property
    def addresses(self) -> frozenset[str]:
        """Every address of the narrator (mail from them is our own, never answered)."""
        return frozenset({fold_email(self.address), *map(fold_email, self.own_addresses)})


@dataclass(frozen=True)
class Outcome:
    """What processing one message did (for logs and tests)."""

    state: str
    what: str


def process_message(
    session: Session, mailer: Mailer, settings: InboxSettings, row: InboxMessage, now: datetime
) -> Outcome:
    """Process one inbox row inside `session`; set its state; return what was done."""
    parsed = parse_mail(row.raw)
    ignore = classify_ignore(parsed, settings.addresses)
    if ignore is None and row.envelope_from == "":
        ignore = Ignore(reason=IgnoreReason.BOUNCE)
    if ignore is not None or not parsed.sender:
        reason = ignore.reason.value if ignore is not None else "no-sender"
        return _done(row, now, InboxState.IGNORED, f"ignored: {reason}")
    reply = ReplyTo(parsed.message_id or row.message_id or "", parsed.references, row.id)
    if is_help_subject(parsed.subject):
        return _forward_help(session, mailer, settings, row, parsed, now)
    games = list(session.scalars(select(Game).where(Game.status.in_(OPEN_STATUSES))))
    game_name = find_game(parsed.subject, [g.name for g in games])
    game = next((g for g in games if g.name == game_name), None)
    infos = []
    sender_player: Player | None = None
    name_counts: dict[str, tuple[int, int]] = {}
    players: list[Player] = []
    for candidate in games:
        if candidate is game:
            players = game_players(session, candidate)
            sender_player = next((p for p in players if p.email == parsed.sender), None)
            infos.append(
                GameInfo(
                    name=candidate.name,
                    signup_open=candidate.status == GameStatus.SIGNUP.value,
                    players=tuple(p.name for p in players),
                    language=candidate.language,
                )
            )
        else:
            infos.append(GameInfo(name=candidate.name, language=candidate.language))
    if game is not None and game.state is not None and sender_player is not None:
        name_counts = _name_counts(game, sender_player.name)
    context = MailContext(
        own_addresses=settings.addresses,
        games=tuple(infos),
        language=game.language if game is not None else settings.language,
        sender_player=sender_player.name if sender_player is not None else None,
        name_counts=name_counts,
    )
    command = interpret(parsed, context)
    if isinstance(command, Ignore):
        return _done(row, now, InboxState.IGNORED, f"ignored: {command.reason.value}")
    if isinstance(command, Help):
        return _forward_help(session, mailer, settings, row, parsed, now)
    if isinstance(command, ParseError):
        _error_reply(
            session,
            mailer,
            game,
            parsed,
            reply,
            now,
            command.code.value,
            command.message,
            list(command.params.get("choices", ()) or ()),
            settings,
        )
        return _done(row, now, InboxState.DONE, f"error: {command.code.value}")
    assert game is not None  # interpret only returns Signup/Vote for a known game
    try:
        if isinstance(command, Signup):
            result = service.signup(
                session,
                mailer,
                game,
                email=parsed.sender,
                name=command.name,
                gender=command.gender.value,
                now=now,
                reply=reply,
            )
            return _done(row, now, InboxState.DONE, f"signup: {result.player.name}")
        if isinstance(command, ParsedVote):
            if sender_player is None:
                raise service.GameError(
                    "not-a-player", f"{parsed.sender} does not play in {game.name}"
                )
            outcome = service.cast_vote(
                session,
                mailer,
                game,
                sender_player,
                targets=command.targets,
                blanco=command.blanco,
                keywords=command.keywords,
                corrections=[(c.written, c.understood) for c in command.corrections],
                now=now,
                reply=reply,
                inbox_id=row.id,
            )
            what = "vote accepted" if outcome.accepted else f"vote rejected: {outcome.code}"
            return _done(row, now, InboxState.DONE, what)
    except service.GameError as error:
        _error_reply(
            session, mailer, game, parsed, reply, now, error.code, str(error), [], settings
        )
        return _done(row, now, InboxState.DONE, f"error: {error.code}")
    raise TypeError(f"unexpected command {command!r}")


def _name_counts(game: Game, player: str) -> dict[str, tuple[int, int]]:
    rs = service.ruleset_of(game)
    state = service.load_state(game)
    counts: dict[str, tuple[int, int]] = {}
    for action in rs.choices(state, player).actions:
        counts[action.keyword or ""] = (action.min_names, action.max_names)
    return counts


def _done(row: InboxMessage, now: datetime, state: InboxState, what: str) -> Outcome:
    row.state = state.value
    row.processed_at = now
    row.error = None
    log.info("inbox %s (%s): %s", row.id, row.message_id, what)
    return Outcome(state.value, what)


def _error_reply(
    session: Session,
    mailer: Mailer,
    game: Game | None,
    parsed: ParsedMail,
    reply: ReplyTo,
    now: datetime,
    code: str,
    message: str,
    choices: list[str],
    settings: InboxSettings,
) -> None:
    players = game_players(session, game) if game is not None else []
    state = service.load_state(game) if game is not None and game.state is not None else None
    context: dict[str, Any] = {
        "game": service.story_game(game, state) if game is not None else None,
        "players": service.story_players(
            players, state, reveal_dead=bool(game and game.reveal_roles)
        ),
        "recipient": None,
        "player": None,
        "code": code,
        "message": message,
        "choices": choices,
    }
    sender_player = next((p for p in players if p.email == parsed.sender), None)
    if sender_player is not None:
        context["recipient"] = context["player"] = sender_player.name
    key = mailer.key(game, "error", settings.language)
    rendered = mailer.render(key, context, f"error/{reply.inbox_id}")
    mailer.queue(
        session,
        rendered=rendered,
        to=parsed.sender,
        to_name=parsed.sender_name,
        now=now,
        kind="error",
        identity=f"error/{reply.inbox_id}",
        game=game,
        reply=reply,
    )


def _forward_help(
    session: Session,
    mailer: Mailer,
    settings: InboxSettings,
    row: InboxMessage,
    parsed: ParsedMail,
    now: datetime,
) -> Outcome:
    admins = admin_emails(session, settings.admins)
    context = {
        "game": None,
        "players": [],
        "recipient": None,
        "sender": parsed.sender,
        "player": parsed.sender_name or None,
        "subject": parsed.raw_subject,
        "body": parsed.full_text or parsed.body,
    }
    rendered = mailer.render(
        mailer.key(None, "help_forward", settings.language), context, f"help/{row.id}"
    )
    for admin in admins:
        mailer.queue(
            session,
            rendered=rendered,
            to=admin,
            to_name="",
            now=now,
            kind="help_forward",
            identity=f"help/{row.id}",
            reply_to=Address(parsed.sender, parsed.sender_name),
        )
    if not admins:
        log.warning(
            "inbox %s: a Help mail from %s but no admin is configured", row.id, parsed.sender
        )
    return _done(row, now, InboxState.DONE, f"help forwarded to {len(admins)} admin(s)")


# --- the worker -----------------------------------------------------------------------------


def _claim(session: Session, url_is_sqlite: bool, skip: set[int]) -> InboxMessage | None:
    query = (
        select(InboxMessage)
        .where(InboxMessage.state == InboxState.NEW.value)
        .order_by(InboxMessage.attempts, InboxMessage.id)
        .limit(1)
    )
    if skip:
        query = query.where(InboxMessage.id.not_in(skip))
    if not url_is_sqlite:
        query = query.with_for_update(skip_locked=True)
    return session.scalars(query).first()


def process_pending(
    factory: sessionmaker[Session],
    mailer: Mailer,
    settings: InboxSettings,
    clock: Callable[[], datetime],
    *,
    limit: int = 1000,
) -> list[Outcome]:
    """Process up to `limit` unprocessed inbox rows, each in its own transaction.

    A row whose processing raised is retried on a later pass (not this one), and set aside
    as ``failed`` after :data:`MAX_ATTEMPTS`.
    """
    sqlite = is_sqlite(factory.kw["bind"].url)
    outcomes: list[Outcome] = []
    failed: set[int] = set()
    while len(outcomes) < limit:
        row_id: int | None = None
        try:
            with transaction(factory) as session:
                row = _claim(session, sqlite, failed)
                if row is None:
                    break
                row_id = row.id
                outcomes.append(process_message(session, mailer, settings, row, clock()))
        except Exception as error:  # the mail is kept; it is retried, then set aside
            if row_id is None:
                raise
            log.exception("inbox %s: processing failed", row_id)
            failed.add(row_id)
            outcomes.append(_record_failure(factory, row_id, error, clock()))
    return outcomes


def _record_failure(
    factory: sessionmaker[Session], row_id: int, error: Exception, now: datetime
) -> Outcome:
    with transaction(factory) as session:
        row = session.get(InboxMessage, row_id)
        assert row is not None
        row.attempts += 1
        row.error = f"{type(error).__name__}: {error}"[:2000]
        if row.attempts >= MAX_ATTEMPTS:
            row.state = InboxState.FAILED.value
            row.processed_at = now
            log.error("inbox %s set aside after %s attempts: %s", row_id, row.attempts, row.error)
            return Outcome(InboxState.FAILED.value, row.error)
        return Outcome(InboxState.NEW.value, f"will retry: {row.error}")
