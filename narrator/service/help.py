"""Help mails that are not forwarded: the answer when no admin can receive one (the story packs'
`error` mail shows it), and the admins' digest of a player's Help flood.

A Help mail is forwarded to the admins (:func:`narrator.service.inbox.process_message`); when
the narrator has none, the player is told so instead of hearing nothing, and where else to ask.
A player's Help mails beyond the forwards allowed an hour are held; the first one held in a clock
hour makes the admins one ``help_digest`` mail, so no Help is held without their knowing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from narrator.models import admin_emails
from narrator.outbound.compose import Address
from narrator.service.letters import Draft, Letter, Recipient
from narrator.service.limits import count_help_held
from parsing import ParsedMail
from stories.lexicon import explainer_for

log = logging.getLogger("narrator.help")

NO_ADMIN = "no-admin"


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
    forwarded and listing the held ones' subjects; later ones that hour make none.  Nothing for
    anybody else's Help over his reply limit."""
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
    admins = admin_emails(session, tuple(configured_admins))
    if held != 1 or not admins:
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
    }
    identity = f"help-digest/{inbox_id}"
    draft = Draft("help_digest", context, identity, language=language, optional=True)
    to = tuple(Recipient(admin, "", identity) for admin in admins)
    reply_to = Address(parsed.sender, parsed.sender_name)
    return [Letter("help_digest", draft, to, reply_to=reply_to)]
