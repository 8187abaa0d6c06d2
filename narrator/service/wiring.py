"""Building the game service's parts from the configuration (shared by the daemon and the CLI)."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

from sqlalchemy.orm import Session, sessionmaker

from narrator.config import Config, ConfigError
from narrator.db import transaction
from narrator.outbound.outbox import outbox_sender
from narrator.outbound.sender import PassReport
from narrator.outbound.transport import MaildirTransport
from narrator.service.authenticity import reply_addresses_from_config, sender_auth_from_config
from narrator.service.inbox import InboxSettings
from narrator.service.limits import limits_from_config
from narrator.service.mailer import Mailer, page_links_from_config
from rules.core.registry import ruleset_ids
from stories import FileStore
from stories.words import languages_of


def utc_now() -> datetime:
    """The wall clock in UTC (the one clock the daemon and the CLI pass in)."""
    return datetime.now(UTC)


def inbox_settings(config: Config) -> InboxSettings:
    """What processing inbound mail needs from the configuration."""
    return InboxSettings(
        address=config.narrator.address,
        language=config.narrator.language,
        ruleset=config.narrator.ruleset,
        admins=tuple(config.admins.emails),
        limits=limits_from_config(config),
        sender_auth=sender_auth_from_config(config),
    )


def check_story_defaults(config: Config) -> None:
    """Refuse a ``[narrator]`` ruleset and language without a story pack between them: mail that
    names no game is answered in that language with that ruleset's words and templates.

    Raises ConfigError naming the languages the ruleset has (or the rulesets there are)."""
    ruleset, language = config.narrator.ruleset, config.narrator.language
    label = str(config.path) if config.path else "built-in defaults"
    if ruleset not in ruleset_ids():
        raise ConfigError(
            f"{label}: 'narrator.ruleset' is \"{ruleset}\", which is no ruleset: choose one of "
            + ", ".join(ruleset_ids())
        )
    languages = languages_of(ruleset)
    if language not in languages:
        raise ConfigError(
            f'{label}: \'narrator.language\' is "{language}", but the ruleset "{ruleset}" '
            f"('narrator.ruleset') has story packs in {', '.join(languages)} only; mail that "
            "names no game is answered in that language with that ruleset's stories: choose "
            "one of those languages, or a ruleset that has a pack in yours"
        )


def make_mailer(config: Config, factory: sessionmaker[Session]) -> Mailer:
    """A mailer rendering from the stories table (loaded now) over the shipped packs."""
    mailer = Mailer(
        FileStore(),
        config.narrator.address,
        reply_addresses=reply_addresses_from_config(config),
        pages=page_links_from_config(config),
        default_ruleset=config.narrator.ruleset,
        default_theme=config.narrator.theme,
        default_language=config.narrator.language,
    )
    with transaction(factory) as session:
        mailer.reload(session)
    return mailer


def flush_maildir(config: Config, factory: sessionmaker[Session]) -> PassReport | None:
    """Write the due outbox mail to the Maildir at once (dev mode only; None in SMTP mode).

    Lets `narrator inject` and the CLI deliver what they queued without a running daemon; a
    daemon running beside them is safe, since outbox rows are claimed before they are sent.
    """
    if config.outbound.mode != "maildir":
        return None
    sender = outbox_sender(
        config,
        factory,
        clock=utc_now,
        rng=random.Random(),
        transport=MaildirTransport(config.outbound.maildir),
    )
    sent = failed = 0
    for _ in range(10_000):  # bounded: each pass takes up to a batch of due mail
        report = asyncio.run(sender.run_once())
        sent += report.sent
        failed += report.failed
        if report.sent + report.failed == 0:
            break
    return PassReport(claimed=sent + failed, sent=sent, failed=failed)
