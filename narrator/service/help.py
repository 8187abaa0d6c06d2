"""The answer to a Help mail that no admin can receive (the story packs' `error` mail shows it).

A Help mail is forwarded to the admins (:func:`narrator.service.inbox.process_message`); when
the narrator has none, the player is told so instead of hearing nothing, and where else to ask.
"""

from __future__ import annotations

NO_ADMIN = "no-admin"

_TEXTS: dict[str, str] = {
    "nl": (
        "Je vraag om hulp kon niet worden doorgestuurd: voor deze Verteller is geen beheerder "
        "ingesteld, dus er is niemand die Help-mails ontvangt. Stel je vraag rechtstreeks aan "
        "degene die het spel organiseert (bijvoorbeeld via de uitnodiging of de groep waar je "
        "het spel vond). Excuses voor het ongemak."
    ),
    "en": (
        "Your request for help could not be forwarded: this Narrator has no administrator "
        "configured, so nobody receives Help mails. Please ask your question directly to "
        "whoever runs the game (for example through the invitation or the group where you "
        "found the game). Sorry for the inconvenience."
    ),
}


def no_admin_text(language: str) -> str:
    """Why a Help mail was not forwarded and what to do instead, in `language` (else Dutch)."""
    return _TEXTS.get(language, _TEXTS["nl"])
