"""Help mails that are not forwarded: the answer when no admin can receive one (the story packs'
`error` mail shows it), and the admins' digest of a player's Help flood.

A Help mail is forwarded to the admins (:func:`narrator.service.inbox.process_message`); when
the narrator has none, the player is told so instead of hearing nothing, and where else to ask.
A player's Help mails beyond the forwards allowed an hour are held.  The first one held in a
clock hour makes the admins one ``help_digest`` mail at once (they learn of the flood); the others
are kept (``held_help``) until the hour is over, when one closing ``help_digest`` per flooding
player lists them all (:func:`send_closing_digests`, run by the daemon's scheduler).  So no Help
is held without the admins' knowing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import groupby
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from narrator.models import HeldHelp, OutboxMessage, admin_emails
from narrator.outbound.compose import Address, make_message_id
from narrator.service.letters import Draft, Letter, Recipient, post
from narrator.service.limits import HELP_FORWARDS_PER_HOUR, count_help_held, limit_key
from narrator.service.mailer import Mailer
from parsing import ParsedMail
from stories.lexicon import explainer_for

log = logging.getLogger("narrator.help")

NO_ADMIN = "no-admin"
#: When an hour's held Help is summed up: the hour, and a minute for a mail that was being
#: processed as the hour ended (its transaction may commit just after).
CLOSING_DELAY = timedelta(hours=1, minutes=1)


def no_admin_text(ruleset: str, language: str) -> str:
    """Why a Help mail was not forwarded and what to do instead, worded by the story pack of
    `ruleset` in `language` (its words.toml ``[errors]``, code ``no-admin``)."""
    return explainer_for(ruleset, language)(NO_ADMIN, {})


def held_help_digest(
    session: Session,
    configured_admins: Sequence[str],
    language: str,
    inbox_id: int,
    parsed: ParsedMail,
    now: datetime,
) -> list[Letter]:
    """The letters for a Help mail of `parsed.sender` that is not forwarded: when it is a
    player's flood (see :func:`~narrator.service.limits.count_help_held`), the hour's first held
    Help makes one ``help_digest`` to every admin (Reply-To the player) telling how many were
    forwarded and listing its subject; a later one that hour makes none but is kept (a
    :class:`~narrator.models.HeldHelp` row) for the hour's closing digest
    (:func:`send_closing_digests`).  Nothing for anybody else's Help over his reply limit."""
    counted = count_help_held(session, parsed.sender, now)
    if counted is None:
        return []
    forwarded, held = counted
    log.info(
        "inbox %s: Help mail %d this hour from %s held (a flood: %d forwarded)",
        inbox_id,
        held,
        parsed.sender,
        forwarded,
    )
    if held > 1:  # for the closing digest (the admins heard of the first one at once)
        session.add(
            HeldHelp(
                sender=limit_key(parsed.sender)[:200],
                window_start=now.replace(minute=0, second=0, microsecond=0),
                address=parsed.sender,
                name=parsed.sender_name or "",
                subject=parsed.raw_subject,
                language=language,
            )
        )
        return []
    admins = admin_emails(session, tuple(configured_admins))
    if not admins:
        return []
    context: dict[str, Any] = {
        "game": None,
        "players": [],
        "recipient": None,
        "sender": parsed.sender,
        "player": parsed.sender_name or None,
        "forwarded": forwarded,
        "held": held,
        "subjects": [parsed.raw_subject],
        "closing": False,
        "hour": None,
    }
    identity = f"help-digest/{inbox_id}"
    draft = Draft("help_digest", context, identity, language=language, optional=True)
    to = tuple(Recipient(admin, "", identity) for admin in admins)
    reply_to = Address(parsed.sender, parsed.sender_name)
    return [Letter("help_digest", draft, to, reply_to=reply_to)]


def next_closing_digest(session: Session) -> datetime | None:
    """When the next closing digest is due (:data:`CLOSING_DELAY` after the start of the oldest
    hour with held Help); None when no Help is held."""
    oldest = session.scalar(select(func.min(HeldHelp.window_start)))
    return oldest + CLOSING_DELAY if oldest is not None else None


def send_closing_digests(
    session: Session, mailer: Mailer, configured_admins: Sequence[str], now: datetime
) -> int:
    """Queue the closing digest of every player's Help flood whose hour ended (by `now`, with
    :data:`CLOSING_DELAY`), in `session`'s transaction; return how many floods were summed up.

    One ``help_digest`` (``closing``) per player and hour to every admin, Reply-To the player,
    in the language of the held mails: how many he sent that hour beyond the forwards, and
    every held subject the first digest did not list.  The held rows are deleted in the same
    transaction, and the digest's Message-ID is derived from the player and the hour: a rerun
    (after a crash, or by a second daemon) finds nothing left to send, and never sends one twice.
    """
    rows = session.scalars(
        select(HeldHelp)
        .where(HeldHelp.window_start <= now - CLOSING_DELAY)
        .order_by(HeldHelp.window_start, HeldHelp.sender, HeldHelp.id)
        .with_for_update(skip_locked=True)  # two daemons: each flood is summed up by one
    ).all()
    if not rows:
        return 0
    admins = admin_emails(session, tuple(configured_admins))
    letters: list[Letter] = []
    for (sender, hour), group in groupby(rows, key=lambda row: (row.sender, row.window_start)):
        held = list(group)
        identity = f"help-digest/{sender}/{hour.isoformat()}"
        if not admins:
            log.warning(
                "%d Help mail(s) of %s held in the hour from %s: no admin to tell",
                len(held),
                sender,
                hour.isoformat(),
            )
            continue
        first = make_message_id(mailer.domain, f"{identity}/{admins[0]}")
        if session.scalar(select(OutboxMessage.id).where(OutboxMessage.message_id == first)):
            log.warning(  # a mail processed as the hour ended, committed after the digest
                "closing digest of %s's Help flood in the hour from %s already sent; %d held "
                "Help mail(s) not listed",
                sender,
                hour.isoformat(),
                len(held),
            )
            continue
        letters.append(_closing_digest(held, hour, identity, admins))
        log.info(
            "closing digest of %s's Help flood in the hour from %s: %d more held",
            sender,
            hour.isoformat(),
            len(held),
        )
    session.execute(delete(HeldHelp).where(HeldHelp.id.in_([row.id for row in rows])))
    post(session, mailer, letters, now)
    return len(letters)


def _closing_digest(
    held: Sequence[HeldHelp], hour: datetime, identity: str, admins: Sequence[str]
) -> Letter:
    """The closing ``help_digest`` listing `held` (one player's, one hour's) to `admins`."""
    last = held[-1]
    name = next((row.name for row in reversed(held) if row.name), "")
    context: dict[str, Any] = {
        "game": None,
        "players": [],
        "recipient": None,
        "sender": last.address,
        "player": name or None,
        "forwarded": HELP_FORWARDS_PER_HOUR,
        "held": len(held) + 1,  # and the first, told at once
        "subjects": [row.subject for row in held],
        "closing": True,
        "hour": hour.strftime("%Y-%m-%d %H:%M UTC"),
    }
    draft = Draft("help_digest", context, identity, language=last.language, optional=True)
    to = tuple(Recipient(admin, "", identity) for admin in admins)
    return Letter("help_digest", draft, to, reply_to=Address(last.address, name))
