"""The answer to a Help mail that no admin can receive (the story packs' `error` mail shows it).

A Help mail is forwarded to the admins (:func:`narrator.service.inbox.process_message`); when
the narrator has none, the player is told so instead of hearing nothing, and where else to ask.
"""

from __future__ import annotations

from stories.lexicon import explainer_for

NO_ADMIN = "no-admin"


def no_admin_text(ruleset: str, language: str) -> str:
    """Why a Help mail was not forwarded and what to do instead, worded by the story pack of
    `ruleset` in `language` (its words.toml ``[errors]``, code ``no-admin``)."""
    return explainer_for(ruleset, language)(NO_ADMIN, {})
