"""Notices to the admins about mail the narrator could not deliver (never about the notices)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from narrator.models import Game, OutboxMessage, admin_emails
from narrator.outbound.compose import Address, OutgoingMail, domain_of, make_message_id
from narrator.outbound.outbox import queue_mail
from narrator.outbound.sender import FailedMail

log = logging.getLogger("narrator.notices")

ADMIN_NOTICE = "admin_notice"


def notify_admins_of_failure(
    session: Session,
    failed: FailedMail,
    *,
    address: str,
    configured_admins: Sequence[str],
    now: datetime,
) -> list[str]:
    """Queue one notice per admin that a mail will not be delivered; return the admins told.

    Nothing is sent about a failed notice itself, nor to the address that refused the mail,
    so an admin address that bounces cannot start a loop.  The notice's Message-ID is derived
    from the failed mail's, so reporting the same failure twice queues nothing new.
    """
    if failed.kind == ADMIN_NOTICE:
        return []
    game = session.get(Game, failed.game_id) if failed.game_id is not None else None
    why = "the server refused it" if failed.permanent else "every retry failed"
    text = (
        f"The narrator gave up delivering a mail ({why}).\n\n"
        f"To:          {failed.recipient}\n"
        f"Kind:        {failed.kind}\n"
        f"Game:        {game.name if game is not None else '-'}\n"
        f"Message-ID:  {failed.message_id}\n"
        f"Attempts:    {failed.attempts}\n"
        f"Last error:  {failed.error}\n\n"
        "The player did not get this mail. Check the address (narrator game show), and if the\n"
        "player is gone, consider `narrator game unsubscribe`.\n"
    )
    told = []
    for admin in admin_emails(session, tuple(configured_admins)):
        if admin == failed.recipient.lower():
            continue
        message_id = make_message_id(domain_of(address), f"notice/{failed.message_id}/{admin}")
        exists = session.scalar(
            select(OutboxMessage.id).where(OutboxMessage.message_id == message_id)
        )
        if exists is not None:
            continue
        mail = OutgoingMail(
            sender=Address(address, "Verteller"),
            to=Address(admin),
            subject=f"Undelivered mail to {failed.recipient}",
            text=text,
        )
        queue_mail(
            session,
            mail,
            now=now,
            kind=ADMIN_NOTICE,
            game_id=failed.game_id,
            message_id=message_id,
        )
        told.append(admin)
    if not told:
        log.warning(
            "mail %s to %s failed and no admin could be told", failed.message_id, failed.recipient
        )
    return told
