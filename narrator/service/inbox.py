"""Processing stored inbound mail: parse, decide, apply, reply — in short transactions.

The worker takes the oldest unprocessed inbox rows (on PostgreSQL with ``FOR UPDATE SKIP
LOCKED``, so several daemons share the work), turns each mail into a command, applies it to
the game, queues the replies, and marks the row done: a batch of mails per transaction, and
one at a time again when a batch fails (see :func:`process_pending`).  A message that keeps
failing is set aside (state ``failed``) for an operator after a few attempts, never dropped.
Whether and how a mail is answered is decided by the rules of :data:`INBOX_CHAIN`, in order
(docs/dev/inbox-chain.md); the rule that decided is in the :class:`Outcome`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import bindparam, func, select, update
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
    PlayerInfo,
    PlayerRow,
    admin_emails,
    fold_email,
)
from narrator.outbound.compose import Address, InvalidAddress, check_address
from narrator.outbound.outbox import Claim, Claimant
from narrator.outbound.sender import OutboxItem
from narrator.service import games as service
from narrator.service.authenticity import SenderAuth, from_problem, header_items
from narrator.service.chain import Action, Rule, Verdict, go_on, walk
from narrator.service.help import NO_ADMIN, held_help_digest, no_admin_text
from narrator.service.letters import Draft, Letter, Recipient, post
from narrator.service.limits import (
    HELP_FORWARDS_PER_HOUR,
    NOTICE_KIND,
    Admission,
    Budget,
    Limits,
    admit_reply,
    count_help_forward,
    hostile_defect,
    refusal_text,
)
from narrator.service.mailer import Mailer, ReplyTo
from narrator.service.moves import cast_moves
from narrator.service.story_context import Reveal, roster, story_game
from narrator.service.table import GameTable, table_of
from narrator.service.work import Work, unit_of_work
from narrator.tables import games as games_table
from narrator.tables import inbox, players
from parsing import (
    ErrorCode,
    GameInfo,
    Help,
    Ignore,
    IgnoreReason,
    Lexicon,
    MailContext,
    Moves,
    ParsedMail,
    ParseError,
    Read,
    Route,
    Routed,
    Signup,
    parse_and_route,
    read_for,
    route,
)
from parsing import Vote as ParsedVote
from parsing.messages import Explain
from parsing.names import looks_like
from rules.core.model import ActionChoice
from stories.layout import is_unlisted
from stories.lexicon import (
    choice_label,
    choice_words_for,
    explainer_for,
    explainers,
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
    # The Help words of every language (a Help mail may name no game): read once, with the
    # settings, not for each mail.
    help_words: frozenset[str] = field(default_factory=help_words)
    # The wording of the parser's errors in each story pack, (ruleset, language) -> it, and in
    # mail that names no game (of `ruleset` in `language`): made once, with the settings, not
    # for each mail.
    explainers: Mapping[tuple[str, str], Explain] = field(
        default_factory=explainers, repr=False, compare=False
    )
    explain: Explain = field(init=False, repr=False, compare=False)
    # Every address of the narrator (mail from them is our own, never answered), folded: made
    # once, with the settings, not for each mail.
    addresses: frozenset[str] = field(init=False, repr=False, compare=False)
    # The sender that claims the mail processing queues (the daemon's own, see
    # process_pending); None: the mail is due at once for any sender.
    claimant: Claimant | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "explain", self.explainer(self.ruleset, self.language))
        own = frozenset({fold_email(self.address), *map(fold_email, self.own_addresses)})
        object.__setattr__(self, "addresses", own)

    def explainer(self, ruleset: str, language: str) -> Explain:
        """The wording of the parser's errors in games of `ruleset` in `language`."""
        known = self.explainers.get((ruleset, language))
        return known if known is not None else explainer_for(ruleset, language)

    def is_own(self, address: str) -> bool:
        """Whether `address` is the narrator's, also with a ``+detail`` (a reply address)."""
        folded = fold_email(address)
        local, at, domain = folded.rpartition("@")
        base = local.split("+", 1)[0]
        return folded in self.addresses or (bool(at) and f"{base}@{domain}" in self.addresses)


@dataclass(frozen=True)
class Outcome:
    """What processing one message did (for logs and tests): the row's new state, what was
    done, the inbox chain's rule that decided and every rule that found something."""

    state: str
    what: str
    # Which rule decided, and which found something (not part of what was done: an outcome
    # equals another of the same state and what).
    rule: str = field(default="", compare=False)
    hits: tuple[str, ...] = field(default=(), compare=False)
    # Its transaction changed a game's deadline or status (a step closed early, the game
    # ended): the daemon's scheduler reads the deadlines again.
    replan: bool = field(default=False, compare=False)
    # The mail it queued claimed by the pass's claimant (see process_pending), committed: its
    # sender is to deliver them.
    queued: tuple[OutboxItem, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Claimed:
    """An inbox row claimed for processing: what of it processing reads (its state is set by
    a Core update, :func:`_done`, in the same transaction)."""

    id: int
    message_id: str | None
    envelope_from: str | None
    raw: bytes


class _Answer(NamedTuple):
    """How a mail is answered: the game it is about (None: none named), the threading of the
    reply, the sender's reply admission (over his limit, the reply is silent), and who he is.

    A named tuple, as :class:`_Mail`: completed by ``_replace``."""

    game: Game | None
    reply: ReplyTo
    admission: Admission
    player: PlayerInfo | None = None  # the sender, when he plays in the game (once it is read)
    in_game: bool = False  # the sender plays in `game`: his own words may be quoted back
    playing: bool = False  # the sender plays in an open game (his answers count as a player's)


class _Mail(NamedTuple):
    """One inbox row as the inbox chain's rules see it: the unit of work, the mailer and the
    settings; the row, what the parser read of it (its header fields, where it routes, the
    open games), the clock; and what the rules completed: the game it names (locked, by
    ``game``) and how it is answered (by ``rate-limit``).

    A named tuple rather than a frozen dataclass: a rule that completes the mail makes a new
    one (``_replace``), twice or three times a mail, and a dataclass's ``replace`` cost about
    8 us each (its fields walked in Python, each set by ``object.__setattr__``), a named
    tuple's 1.5."""

    work: Work
    mailer: Mailer
    settings: InboxSettings
    row: Claimed
    parsed: ParsedMail
    items: list[tuple[str, str]]
    now: datetime
    routed: Route | Help | Ignore | ParseError
    games: list[Any]
    too_large: bool
    unauthenticated: str | None  # why its From or sender authentication fails (see Arrival)
    game: Game | None = None
    answer: _Answer | None = None

    @property
    def answering(self) -> _Answer:
        """How it is answered (the rules after ``rate-limit`` ask)."""
        assert self.answer is not None, "asked before the rate-limit rule"
        return self.answer


def process_message(
    work: Work,
    mailer: Mailer,
    settings: InboxSettings,
    row: Claimed,
    now: datetime,
    arrival: Arrival | None = None,
) -> Outcome:
    """Process one inbox row inside the unit of work `work`; set its state; return what was done.

    The rules of :data:`INBOX_CHAIN` look at the mail in order until one decides. Mail that
    must never be answered (auto-replies, bounces, lists, our own, mail from an unusable or
    unauthenticated non-player address) is marked ``ignored`` with the rule; everything else
    is ``done`` with exactly one answer (a refusal, a Help forward; for a command the game
    table's receipt, confirmation or error), unless its sender is over his reply limit.
    `arrival` is the row as its batch read it already (default: read here).
    """
    mail = _arrived(work, mailer, settings, row, now, arrival)
    outgoing = work.outgoing
    decision = walk(
        INBOX_CHAIN,
        mail,
        lambda letters: post(work.session, mailer, letters, now, outgoing=outgoing),
    )
    verdict = decision.verdict
    if verdict.action is Action.HAND_OFF:
        outcome = _read(decision.mail)
    else:
        state = InboxState.IGNORED if verdict.action is Action.IGNORE else InboxState.DONE
        outcome = _done(work, row, now, state, verdict.what)
    # Made anew with the rule and hits (every field given): `dataclasses.replace` walks the
    # fields in Python, about 8 us a mail.
    return Outcome(
        outcome.state,
        outcome.what,
        rule=decision.rule,
        hits=decision.hits,
        replan=outcome.replan,
        queued=outcome.queued,
    )


@dataclass(frozen=True)
class Arrival:
    """An inbox row as read before the chain looks at it: parsed (a too-large one's header
    only), its header fields, where it routes among the open games `names`, and why its From
    or its sender's authentication fails (``unauthenticated``; None: both pass)."""

    parsed: ParsedMail
    items: list[tuple[str, str]]
    too_large: bool
    names: tuple[str, ...]
    routed: Routed
    unauthenticated: str | None
    # The chain's first rules and the authentication let it through to ``rate-limit``: its
    # sender's reply counter is read with those of the batch's other senders (a wrong guess
    # costs only that mail an upsert of its own).
    answerable: bool


def arrival_of(settings: InboxSettings, row: Claimed, names: tuple[str, ...]) -> Arrival:
    """`row` parsed, routed among the open games `names`, and its sender authenticated."""
    too_large = 0 < settings.limits.max_message_bytes < len(row.raw)
    parsed, routed = parse_and_route(
        _headers_only(row.raw) if too_large else row.raw,
        names,
        settings.addresses,
        settings.explain,
        settings.help_words,
    )
    items = header_items(row.raw, parsed)
    # Found for every mail, whatever the chain's first rules will make of it: the
    # ``unauthenticated`` rule reads it, so no guess of which mails reach that rule decides
    # whether a mail is authenticated (only whose reply counter is read up front).
    reason = from_problem(items) or settings.sender_auth.check(items, parsed.sender)
    answerable = reason is None and _passes_first_rules(settings, row, parsed, routed)
    return Arrival(parsed, items, too_large, names, routed, reason, answerable)


def _route(settings: InboxSettings, parsed: ParsedMail, names: tuple[str, ...]) -> Routed:
    return route(parsed, names, settings.addresses, settings.explain, settings.help_words)


def _arrived(
    work: Work,
    mailer: Mailer,
    settings: InboxSettings,
    row: Claimed,
    now: datetime,
    arrival: Arrival | None = None,
) -> _Mail:
    """The mail as it arrived: parsed (a too-large one's header only) and routed among the
    games open now (`arrival`, read before, is routed again when they changed since)."""
    # Only the names of the open games are needed to route the mail; the one game it is about
    # is loaded whole by the ``game`` link (its rules state can be large).
    games = work.open_games()
    names = tuple(g.name for g in games)
    if arrival is None:
        arrival = arrival_of(settings, row, names)
    parsed, items, too_large = arrival.parsed, arrival.items, arrival.too_large
    routed = arrival.routed if arrival.names == names else _route(settings, parsed, names)
    names_none = isinstance(routed, Help) and routed.game is None
    if names_none or (isinstance(routed, ParseError) and routed.code is ErrorCode.NO_GAME):
        # No open game is named: one that has ended may be (a late vote, a question about it).
        ended = work.ended_game(parsed.subject)
        if ended is not None:
            games = [*games, ended]
            routed = (
                Help(routed.text, ended.name) if isinstance(routed, Help) else Route(ended.name)
            )
    return _Mail(
        work,
        mailer,
        settings,
        row,
        parsed,
        items,
        now,
        routed,
        games,
        too_large,
        arrival.unauthenticated,
    )


# --- the inbox chain's rules ----------------------------------------------------------------


def _ignore(reason: str) -> Verdict[_Mail]:
    return Verdict(Action.IGNORE, f"ignored: {reason}")


def _answer(mail: _Mail, what: str, *letters: Letter) -> Verdict[_Mail]:
    """Answered with `letters`; `what` says so, and whether the sender is over his limit."""
    return Verdict(Action.ANSWER, _suffix(what, mail.answering.admission), letters)


def _automatic(mail: _Mail) -> Verdict[_Mail]:
    """Mail the parser knows is automatic: an auto-reply, a bounce, a list's, a loop."""
    if isinstance(mail.routed, Ignore):
        return _ignore(mail.routed.reason.value)
    return go_on()


def _bounce(mail: _Mail) -> Verdict[_Mail]:
    """A bounce by its envelope: an empty return path."""
    if mail.row.envelope_from == "":
        return _ignore(IgnoreReason.BOUNCE.value)
    return go_on()


def _loop(mail: _Mail) -> Verdict[_Mail]:
    """Mail from one of the narrator's own addresses."""
    sender = mail.parsed.sender
    if sender and mail.settings.is_own(sender):
        return _ignore(IgnoreReason.LOOP.value)
    return go_on()


def _no_sender(mail: _Mail) -> Verdict[_Mail]:
    """Mail with no sender to answer."""
    return go_on() if mail.parsed.sender else _ignore("no-sender")


def _unusable_sender(mail: _Mail) -> Verdict[_Mail]:
    """Mail from an address no reply could be addressed to."""
    return go_on() if _is_usable_address(mail.parsed.sender) else _ignore("unusable-sender")


def _find_game(mail: _Mail) -> Verdict[_Mail]:
    """No check: the game the mail names, loaded whole and locked (one mail at a time per game,
    also across daemons on PostgreSQL), for the rules after it."""
    routed = mail.routed
    name = routed.game if isinstance(routed, Route | Help) else None
    game_id = next((g.id for g in mail.games if g.name == name), None)
    if game_id is None:
        return go_on()
    return go_on(mail._replace(game=mail.work.locked_game(game_id)))


def _unauthenticated(mail: _Mail) -> Verdict[_Mail]:
    """Mail whose From or sender authentication fails (a player is told, nobody else)."""
    reason = mail.unauthenticated  # read with the mail (see arrival_of)
    if reason is None:
        return go_on()
    return _refuse_unauthenticated(mail, reason)


def _rate_limit(mail: _Mail) -> Verdict[_Mail]:
    """Count the answer against the sender's reply limit and decide how he is answered; over
    his limit, the answers are silent (after one notice a day). It decides nothing: a
    player's vote over the limit still counts."""
    work, parsed, game = mail.work, mail.parsed, mail.game
    # Free text (his subject, a name he wrote) goes back only to a player of the game the
    # answer is about: anybody else may be an address a forger chose (backscatter).
    # (By the players' index by address the mails of a batch for a started game share.)
    in_game = game is not None and parsed.sender in _game_info(table_of(work, game))[1]
    # A player of the open game he writes to plays in an open game: no need to ask.
    playing = (in_game and game is not None and game.status in OPEN_STATUSES) or _plays_anywhere(
        work.session, parsed.sender
    )
    budget = Budget.PLAYER if playing else Budget.STRANGER
    limits = mail.settings.limits
    admission = admit_reply(work.session, parsed.sender, mail.now, limits, budget, work.replies)
    subject = parsed.raw_subject if in_game else _known_words_of_subject(parsed, mail.routed, game)
    reply = ReplyTo(
        parsed.message_id or mail.row.message_id or "",
        parsed.references,
        mail.row.id,
        admission is not Admission.SEND,
        subject=subject,
    )
    answer = _Answer(game, reply, admission, in_game=in_game, playing=playing)
    mail = mail._replace(answer=answer)
    notices = [_notice(mail)] if admission is Admission.NOTICE else []
    return go_on(mail, notices, hit=admission is not Admission.SEND)


def _hostile(mail: _Mail) -> Verdict[_Mail]:
    """Mail built to hurt the parser: a short answer, nothing read."""
    hostile = hostile_defect(mail.parsed.defects)
    if hostile is None:
        return go_on()
    refusal = _refusal(mail, mail.game, mail.answering.reply, "too-complex")
    return _answer(mail, f"error: too-complex ({hostile})", refusal)


def _too_large(mail: _Mail) -> Verdict[_Mail]:
    """Mail over the size limit: refused unread."""
    if not mail.too_large:
        return go_on()
    limit = mail.settings.limits.max_message_bytes
    refusal = _refusal(
        mail,
        mail.game,
        mail.answering.reply,
        "too-large",
        size=len(mail.row.raw) // 1024,
        limit=limit // 1024,
    )
    return _answer(mail, "error: too-large", refusal)


def _help(mail: _Mail) -> Verdict[_Mail]:
    """A Help mail: forwarded to the admins."""
    if not isinstance(mail.routed, Help):
        return go_on()
    answer = mail.answering
    if answer.playing and answer.admission is not Admission.SEND:
        # A player's Help always reaches the admins (only the acknowledgement to him
        # follows his reply limit), up to a flood of them an hour.
        admission = _help_admission(mail.work.session, mail.parsed.sender, mail.now)
        mail = mail._replace(answer=answer._replace(admission=admission))
    return _forward_help(mail)


def _command(mail: _Mail) -> Verdict[_Mail]:
    """Everything else is a command (or the error of one): read it and hand it to the game."""
    return Verdict(Action.HAND_OFF)


# The inbox's rules in their order (docs/dev/inbox-chain.md): the first that decides ends it.
INBOX_CHAIN: tuple[Rule[_Mail], ...] = (
    Rule("automatic", _automatic),
    Rule("bounce", _bounce),
    Rule("loop", _loop),
    Rule("no-sender", _no_sender),
    Rule("unusable-sender", _unusable_sender),
    Rule("game", _find_game),
    Rule("unauthenticated", _unauthenticated),
    Rule("rate-limit", _rate_limit),
    Rule("hostile", _hostile),
    Rule("too-large", _too_large),
    Rule("help", _help),
    Rule("command", _command),
)


# --- a command: read, and handled by the game table -----------------------------------------


def _read(mail: _Mail) -> Outcome:
    """Read a mail the chain handed off: the error of a mail naming no (known) game, else the
    game table's answer to its command."""
    routed, answer = mail.routed, mail.answering
    if not isinstance(routed, Route) or mail.game is None:
        # No game named, or the one named was deleted since: ``no-game``.
        unread = routed if isinstance(routed, ParseError) else _no_game(mail.settings, mail.games)
        return _unread(mail, answer, unread)
    if mail.game.status == GameStatus.ENDED.value:
        return _game_over(mail, answer, mail.game)
    return _hand_off(mail, answer)


def _game_over(mail: _Mail, answer: _Answer, game: Game) -> Outcome:
    """Answer a mail to a game that has ended: it is over (its words.toml ``game-over``, in
    the game's language, naming the winners when the rules tell them and, when the pages are
    configured, the game's public page), nothing is read."""
    table = table_of(mail.work, game)
    params = {"game": game.name}
    if names := _winners(table):
        params["winners"] = ", ".join(names)
    pages = mail.mailer.pages
    if pages is not None:  # the game's public page (docs/web.md): its whole story
        params["link"] = pages.game(game.name)
    text = refusal_text("game-over", game.ruleset, game.language, **params)
    error = _Error("game-over", text)
    letter = _error_reply(mail.work, game, mail.parsed, answer.reply, error, mail.settings)
    post(mail.work.session, mail.mailer, [letter], mail.now, outgoing=mail.work.outgoing)
    what = _suffix("error: game-over", answer.admission)
    return _done(mail.work, mail.row, mail.now, InboxState.DONE, what)


def _hand_off(mail: _Mail, answer: _Answer) -> Outcome:
    """Read the mail as a command for its game and let the game's table handle it; post the
    letters it decides (a receipt, a confirmation, an error reply)."""
    assert answer.game is not None
    work, mailer, settings = mail.work, mail.mailer, mail.settings
    table = table_of(work, answer.game)
    explain = settings.explainer(answer.game.ruleset, answer.game.language)
    reading = reading_for(table, mail.parsed.sender, explain)
    answer = answer._replace(player=reading.player)
    command = reading.read(mail.parsed)
    if isinstance(command, ParseError):
        return _unread(mail, answer, command)
    try:
        letters, what = _handle(table, mail, answer, command)
    except service.GameError as error:
        refused = _Error(error.code, error.reply_text)
        letter = _error_reply(work, answer.game, mail.parsed, answer.reply, refused, settings)
        post(work.session, mailer, [letter], mail.now, outgoing=work.outgoing)
        what = _suffix(f"error: {error.code}", answer.admission)
        return _done(work, mail.row, mail.now, InboxState.DONE, what)
    post(work.session, mailer, letters, mail.now, outgoing=work.outgoing)
    return _done(work, mail.row, mail.now, InboxState.DONE, _suffix(what, answer.admission))


def _handle(
    table: GameTable, mail: _Mail, answer: _Answer, command: Read
) -> tuple[Sequence[Letter], str]:
    """What the game's table makes of a signup or a vote: the letters and what was done."""
    game, parsed, now, player = table.game, mail.parsed, mail.now, answer.player
    mailer, settings = mail.mailer, mail.settings
    if isinstance(command, Signup):
        if looks_like(command.name, mailer.display_name):  # the narrator's own name
            text = refusal_text(
                "name-lookalike", game.ruleset, game.language, taken=mailer.display_name
            )
            raise service.GameError("name-lookalike", text, reply_text=text)
        _check_signup_limits(
            table.work.session, game, table.players, parsed.sender, settings.limits
        )
        applicant = service.Applicant(parsed.sender, command.name, command.gender.value)
        result = service.signup(table, applicant, now, answer.reply)
        return result.letters, f"signup: {result.player.name}"
    if isinstance(command, ParsedVote | Moves):
        if player is None:
            raise service.GameError("not-a-player", f"{parsed.sender} does not play in {game.name}")
        addresses = mailer.reply_addresses
        if addresses is not None and not addresses.is_addressed(mail.items, game.id, parsed.sender):
            text = refusal_text("reply-address", game.ruleset, game.language)
            raise service.GameError("reply-address", text, reply_text=text)
    if isinstance(command, Moves):
        assert player is not None
        cast = cast_moves(table, player, command.moves, now, answer.reply, mail.row.id)
        return cast.letters, f"moves: {cast.detail}"
    if isinstance(command, ParsedVote):
        assert player is not None
        ballot = service.Ballot(
            targets=command.targets,
            blanco=command.blanco,
            keywords=command.keywords,
            corrections=[(c.written, c.understood) for c in command.corrections],
            inbox_id=mail.row.id,
        )
        outcome = service.cast_vote(table, player, ballot, now, answer.reply)
        what = "vote accepted" if outcome.accepted else f"vote rejected: {outcome.code}"
        return outcome.letters, what
    raise TypeError(f"unexpected command {command!r}")


def _unread(mail: _Mail, answer: _Answer, command: ParseError) -> Outcome:
    """Answer a mail the parser could not use with the error reply: what was wrong and what
    would work (for a game's mail, what the sender may really choose now)."""
    game, work, settings = answer.game, mail.work, mail.settings
    if not answer.in_game:
        command = _without_free_text(command, game, settings)
    message, choices = command.message, list(command.params.get("choices", ()) or ())
    if "choices" in command.params and game is not None:
        # The parser offers every player; the reply lists once (the template's list) what
        # the sender may really choose now: nobody when he is not asked (or dead).
        choices = _valid_choices(table_of(work, game), answer.player)
        rest = {k: v for k, v in command.params.items() if k != "choices"}
        message = settings.explainer(game.ruleset, game.language)(command.code.value, rest)
    error = _Error(command.code.value, message, choices)
    letter = _error_reply(work, game, mail.parsed, answer.reply, error, settings)
    post(work.session, mail.mailer, [letter], mail.now, outgoing=work.outgoing)
    what = _suffix(f"error: {command.code.value}", answer.admission)
    return _done(work, mail.row, mail.now, InboxState.DONE, what)


def _winners(table: GameTable) -> list[str]:
    """The winners of an ended game as its rules state tells them (none: a game ended by an
    admin, or with no state)."""
    if table.state_or_none is None:
        return []
    return list(table.view.winners)


def _no_game(settings: InboxSettings, games: list[Any]) -> ParseError:
    """The ``no-game`` error, for a mail whose game went away while it was being read."""
    names = tuple(g.name for g in games)
    explain = settings.explain
    return ParseError(
        ErrorCode.NO_GAME, explain(ErrorCode.NO_GAME, {"games": names}), {"games": names}
    )


@dataclass(frozen=True)
class Reading:
    """How the narrator reads a mail for a game: the parser's view of the game (``info``), the
    sender's ``player`` (None: he is not in the game) and the parts of the parser's context
    (:class:`parsing.MailContext` documents each): the game's words (``lexicon``, ``explain``),
    and, for a player of a running game, how many names each of his moves takes, his choices
    that are no names (a role, a team, a number) and his moves."""

    info: GameInfo
    player: PlayerInfo | None
    lexicon: Lexicon
    explain: Explain
    name_counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    choice_words: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    number_keywords: frozenset[str] = frozenset()
    moves: dict[str, str] = field(default_factory=dict)

    def read(self, parsed: ParsedMail) -> Read:
        """What the parser reads in `parsed` (one call: it builds its context of the parts)."""
        return read_for(
            parsed,
            self.info,
            lexicon=self.lexicon,
            explain=self.explain,
            sender_player=self.player.name if self.player is not None else None,
            name_counts=self.name_counts,
            choice_words=self.choice_words,
            number_keywords=self.number_keywords,
            moves=self.moves,
        )

    @property
    def context(self) -> MailContext:
        """The parser's context of the parts (what ``narrator parse --game`` starts from)."""
        return MailContext(
            lexicon=self.lexicon,
            sender_player=self.player.name if self.player is not None else None,
            name_counts=self.name_counts,
            explain=self.explain,
            choice_words=self.choice_words,
            number_keywords=self.number_keywords,
            moves=self.moves,
        )


def reading_for(table: GameTable, sender: str, explain: Explain | None = None) -> Reading:
    """The :class:`Reading` of a mail from ``sender`` (an address) for the table's game now,
    its errors worded by ``explain`` (default: the game's pack's); also what ``narrator parse
    --game`` shows."""
    game = table.game
    info, by_email = _game_info(table)
    player = by_email.get(sender)
    name_counts: dict[str, tuple[int, int]] = {}
    offered: dict[str, dict[str, tuple[str, ...]]] = {}
    number_keywords: frozenset[str] = frozenset()
    moves: dict[str, str] = {}
    if table.started and player is not None:
        actions = table.rules.choices(table.state, player.name).actions
        name_counts = {a.keyword or "": (a.min_names, a.max_names) for a in actions}
        offered, number_keywords = _other_choices(game, actions, info)
        if len(actions) > 1:  # he may write several moves in one mail (one a line)
            moves = {a.keyword or "": a.move or a.keyword or "" for a in actions}
    return Reading(
        info,
        player,
        lexicon=lexicon_for(game.ruleset, game.language),
        explain=explain if explain is not None else explainer_for(game.ruleset, game.language),
        name_counts=name_counts,
        choice_words=offered,
        number_keywords=number_keywords,
        moves=moves,
    )


def _game_info(table: GameTable) -> tuple[GameInfo, dict[str, PlayerRow]]:
    """The parser's view of the table's game (its name index included) and its players by
    address.

    Once a game has started its players' names and addresses never change, so the mails of a
    batch for it share one, kept on the game table (a game of 1,000 players would cost
    O(players) per mail otherwise).
    """
    game = table.game
    fixed = game.status in (GameStatus.RUNNING.value, GameStatus.PAUSED.value)
    if fixed and table.parser_view is not None:
        return table.parser_view
    players = table.players
    info = GameInfo(
        name=game.name,
        signup_open=game.status == GameStatus.SIGNUP.value,
        players=tuple(p.name for p in players),
    )
    by_email = {p.email: p for p in players}
    if fixed:
        table.parser_view = (info, by_email)
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
    session: Session, game: Game, players: list[PlayerRow], sender: str, limits: Limits
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


# Params of the parser's errors that repeat what the sender wrote.
FREE_TEXT_PARAMS = ("written", "name")


def _without_free_text(error: ParseError, game: Game | None, settings: InboxSettings) -> ParseError:
    """`error` worded without what the sender wrote (for an address that is no player)."""
    if not any(name in error.params for name in FREE_TEXT_PARAMS):
        return error
    params = {k: v for k, v in error.params.items() if k not in FREE_TEXT_PARAMS}
    ruleset = game.ruleset if game is not None else settings.ruleset
    language = game.language if game is not None else settings.language
    message = settings.explainer(ruleset, language)(error.code.value, params)
    return ParseError(error.code, message, params, error.game)


def _known_words_of_subject(parsed: ParsedMail, routed: object, game: Game | None) -> str:
    """The subject an answer to a stranger quotes: only what the narrator recognised in his
    (the Help word he used, the game's name), never the rest he wrote."""
    words = []
    if isinstance(routed, Help) and parsed.subject.split():
        words.append(parsed.subject.split()[0][:20])
    if game is not None:
        words.append(game.name)
    return " ".join(words)


def _plays_anywhere(session: Session, sender: str) -> bool:
    """Whether `sender` plays in an open game (his answers are counted as a player's)."""
    return session.connection().scalar(_PLAYS_ANYWHERE, {"sender": sender}) is not None


def _help_admission(session: Session, sender: str, now: datetime) -> Admission:
    """Whether a Help mail of a player over his reply limit is still forwarded (SEND) or held
    in the inbox as a flood (SILENT): :data:`HELP_FORWARDS_PER_HOUR` an hour."""
    count = count_help_forward(session, sender, now)
    if count == HELP_FORWARDS_PER_HOUR + 1:
        log.warning("%s sent more than %s Help mails this hour: a flood", sender, count - 1)
    return Admission.SEND if count <= HELP_FORWARDS_PER_HOUR else Admission.SILENT


def _refuse_unauthenticated(mail: _Mail, reason: str) -> Verdict[_Mail]:
    """Refuse mail whose sender failed authentication; tell only an address that plays.

    Answering any other address would send mail to whoever the forger named (backscatter);
    a player's address already receives the narrator's mail, and learns of the forgery.
    """
    session, row, parsed, now, game = mail.work.session, mail.row, mail.parsed, mail.now, mail.game
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
        return _ignore(f"unauthenticated ({reason})")
    if game not in playing:
        game = playing[0]
    # Counted apart from his own answers, and once a day: forgeries can't use up the real
    # player's replies (his receipts, his Help), nor flood his mailbox.
    admission = admit_reply(session, parsed.sender, now, mail.settings.limits, Budget.FORGED)
    reply = ReplyTo(
        parsed.message_id or row.message_id or "",
        parsed.references,
        row.id,
        admission is not Admission.SEND,
    )
    refusal = _refusal(mail, game, reply, "not-authenticated", reason=reason)
    what = _suffix(f"refused: unauthenticated ({reason})", admission)
    return Verdict(Action.ANSWER, what, (refusal,))


def _refusal(
    mail: _Mail, game: Game | None, reply: ReplyTo, code: str, **params: str | int
) -> Letter:
    """The error reply refusing a mail for `code` (the limits' wording, with `params`)."""
    settings = mail.settings
    language = game.language if game is not None else settings.language
    ruleset = game.ruleset if game is not None else settings.ruleset
    message = refusal_text(code, ruleset, language, **params)
    error = _Error(code, message)
    return _error_reply(mail.work, game, mail.parsed, reply, error, settings)


def _notice(mail: _Mail) -> Letter:
    """The one polite notice a day that the sender's mail is no longer answered."""
    settings, game, reply = mail.settings, mail.game, mail.answering.reply
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
    error = _Error("rate-limited", message, kind=NOTICE_KIND, identity=f"notice/{reply.inbox_id}")
    return _error_reply(mail.work, game, mail.parsed, notice, error, settings)


def _valid_choices(table: GameTable, player: PlayerInfo | None) -> list[str]:
    """What `player` may choose now, in the order the rules give it (none when he is not asked,
    dead, or the game has not started): the players' names, and the other choices (a role, a
    team) by their names in the game's language."""
    if player is None or not table.started:
        return []
    game = table.game
    playing = {p.name for p in table.players}
    names: list[str] = []
    for action in table.rules.choices(table.state, player.name).actions:
        for choice in action.targets:
            if choice not in playing:
                choice = choice_label(game.ruleset, game.language, choice)
            if choice not in names:
                names.append(choice)
    return names


def _other_choices(
    game: Game, actions: Sequence[ActionChoice], info: GameInfo
) -> tuple[dict[str, dict[str, tuple[str, ...]]], frozenset[str]]:
    """The parser's view of a player's choices (`actions`) that are no names, keyed by the
    keyword id of the vote that offers them (``""``: the plain vote): each id with the words of
    the game's pack that name it (a role, a team, a number in words); and the keywords naming
    a number."""
    offered: dict[str, dict[str, tuple[str, ...]]] = {}
    numbers: set[str] = set()
    names = frozenset(info.players)
    for action in actions:
        key = action.keyword or ""
        for choice in action.targets:
            if choice not in names:
                offered.setdefault(key, {})[choice] = choice_words_for(
                    game.ruleset, game.language, choice
                )
        if action.number:
            numbers.add(key)
            offered.setdefault(key, {}).update(number_words_for(game.ruleset, game.language))
    return offered, frozenset(numbers)


def _done(work: Work, row: Claimed, now: datetime, state: InboxState, what: str) -> Outcome:
    """Set the processed row's state (a Core update, written with the batch's others when the
    unit of work flushes)."""
    work.write(_MARK_PROCESSED, {"row": row.id, "new_state": state.value, "at": now})
    return Outcome(state.value, what)


@dataclass(frozen=True)
class _Error:
    """What an error reply says: the `code`, its `message` in the mail's language, the valid
    `choices`; its outbox `kind` and `identity` (default: ``error/<inbox id>``); the
    `language` of its template when it is about no game."""

    code: str
    message: str
    choices: list[str] = field(default_factory=list)
    kind: str = "error"
    identity: str | None = None
    language: str | None = None  # of a mail about no game (default: the configured one)


def _error_reply(
    work: Work,
    game: Game | None,
    parsed: ParsedMail,
    reply: ReplyTo,
    error: _Error,
    settings: InboxSettings,
) -> Letter:
    """The story pack's `error` mail to the sender: its message explains the code.

    Its template is the game's, else the one of the error's language (default: the
    configured one).
    """
    identity = error.identity or f"error/{reply.inbox_id}"
    table = table_of(work, game) if game is not None else None
    players = table.players if table is not None else []
    context: dict[str, Any] = {
        "game": None,
        "players": [],
        "recipient": None,
        "player": None,
        "code": error.code,
        "message": error.message,
        "choices": error.choices,
    }
    if table is not None:
        state = table.state_or_none
        view = table.view if state is not None else None
        context["game"] = story_game(table.game, None, view=view)
        roles = table.rules.told_roles(state) if state is not None else None
        reveal = Reveal(dead=table.game.reveal_roles)  # the dead's: not even his own role
        context["players"] = roster(players, view, roles, reveal)
    sender_player = next((p for p in players if p.email == parsed.sender), None)
    page = None
    if sender_player is not None:
        context["recipient"] = context["player"] = sender_player.name
        if table is not None and is_unlisted(error.choices, table.cast()):
            page = sender_player  # a big game's: his choices are on his page, which it links
    language = error.language or settings.language
    draft = Draft("error", context, identity, game=game, language=language)
    to = Recipient(parsed.sender, parsed.sender_name, identity)
    return Letter(error.kind, draft, (to,), game=game, reply=reply, page=page)


def _forward_help(mail: _Mail) -> Verdict[_Mail]:
    """Forward a Help mail to every admin; with none, tell the player (in the game's language,
    else the default) that nobody receives Help mails and whom to ask instead."""
    work, settings, row, parsed = mail.work, mail.settings, mail.row, mail.parsed
    answer = mail.answering
    game, reply = answer.game, answer.reply
    if answer.admission is not Admission.SEND:
        log.info("inbox %s: Help mail from %s not forwarded (reply limit)", row.id, parsed.sender)
        digest = held_help_digest(
            work.session, settings.admins, settings.language, row.id, parsed, mail.now
        )
        return _answer(mail, "help not forwarded", *digest)
    admins = admin_emails(work.session, settings.admins)
    if not admins:
        log.warning(
            "inbox %s: a Help mail from %s but no admin is configured", row.id, parsed.sender
        )
        # The reply is in the game's language but about no game: the error mail's closing
        # words for a game ("try again with WW5 as the subject") would turn a question into a vote.
        language = game.language if game is not None else settings.language
        ruleset = game.ruleset if game is not None else settings.ruleset
        error = _Error(NO_ADMIN, no_admin_text(ruleset, language), language=language)
        letter = _error_reply(work, None, parsed, reply, error, settings)
        return Verdict(Action.ANSWER, "help not forwarded: no admin (player told)", (letter,))
    forward = _help_forward(work, settings, row, parsed, game, admins)
    acknowledgement = _acknowledge_help(settings, row, parsed, game, forward.draft.context, reply)
    what = f"help forwarded to {len(admins)} admin(s)"
    return Verdict(Action.ANSWER, what, (forward, acknowledgement))


def _help_forward(
    work: Work,
    settings: InboxSettings,
    row: Claimed,
    parsed: ParsedMail,
    game: Game | None,
    admins: Sequence[str],
) -> Letter:
    """The Help mail forwarded to every admin (one text), Reply-To the asker."""
    context: dict[str, Any] = {
        "game": None,
        "players": [],
        "recipient": None,
        "sender": parsed.sender,
        "player": parsed.sender_name or None,
        "subject": parsed.raw_subject,
        "body": parsed.full_text or parsed.body,
    }
    if game is None:  # a game of his that has ended: the admins still see which one it was
        game = work.session.scalars(
            select(Game)
            .join(Player, Player.game_id == Game.id)
            .where(Player.email == parsed.sender, Game.status == GameStatus.ENDED.value)
            .order_by(Game.id.desc())
            .limit(1)
        ).first()
    if game is not None:  # the admins see which game it is about, and who he is in it
        table = table_of(work, game)
        context["game"] = table.public()
        context["players"] = table.cast()
        playing = _game_info(table)[1].get(parsed.sender)
        if playing is not None:
            context["player"] = playing.name
    identity = f"help/{row.id}"
    draft = Draft("help_forward", context, identity, language=settings.language)
    to = tuple(Recipient(admin, "", identity) for admin in admins)
    return Letter("help_forward", draft, to, reply_to=Address(parsed.sender, parsed.sender_name))


def _acknowledge_help(
    settings: InboxSettings,
    row: Claimed,
    parsed: ParsedMail,
    game: Game | None,
    forwarded: Mapping[str, Any],
    reply: ReplyTo,
) -> Letter:
    """Tell the sender his Help mail went to the admins (the pack's ``help_received``, in the
    game's language, else the default; none where the language has no such template)."""
    player = forwarded.get("player")
    # The game he asks about has ended (named, or his last one): he is not told how to vote.
    over = forwarded.get("game") is not None and (
        game is None or game.status == GameStatus.ENDED.value
    )
    context = {
        "game": forwarded.get("game"),
        "players": forwarded.get("players") or [],
        "recipient": player,
        "player": player,
        "subject": parsed.raw_subject,
        "over": over,
    }
    identity = f"help-ack/{row.id}"
    draft = Draft(
        "help_received", context, identity, game=game, language=settings.language, optional=True
    )
    to = Recipient(parsed.sender, parsed.sender_name or "", identity)
    return Letter("help_received", draft, (to,), game=game, reply=reply)


# --- the worker -----------------------------------------------------------------------------


def _claim(session: Session, url_is_sqlite: bool, skip: set[int], size: int) -> list[Claimed]:
    """The oldest new rows, up to `size`, but those in `skip` (on PostgreSQL locked, skipping
    rows another daemon holds)."""
    if url_is_sqlite:
        query = _CLAIM_SKIPPING if skip else _CLAIM
    else:
        query = _CLAIM_SKIPPING_LOCKED if skip else _CLAIM_LOCKED
    params: dict[str, Any] = {"size": size, "skip": sorted(skip)} if skip else {"size": size}
    return [Claimed(*row) for row in session.connection().execute(query, params)]


# What every mail's pass runs, built once (Core: the claimed rows are read, not mapped).
_CLAIM = (
    select(inbox.c.id, inbox.c.message_id, inbox.c.envelope_from, inbox.c.raw)
    .where(inbox.c.state == InboxState.NEW.value)
    .order_by(inbox.c.attempts, inbox.c.id)
    .limit(bindparam("size"))
)
_CLAIM_SKIPPING = _CLAIM.where(inbox.c.id.not_in(bindparam("skip", expanding=True)))
_CLAIM_LOCKED = _CLAIM.with_for_update(skip_locked=True)
_CLAIM_SKIPPING_LOCKED = _CLAIM_SKIPPING.with_for_update(skip_locked=True)
_MARK_PROCESSED = (
    update(inbox)
    .where(inbox.c.id == bindparam("row"))
    .values(state=bindparam("new_state"), processed_at=bindparam("at"), error=None)
)
_PLAYS_ANYWHERE = (
    select(players.c.id)
    .join(games_table, games_table.c.id == players.c.game_id)
    .where(players.c.email == bindparam("sender"), games_table.c.status.in_(OPEN_STATUSES))
    .limit(1)
)


# Mails processed in one transaction.  A batch saves a commit per mail and lets the mails of
# one game share its loaded players and rules state (see `game_players`, `load_state`);
# it is kept short because the receivers wait for the write lock meanwhile (SQLite).
BATCH_SIZE = 20

# Mails processed in one pass of :func:`process_pending` at most (the worker then looks again).
PASS_LIMIT = 1000

# PostgreSQL's "deadlock detected" and "could not serialize": two daemons' batches locked the
# same games in another order; nothing is wrong with the mails.
_CONFLICTS = frozenset({"40P01", "40001"})


def process_pending(
    factory: sessionmaker[Session],
    mailer: Mailer,
    settings: InboxSettings,
    clock: Callable[[], datetime],
    *,
    limit: int = PASS_LIMIT,
    batch_size: int = BATCH_SIZE,
) -> list[Outcome]:
    """Process up to `limit` unprocessed inbox rows, in batches of `batch_size` per transaction.

    With a claimant in `settings` (the daemon's sender), the mail a batch queues is queued
    claimed by it, and each outcome carries its mail's items (:attr:`Outcome.queued`), for
    the sender to deliver (:meth:`~narrator.outbound.sender.OutboxSender.hand_over`) with no
    claim of its own; without (the CLI, ``narrator inject``), the mail is due at once for any
    sender.

    When a batch fails, nothing of it is kept, and its mails are processed again one per
    transaction, so that one bad mail costs the others nothing.  A mail whose own processing
    raised is retried on a later pass (not this one), and set aside as ``failed`` after
    :data:`MAX_ATTEMPTS`.  A database failure (locked, restarting, connection lost) is not
    the mail's fault: it costs no attempt, and the whole pass is retried later.
    """
    run = _Pass(factory, mailer, settings, clock, is_sqlite(factory.kw["bind"].url))
    while len(run.outcomes) < limit:
        size = 1 if run.singles else max(1, min(batch_size, limit - len(run.outcomes)))
        claimed: list[int] = []
        try:
            done = run.batch(size, claimed)
        except OperationalError as error:
            if len(claimed) > 1 and getattr(error.orig, "sqlstate", None) in _CONFLICTS:
                log.info("inbox: a batch of %d met another daemon's; one at a time", len(claimed))
                run.singles = len(claimed)
                continue
            raise
        except Exception as error:  # the mail is kept; it is retried, then set aside
            if not claimed:
                raise
            run.failed_batch(claimed, error)
            continue
        if done is None:
            break
        run.singles = max(0, run.singles - len(done))
        for inbox_id, message_id, outcome in done:  # logged once committed
            log.info("inbox %s (%s): %s", inbox_id, message_id, outcome.what)
            run.outcomes.append(outcome)
        if len(done) < size and not run.singles:
            break  # all there was: what came in meanwhile makes the next pass's batch
    return run.outcomes


@dataclass
class _Pass:
    """One pass of :func:`process_pending`: what it needs, the outcomes so far, the mails that
    failed in it (not taken again), and how many mails are still to take one at a time (after
    a failed batch)."""

    factory: sessionmaker[Session]
    mailer: Mailer
    settings: InboxSettings
    clock: Callable[[], datetime]
    sqlite: bool
    outcomes: list[Outcome] = field(default_factory=list)
    failed: set[int] = field(default_factory=set)
    singles: int = 0

    def batch(self, size: int, claimed: list[int]) -> list[tuple[int, str | None, Outcome]] | None:
        """Claim up to `size` mails (their ids into `claimed`) and process them in one
        transaction; None when there was none."""
        claimant = self.settings.claimant
        claim = Claim(claimant) if claimant is not None else None
        with unit_of_work(self.factory, claim) as work:
            rows = _claim(work.session, self.sqlite, self.failed, size)
            if not rows:
                return None
            claimed.extend(row.id for row in rows)
            # The games the mails name are locked (and their players read) together, before
            # the first mail is processed: a few statements per batch, not per mail.
            games = work.open_games()
            names = tuple(g.name for g in games)
            arrivals = [arrival_of(self.settings, row, names) for row in rows]
            named = {a.routed.game for a in arrivals if isinstance(a.routed, Route | Help)}
            work.lock_games(g.id for g in games if g.name in named)
            # The reply counters of the senders who may be answered, read together (on
            # PostgreSQL locked, in one order) at the first count, for the mails to count.
            senders = [arrival.parsed.sender for arrival in arrivals if arrival.answerable]
            work.replies.expect(senders)
            processed = [
                (row, self._process(work, row, arrival))
                for row, arrival in zip(rows, arrivals, strict=True)
            ]
            work.flush()  # the batch's rows written: the claimed mails' items are known
            replan = work.plans_changed()
            done = []
            for row, (outcome, queued) in processed:
                items = outcome.queued
                if claim is not None and queued[0] < queued[1]:
                    items = tuple(claim.items[slice(*queued)])
                if items is not outcome.queued or (replan and not outcome.replan):
                    # (made anew, not by `dataclasses.replace`: see process_message)
                    outcome = Outcome(
                        outcome.state,
                        outcome.what,
                        rule=outcome.rule,
                        hits=outcome.hits,
                        replan=replan or outcome.replan,
                        queued=items,
                    )
                done.append((row.id, row.message_id, outcome))
            return done

    def _process(
        self, work: Work, row: Claimed, arrival: Arrival
    ) -> tuple[Outcome, tuple[int, int]]:
        """Process one mail of the batch; its outcome, and which of the batch's queued mails
        are its (the first and the end: its outcome carries their claimed items once they are
        written)."""
        before = work.outgoing.queued
        outcome = process_message(work, self.mailer, self.settings, row, self.clock(), arrival)
        return outcome, (before, work.outgoing.queued)

    def failed_batch(self, claimed: list[int], error: Exception) -> None:
        """The batch of `claimed` mails raised `error`: take them one at a time; a single
        mail's failure is recorded (retried on a later pass, then set aside)."""
        if len(claimed) > 1:
            log.warning(
                "inbox: a batch of %d mails failed (%s: %s); taking them one at a time",
                len(claimed),
                type(error).__name__,
                error,
            )
            self.singles = len(claimed)
            return
        self.singles = max(0, self.singles - 1)
        log.exception("inbox %s: processing failed", claimed[0])
        self.failed.add(claimed[0])
        self.outcomes.append(_record_failure(self.factory, claimed[0], error, self.clock()))


def _passes_first_rules(
    settings: InboxSettings, row: Claimed, parsed: ParsedMail, routed: Routed
) -> bool:
    """Whether the inbox chain's rules before ``unauthenticated`` let the mail through: it is
    not automatic, no bounce, not our own, and its sender is a usable address (none of which
    depends on the open games it is routed among)."""
    sender = parsed.sender
    return (
        not isinstance(routed, Ignore)
        and row.envelope_from != ""
        and bool(sender)
        and not settings.is_own(sender)
        and _is_usable_address(sender)
    )


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
