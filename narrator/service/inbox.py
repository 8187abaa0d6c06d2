"""Processing stored inbound mail: parse, decide, apply, reply — in short transactions.

The worker takes the oldest unprocessed inbox rows (on PostgreSQL with ``FOR UPDATE SKIP
LOCKED``, so several daemons share the work), turns each mail into a command, applies it to
the game, queues the replies, and marks the row done: a batch of mails per transaction, and
one at a time again when a batch fails (see :func:`process_pending`).  A message that keeps
failing is set aside (state ``failed``) for an operator after a few attempts, never dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from narrator.config import NarratorSection
from narrator.db import is_sqlite, transaction
from narrator.models import (
    EMAIL_LENGTH,
    Game,
    GameStatus,
    InboxMessage,
    InboxState,
    Player,
    admin_emails,
    fold_email,
)
from narrator.outbound.compose import Address, InvalidAddress, check_address
from narrator.service import games as service
from narrator.service.authenticity import SenderAuth, header_items
from narrator.service.help import NO_ADMIN, no_admin_text
from narrator.service.limits import (
    NOTICE_KIND,
    Admission,
    Limits,
    admit_reply,
    hostile_defect,
    refusal_text,
)
from narrator.service.mailer import Mailer, ReplyTo
from narrator.service.story_context import story_cast, story_game, story_players
from narrator.service.work import Work, ruleset_of, unit_of_work
from parsing import (
    ErrorCode,
    GameInfo,
    Help,
    Ignore,
    IgnoreReason,
    MailContext,
    ParsedMail,
    ParseError,
    Read,
    Route,
    Signup,
    parse_mail,
    read_command,
    route,
)
from parsing import Vote as ParsedVote
from stories import StoryNotFound
from stories.lexicon import (
    choice_label,
    choice_words_for,
    explainer_for,
    help_words,
    lexicon_for,
    number_words_for,
)

log = logging.getLogger("narrator.inbox")

MAX_ATTEMPTS = 5
MAX_ADDRESS_LENGTH = min(EMAIL_LENGTH, 254)  # RFC 5321's limit on a usable path
OPEN_STATUSES = (GameStatus.SIGNUP.value, GameStatus.RUNNING.value, GameStatus.PAUSED.value)


@dataclass(frozen=True)
class InboxSettings:
    """What processing needs from the configuration."""

    address: str
    language: str = NarratorSection.language  # of mail that names no game
    ruleset: str = NarratorSection.ruleset  # whose words answer mail that names no game
    admins: tuple[str, ...] = ()
    own_addresses: frozenset[str] = field(default_factory=frozenset)
    limits: Limits = field(default_factory=Limits)
    sender_auth: SenderAuth = field(default_factory=SenderAuth)

    @property
    def addresses(self) -> frozenset[str]:
        """Every address of the narrator (mail from them is our own, never answered)."""
        return frozenset({fold_email(self.address), *map(fold_email, self.own_addresses)})

    def is_own(self, address: str) -> bool:
        """Whether `address` is the narrator's, also with a ``+detail`` (a reply address)."""
        local, at, domain = fold_email(address).rpartition("@")
        base = local.split("+", 1)[0]
        return fold_email(address) in self.addresses or (
            bool(at) and f"{base}@{domain}" in self.addresses
        )


@dataclass(frozen=True)
class Outcome:
    """What processing one message did (for logs and tests)."""

    state: str
    what: str


def process_message(
    work: Work, mailer: Mailer, settings: InboxSettings, row: InboxMessage, now: datetime
) -> Outcome:
    """Process one inbox row inside the unit of work `work`; set its state; return what was done.

    Mail that must never be answered (auto-replies, bounces, lists, our own, mail built to
    hurt the parser, mail from an unusable or unauthenticated non-player address) is marked
    ``ignored`` with the rule; everything else is ``done`` with exactly one answer (a receipt,
    a confirmation, an error, a Help forward), unless its sender is over his reply limit.
    """
    session = work.session
    limits = settings.limits
    too_large = 0 < limits.max_message_bytes < len(row.raw)
    items = header_items(row.raw)
    parsed = parse_mail(_headers_only(row.raw) if too_large else row.raw)
    # Only the names of the open games are needed to route the mail; the one game it is about
    # is loaded whole (its rules state can be large), locked: one mail at a time per game,
    # also across daemons (PostgreSQL).
    games = work.open_games()
    routed = route(
        parsed,
        [g.name for g in games],
        settings.addresses,
        explainer_for(settings.ruleset, settings.language),
        help_words(),
    )
    ignore = routed if isinstance(routed, Ignore) else None
    if ignore is None and row.envelope_from == "":
        ignore = Ignore(reason=IgnoreReason.BOUNCE)
    if ignore is None and parsed.sender and settings.is_own(parsed.sender):
        ignore = Ignore(reason=IgnoreReason.LOOP)
    if ignore is not None or not parsed.sender:
        reason = ignore.reason.value if ignore is not None else "no-sender"
        return _done(row, now, InboxState.IGNORED, f"ignored: {reason}")
    if not _is_usable_address(parsed.sender):
        return _done(row, now, InboxState.IGNORED, "ignored: unusable-sender")
    hostile = hostile_defect(parsed.defects)
    if hostile is not None:
        return _done(row, now, InboxState.IGNORED, f"ignored: hostile ({hostile})")
    game_name = routed.game if isinstance(routed, Route | Help) else None
    game_id = next((g.id for g in games if g.name == game_name), None)
    game = work.locked_game(game_id) if game_id is not None else None
    unauthenticated = settings.sender_auth.check(items, parsed.sender)
    if unauthenticated is not None:
        return _refuse_unauthenticated(
            work, mailer, settings, row, parsed, game, now, unauthenticated
        )
    admission = admit_reply(session, parsed.sender, now, limits)
    silent = admission is not Admission.SEND
    reply = ReplyTo(
        parsed.message_id or row.message_id or "",
        parsed.references,
        row.id,
        silent,
        subject=parsed.raw_subject,
    )
    if admission is Admission.NOTICE:
        _notice(work, mailer, settings, parsed, game, reply, now)
    if too_large:
        _refusal(
            work,
            mailer,
            settings,
            game,
            parsed,
            reply,
            now,
            "too-large",
            size=len(row.raw) // 1024,
            limit=limits.max_message_bytes // 1024,
        )
        return _done(row, now, InboxState.DONE, _suffix("error: too-large", admission))
    if isinstance(routed, Help):
        return _forward_help(work, mailer, settings, row, parsed, game, reply, now, admission)
    sender_player: Player | None = None
    players: list[Player] = []
    state: Any = None
    command: Read
    if not isinstance(routed, Route) or game is None:
        # No game named, or the one named was deleted since: ``no-game``.
        command = routed if isinstance(routed, ParseError) else _no_game(settings, games)
    else:
        players = work.players(game)
        reading = reading_for(work, game, players, parsed.sender)
        sender_player, state = reading.player, reading.state
        command = read_command(parsed, reading.info, reading.context)
    if isinstance(command, ParseError):
        message, choices = command.message, list(command.params.get("choices", ()) or ())
        if "choices" in command.params and game is not None:
            # The parser offers every player; the reply lists once (the template's list) what
            # the sender may really choose now: nobody when he is not asked (or dead).
            choices = _valid_choices(game, state, sender_player, players)
            rest = {k: v for k, v in command.params.items() if k != "choices"}
            message = explainer_for(game.ruleset, game.language)(command.code.value, rest)
        _error_reply(
            work,
            mailer,
            game,
            parsed,
            reply,
            now,
            command.code.value,
            message,
            choices,
            settings,
        )
        return _done(row, now, InboxState.DONE, _suffix(f"error: {command.code.value}", admission))
    assert game is not None  # read_command only reads a known game's mail
    try:
        if isinstance(command, Signup):
            _check_signup_limits(session, game, players, parsed.sender, limits)
            result = service.signup(
                work,
                mailer,
                game,
                email=parsed.sender,
                name=command.name,
                gender=command.gender.value,
                now=now,
                reply=reply,
            )
            return _done(
                row, now, InboxState.DONE, _suffix(f"signup: {result.player.name}", admission)
            )
        if isinstance(command, ParsedVote):
            if sender_player is None:
                raise service.GameError(
                    "not-a-player", f"{parsed.sender} does not play in {game.name}"
                )
            addresses = mailer.reply_addresses
            if addresses is not None and not addresses.is_addressed(items, game.id, parsed.sender):
                text = refusal_text("reply-address", game.ruleset, game.language)
                raise service.GameError("reply-address", text, reply_text=text)
            outcome = service.cast_vote(
                work,
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
                players=players,
                state=state,
            )
            what = "vote accepted" if outcome.accepted else f"vote rejected: {outcome.code}"
            return _done(row, now, InboxState.DONE, _suffix(what, admission))
    except service.GameError as error:
        _error_reply(
            work, mailer, game, parsed, reply, now, error.code, error.reply_text, [], settings
        )
        return _done(row, now, InboxState.DONE, _suffix(f"error: {error.code}", admission))
    raise TypeError(f"unexpected command {command!r}")


def _no_game(settings: InboxSettings, games: list[Any]) -> ParseError:
    """The ``no-game`` error, for a mail whose game went away while it was being read."""
    names = tuple(g.name for g in games)
    explain = explainer_for(settings.ruleset, settings.language)
    return ParseError(
        ErrorCode.NO_GAME, explain(ErrorCode.NO_GAME, {"games": names}), {"games": names}
    )


@dataclass(frozen=True)
class Reading:
    """How the narrator reads a mail for a game: the parser's view of the game (``info``), the
    sender's ``player`` (None: he is not in the game), the game's ``state`` (None before the
    start or for a stranger) and the parser's ``context``: the game's words, and, for a player
    of a running game, how many names each of his moves takes and his choices that are no
    names (a role, a team, a number)."""

    info: GameInfo
    player: Player | None
    state: Any
    context: MailContext


def reading_for(work: Work, game: Game, players: list[Player], sender: str) -> Reading:
    """The :class:`Reading` of a mail from ``sender`` (an address) for ``game`` now; also
    what ``narrator parse --game`` shows."""
    info, by_email = _game_info(work, game, players)
    player = by_email.get(sender)
    state: Any = None
    name_counts: dict[str, tuple[int, int]] = {}
    offered: dict[str, dict[str, tuple[str, ...]]] = {}
    number_keywords: frozenset[str] = frozenset()
    if work.has_state(game) and player is not None:
        state = service.load_state(work, game)
        name_counts = _name_counts(game, state, player.name)
        offered, number_keywords = _other_choices(game, state, player.name, info)
    context = MailContext(
        lexicon=lexicon_for(game.ruleset, game.language),
        sender_player=player.name if player is not None else None,
        name_counts=name_counts,
        explain=explainer_for(game.ruleset, game.language),
        choice_words=offered,
        number_keywords=number_keywords,
    )
    return Reading(info, player, state, context)


def _game_info(work: Work, game: Game, players: list[Player]) -> tuple[GameInfo, dict[str, Player]]:
    """The parser's view of `game` (its name index included) and its players by address.

    Once a game has started its players' names and addresses never change, so the mails of a
    batch for it share one, kept in the unit of work (a game of 1,000 players would cost
    O(players) per mail otherwise).
    """
    fixed = game.status in (GameStatus.RUNNING.value, GameStatus.PAUSED.value)
    known = work.parser_views.get(game.id)
    if fixed and known is not None and known[0] == players:
        return known[1], known[2]
    info = GameInfo(
        name=game.name,
        signup_open=game.status == GameStatus.SIGNUP.value,
        players=tuple(p.name for p in players),
    )
    by_email = {p.email: p for p in players}
    if fixed:
        work.parser_views[game.id] = (players, info, by_email)
    return info, by_email


def _suffix(what: str, admission: Admission) -> str:
    if admission is Admission.SEND:
        return what
    return f"{what} (over the reply limit: {admission.value})"


def _headers_only(raw: bytes) -> bytes:
    """The header block of `raw` (for a mail too large to read): its body is never parsed."""
    for separator in (b"\r\n\r\n", b"\n\n"):
        end = raw.find(separator, 0, 256 * 1024)
        if end >= 0:
            return raw[: end + len(separator)]
    return raw[: 256 * 1024] + b"\r\n\r\n"


def _is_usable_address(address: str) -> bool:
    """Whether a reply could be addressed to `address` (plain ASCII, not absurdly long)."""
    if len(address) > MAX_ADDRESS_LENGTH:
        return False
    try:
        check_address(address)
    except InvalidAddress:
        return False
    return True


def _check_signup_limits(
    session: Session, game: Game, players: list[Player], sender: str, limits: Limits
) -> None:
    """Raise GameError when a new signup would exceed the players or games limits."""
    if any(p.email == sender for p in players):
        return  # a re-signup changes a name; it adds nobody
    if 0 < limits.max_players_per_game <= len(players):
        text = refusal_text(
            "game-full", game.ruleset, game.language, limit=limits.max_players_per_game
        )
        raise service.GameError("game-full", text, reply_text=text)
    if limits.max_games_per_address > 0:
        playing = session.scalar(
            select(func.count(Player.id))
            .join(Game, Game.id == Player.game_id)
            .where(Player.email == sender, Game.status.in_(OPEN_STATUSES))
        )
        if (playing or 0) >= limits.max_games_per_address:
            text = refusal_text(
                "too-many-games",
                game.ruleset,
                game.language,
                limit=limits.max_games_per_address,
            )
            raise service.GameError("too-many-games", text, reply_text=text)


def _refuse_unauthenticated(
    work: Work,
    mailer: Mailer,
    settings: InboxSettings,
    row: InboxMessage,
    parsed: ParsedMail,
    game: Game | None,
    now: datetime,
    reason: str,
) -> Outcome:
    """Refuse mail whose sender failed authentication; tell only an address that plays.

    Answering any other address would send mail to whoever the forger named (backscatter);
    a player's address already receives the narrator's mail, and learns of the forgery.
    """
    session = work.session
    log.warning("inbox %s: %s not authenticated (%s); refused", row.id, parsed.sender, reason)
    playing = list(
        session.scalars(
            select(Game)
            .join(Player, Player.game_id == Game.id)
            .where(Player.email == parsed.sender, Game.status.in_(OPEN_STATUSES))
            .order_by(Game.id)
        )
    )
    if not playing:
        return _done(row, now, InboxState.IGNORED, f"ignored: unauthenticated ({reason})")
    if game not in playing:
        game = playing[0]
    admission = admit_reply(session, parsed.sender, now, settings.limits)
    reply = ReplyTo(
        parsed.message_id or row.message_id or "",
        parsed.references,
        row.id,
        admission is not Admission.SEND,
        subject=parsed.raw_subject,
    )
    if admission is Admission.NOTICE:
        _notice(work, mailer, settings, parsed, game, reply, now)
    _refusal(work, mailer, settings, game, parsed, reply, now, "not-authenticated", reason=reason)
    return _done(
        row, now, InboxState.DONE, _suffix(f"refused: unauthenticated ({reason})", admission)
    )


def _refusal(
    work: Work,
    mailer: Mailer,
    settings: InboxSettings,
    game: Game | None,
    parsed: ParsedMail,
    reply: ReplyTo,
    now: datetime,
    code: str,
    **params: str | int,
) -> None:
    language = game.language if game is not None else settings.language
    ruleset = game.ruleset if game is not None else settings.ruleset
    message = refusal_text(code, ruleset, language, **params)
    _error_reply(work, mailer, game, parsed, reply, now, code, message, [], settings)


def _notice(
    work: Work,
    mailer: Mailer,
    settings: InboxSettings,
    parsed: ParsedMail,
    game: Game | None,
    reply: ReplyTo,
    now: datetime,
) -> None:
    """The one polite notice a day that the sender's mail is no longer answered."""
    language = game.language if game is not None else settings.language
    ruleset = game.ruleset if game is not None else settings.ruleset
    message = refusal_text(
        "rate-limited",
        ruleset,
        language,
        per_hour=settings.limits.replies_per_hour,
        per_day=settings.limits.replies_per_day,
    )
    notice = ReplyTo(reply.message_id, reply.references, reply.inbox_id, subject=reply.subject)
    _error_reply(
        work,
        mailer,
        game,
        parsed,
        notice,
        now,
        "rate-limited",
        message,
        [],
        settings,
        kind=NOTICE_KIND,
        identity=f"notice/{reply.inbox_id}",
    )


def _valid_choices(
    game: Game, state: Any, player: Player | None, players: list[Player]
) -> list[str]:
    """What `player` may choose now, in the order the rules give it (none when he is not asked,
    dead, or the game has not started): the players' names, and the other choices (a role, a
    team) by their names in the game's language."""
    if player is None or state is None:
        return []
    playing = {p.name for p in players}
    names: list[str] = []
    for action in service.ruleset_of(game).choices(state, player.name).actions:
        for choice in action.targets:
            if choice not in playing:
                choice = choice_label(game.ruleset, game.language, choice)
            if choice not in names:
                names.append(choice)
    return names


def _other_choices(
    game: Game, state: Any, player: str, info: GameInfo
) -> tuple[dict[str, dict[str, tuple[str, ...]]], frozenset[str]]:
    """The parser's view of `player`'s choices that are no names, keyed by the keyword id of
    the vote that offers them (``""``: the plain vote): each id with the words of the game's
    pack that name it (a role, a team, a number in words); and the keywords naming a number."""
    offered: dict[str, dict[str, tuple[str, ...]]] = {}
    numbers: set[str] = set()
    for action in service.ruleset_of(game).choices(state, player).actions:
        key = action.keyword or ""
        for choice in action.targets:
            if info.matcher.lookup(choice) != choice:
                offered.setdefault(key, {})[choice] = choice_words_for(
                    game.ruleset, game.language, choice
                )
        if action.number:
            numbers.add(key)
            offered.setdefault(key, {}).update(number_words_for(game.ruleset, game.language))
    return offered, frozenset(numbers)


def _name_counts(game: Game, state: Any, player: str) -> dict[str, tuple[int, int]]:
    rs = service.ruleset_of(game)
    counts: dict[str, tuple[int, int]] = {}
    for action in rs.choices(state, player).actions:
        counts[action.keyword or ""] = (action.min_names, action.max_names)
    return counts


def _done(row: InboxMessage, now: datetime, state: InboxState, what: str) -> Outcome:
    row.state = state.value
    row.processed_at = now
    row.error = None
    return Outcome(state.value, what)


def _error_reply(
    work: Work,
    mailer: Mailer,
    game: Game | None,
    parsed: ParsedMail,
    reply: ReplyTo,
    now: datetime,
    code: str,
    message: str,
    choices: list[str],
    settings: InboxSettings,
    language: str | None = None,
    *,
    kind: str = "error",
    identity: str | None = None,
) -> None:
    """Queue the story pack's `error` mail to the sender: `message` explains `code`.

    Its template is the game's, else the one of `language` (default: the configured one).
    """
    session = work.session
    identity = identity or f"error/{reply.inbox_id}"
    players = work.players(game) if game is not None else []
    state = service.load_state(work, game) if game is not None and work.has_state(game) else None
    context: dict[str, Any] = {
        "game": story_game(game, state) if game is not None else None,
        "players": story_players(ruleset_of(game), players, state, reveal_dead=game.reveal_roles)
        if game is not None
        else [],
        "recipient": None,
        "player": None,
        "code": code,
        "message": message,
        "choices": choices,
    }
    sender_player = next((p for p in players if p.email == parsed.sender), None)
    if sender_player is not None:
        context["recipient"] = context["player"] = sender_player.name
    key = mailer.key(game, "error", language or settings.language)
    rendered = mailer.render(key, context, identity)
    mailer.queue(
        session,
        rendered=rendered,
        to=parsed.sender,
        to_name=parsed.sender_name,
        now=now,
        kind=kind,
        identity=identity,
        game=game,
        reply=reply,
    )


def _forward_help(
    work: Work,
    mailer: Mailer,
    settings: InboxSettings,
    row: InboxMessage,
    parsed: ParsedMail,
    game: Game | None,
    reply: ReplyTo,
    now: datetime,
    admission: Admission,
) -> Outcome:
    """Forward a Help mail to every admin; with none, tell the player (in the game's language,
    else the default) that nobody receives Help mails and whom to ask instead."""
    session = work.session
    if admission is not Admission.SEND:
        log.info("inbox %s: Help mail from %s not forwarded (reply limit)", row.id, parsed.sender)
        return _done(row, now, InboxState.DONE, _suffix("help not forwarded", admission))
    admins = admin_emails(session, settings.admins)
    if not admins:
        log.warning(
            "inbox %s: a Help mail from %s but no admin is configured", row.id, parsed.sender
        )
        # The reply is in the game's language but about no game: the error mail's closing
        # words for a game ("try again with WW5 as the subject") would turn a question into a vote.
        language = game.language if game is not None else settings.language
        ruleset = game.ruleset if game is not None else settings.ruleset
        message = no_admin_text(ruleset, language)
        _error_reply(
            work, mailer, None, parsed, reply, now, NO_ADMIN, message, [], settings, language
        )
        return _done(row, now, InboxState.DONE, "help not forwarded: no admin (player told)")
    context: dict[str, Any] = {
        "game": None,
        "players": [],
        "recipient": None,
        "sender": parsed.sender,
        "player": parsed.sender_name or None,
        "subject": parsed.raw_subject,
        "body": parsed.full_text or parsed.body,
    }
    if game is not None:  # the admins see which game it is about, and who he is in it
        players = work.players(game)
        state = service.load_state(work, game) if work.has_state(game) else None
        context["game"] = story_game(game, state)
        context["players"] = story_cast(work, game, players, state)
        playing = _game_info(work, game, players)[1].get(parsed.sender)
        if playing is not None:
            context["player"] = playing.name
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
    _acknowledge_help(work, mailer, settings, row, parsed, game, context, reply, now)
    return _done(row, now, InboxState.DONE, f"help forwarded to {len(admins)} admin(s)")


def _acknowledge_help(
    work: Work,
    mailer: Mailer,
    settings: InboxSettings,
    row: InboxMessage,
    parsed: ParsedMail,
    game: Game | None,
    forwarded: Mapping[str, Any],
    reply: ReplyTo,
    now: datetime,
) -> None:
    """Tell the sender his Help mail went to the admins (the pack's ``help_received``, in the
    game's language, else the default; none where the language has no such template)."""
    key = mailer.key(game, "help_received", settings.language)
    try:
        mailer.renderer.variants(key)
    except StoryNotFound:
        return
    player = forwarded.get("player")
    context = {
        "game": forwarded.get("game"),
        "players": forwarded.get("players") or [],
        "recipient": player,
        "player": player,
        "subject": parsed.raw_subject,
    }
    rendered = mailer.render(key, context, f"help-ack/{row.id}")
    mailer.queue(
        work.session,
        rendered=rendered,
        to=parsed.sender,
        to_name=parsed.sender_name or "",
        now=now,
        kind="help_received",
        identity=f"help-ack/{row.id}",
        game=game,
        reply=reply,
    )


# --- the worker -----------------------------------------------------------------------------


def _claim(session: Session, url_is_sqlite: bool, skip: set[int], size: int) -> list[InboxMessage]:
    query = (
        select(InboxMessage)
        .where(InboxMessage.state == InboxState.NEW.value)
        .order_by(InboxMessage.attempts, InboxMessage.id)
        .limit(size)
    )
    if skip:
        query = query.where(InboxMessage.id.not_in(skip))
    if not url_is_sqlite:
        query = query.with_for_update(skip_locked=True)
    return list(session.scalars(query))


# Mails processed in one transaction.  A batch saves a commit per mail and lets the mails of
# one game share its loaded players and rules state (see `game_players`, `load_state`);
# it is kept short because the receivers wait for the write lock meanwhile (SQLite).
BATCH_SIZE = 20

# PostgreSQL's "deadlock detected" and "could not serialize": two daemons' batches locked the
# same games in another order; nothing is wrong with the mails.
_CONFLICTS = frozenset({"40P01", "40001"})


def process_pending(
    factory: sessionmaker[Session],
    mailer: Mailer,
    settings: InboxSettings,
    clock: Callable[[], datetime],
    *,
    limit: int = 1000,
    batch_size: int = BATCH_SIZE,
) -> list[Outcome]:
    """Process up to `limit` unprocessed inbox rows, in batches of `batch_size` per transaction.

    When a batch fails, nothing of it is kept, and its mails are processed again one per
    transaction, so that one bad mail costs the others nothing.  A mail whose own processing
    raised is retried on a later pass (not this one), and set aside as ``failed`` after
    :data:`MAX_ATTEMPTS`.  A database failure (locked, restarting, connection lost) is not
    the mail's fault: it costs no attempt, and the whole pass is retried later.
    """
    sqlite = is_sqlite(factory.kw["bind"].url)
    outcomes: list[Outcome] = []
    failed: set[int] = set()
    singles = 0  # mails to take one at a time (after a failed batch)
    while len(outcomes) < limit:
        size = 1 if singles else max(1, min(batch_size, limit - len(outcomes)))
        claimed: list[int] = []
        try:
            with unit_of_work(factory) as work:
                rows = _claim(work.session, sqlite, failed, size)
                if not rows:
                    break
                claimed = [row.id for row in rows]
                done = [
                    (
                        row.id,
                        row.message_id,
                        process_message(work, mailer, settings, row, clock()),
                    )
                    for row in rows
                ]
        except OperationalError as error:
            if len(claimed) > 1 and getattr(error.orig, "sqlstate", None) in _CONFLICTS:
                log.info("inbox: a batch of %d met another daemon's; one at a time", len(claimed))
                singles = len(claimed)
                continue
            raise
        except Exception as error:  # the mail is kept; it is retried, then set aside
            if len(claimed) > 1:
                log.warning(
                    "inbox: a batch of %d mails failed (%s: %s); taking them one at a time",
                    len(claimed),
                    type(error).__name__,
                    error,
                )
                singles = len(claimed)
                continue
            if not claimed:
                raise
            singles = max(0, singles - 1)
            log.exception("inbox %s: processing failed", claimed[0])
            failed.add(claimed[0])
            outcomes.append(_record_failure(factory, claimed[0], error, clock()))
            continue
        singles = max(0, singles - len(done))
        for inbox_id, message_id, outcome in done:  # logged once committed
            log.info("inbox %s (%s): %s", inbox_id, message_id, outcome.what)
            outcomes.append(outcome)
        if len(done) < size and not singles:
            break  # all there was: what came in meanwhile makes the next pass's batch
    return outcomes


def _record_failure(
    factory: sessionmaker[Session], row_id: int, error: Exception, now: datetime
) -> Outcome:
    with transaction(factory) as session:
        row = session.get(InboxMessage, row_id)
        assert row is not None
        row.attempts += 1
        row.error = f"{type(error).__name__}: {error}".replace("\x00", "\\0")[:2000]
        if row.attempts >= MAX_ATTEMPTS:
            row.state = InboxState.FAILED.value
            row.processed_at = now
            log.error("inbox %s set aside after %s attempts: %s", row_id, row.attempts, row.error)
            return Outcome(InboxState.FAILED.value, row.error)
        return Outcome(InboxState.NEW.value, f"will retry: {row.error}")
