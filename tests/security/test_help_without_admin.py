"""A Help mail on a narrator without admins: the player is told so, politely, in his language."""

from __future__ import annotations

import logging
from collections.abc import Callable
from email.utils import parseaddr

import pytest

from narrator.service.limits import NOTICE_KIND, Limits
from tests.security.conftest import ADMIN
from tests.security.security_support import Narrator, mail

NO_ADMIN_OUTCOME = "help not forwarded: no admin (player told)"
WARNING = "a Help mail from {} but no admin is configured"


def test_without_admin_the_player_is_told_in_dutch_by_default(
    make_narrator: Callable[..., Narrator], caplog: pytest.LogCaptureFixture
) -> None:
    narrator = make_narrator(admins=())
    raw = mail("vrager@example.net", "Help", "Hoe werkt dit?", message_id="<vraag-1@example.net>")
    with caplog.at_level(logging.WARNING, logger="narrator.inbox"):
        outcome = narrator.receive(raw)
    assert outcome.what == NO_ADMIN_OUTCOME
    assert WARNING.format("vrager@example.net") in caplog.text
    (reply,) = narrator.outbox()
    assert (reply.recipient, reply.kind) == ("vrager@example.net", "error")
    assert reply.message["In-Reply-To"] == "<vraag-1@example.net>"
    assert "geen beheerder" in reply.text
    assert "degene die het spel organiseert" in reply.text
    assert "als onderwerp Help" not in reply.text  # never "Questions? Send Help": it failed
    assert str(reply.message["Subject"]) == "Re: Help"  # it answers his mail (issue 12)


def test_without_admin_an_english_game_answers_in_english(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(admins=())  # the default language stays Dutch
    narrator.add_game("WW7", language="en")
    narrator.sign_up("WW7", [("Anna", "anna@example.net")])
    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail("anna@example.net", "Help WW7", "How do I vote?"))
    assert outcome.what == NO_ADMIN_OUTCOME
    (reply,) = narrator.outbox(after=before)
    assert reply.recipient == "anna@example.net"
    assert "no administrator configured" in reply.text
    assert "whoever runs the game" in reply.text
    assert "subject Help" not in reply.text
    # About no game: the error mail's "try again with WW7 as the subject" would make the
    # player's next question a vote.
    assert "WW7" not in reply.text and str(reply.message["Subject"]) == "Re: Help WW7"


def test_without_admin_the_configured_language_is_used_without_a_game(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(admins=(), language="en")
    narrator.add_game("WW5", language="nl")  # not named in the mail
    assert narrator.receive(mail("asker@example.net", "Help", "?")).what == NO_ADMIN_OUTCOME
    (reply,) = narrator.outbox()
    assert "no administrator configured" in reply.text


def test_without_admin_the_answers_obey_the_reply_limit(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(admins=(), limits=Limits(replies_per_hour=2, replies_per_day=0))
    outcomes = [narrator.receive(mail("asker@example.net", "Help", "Vraagje")) for _ in range(5)]
    assert [o.what for o in outcomes[:2]] == [NO_ADMIN_OUTCOME] * 2
    assert all("over the reply limit" in o.what for o in outcomes[2:])
    assert [(m.kind, m.recipient) for m in narrator.outbox()] == [
        ("error", "asker@example.net"),
        ("error", "asker@example.net"),
        (NOTICE_KIND, "asker@example.net"),
    ]


def test_with_an_admin_the_help_mail_is_forwarded_and_acknowledged(
    make_narrator: Callable[..., Narrator], caplog: pytest.LogCaptureFixture
) -> None:
    narrator = make_narrator()  # one configured admin
    narrator.add_game("WW7", language="en")
    with caplog.at_level(logging.WARNING, logger="narrator.inbox"):
        outcome = narrator.receive(mail("asker@example.net", "Help WW7", "Hoe werkt dit?"))
    assert outcome.what == "help forwarded to 1 admin(s)"
    assert "no admin is configured" not in caplog.text
    forward, thanks = narrator.outbox()
    assert (forward.kind, forward.recipient) == ("help_forward", ADMIN)
    assert forward.message["Reply-To"] == "asker@example.net"
    assert "Hoe werkt dit?" in forward.text
    # The sender is told his question went on, in the game's language, as an answer to it.
    assert (thanks.kind, thanks.recipient) == ("help_received", "asker@example.net")
    assert "passed your question" in thanks.text
    assert thanks.message["Subject"] == "Re: Help WW7"


def test_a_help_mail_about_a_game_tells_the_admins_the_game_and_the_player(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator()  # with the admin
    narrator.add_game("WW5")
    cast = [("Anna", "anna@example.net"), ("Bram", "bram@example.net"), ("Carla", "c@example.net")]
    narrator.sign_up("WW5", cast)
    before = narrator.last_outbox_id()
    # While signing up: the game is named, the player is who he signed up as.
    raw = mail("anna@example.net", "Help WW5", "Wanneer begint het?", name="A. de Vries")
    assert narrator.receive(raw).what == "help forwarded to 1 admin(s)"
    (forward,) = [m for m in narrator.outbox(after=before) if m.kind == "help_forward"]
    assert forward.recipient == ADMIN
    assert "(WW5)" in str(forward.message["Subject"])
    assert "Speler: Anna" in forward.text and "Spel: WW5" in forward.text
    assert parseaddr(forward.message["Reply-To"]) == ("A. de Vries", "anna@example.net")
    # Once it runs, and from somebody who does not play in it.
    narrator.start("WW5")
    before = narrator.last_outbox_id()
    assert narrator.receive(mail("x@example.net", "help ww5", "Mag ik meedoen?")).what.startswith(
        "help forwarded"
    )
    (forward,) = [m for m in narrator.outbox(after=before) if m.kind == "help_forward"]
    assert "Spel: WW5" in forward.text and "Speler: onbekend" in forward.text
    # A Help mail about no game says so.
    before = narrator.last_outbox_id()
    narrator.receive(mail("anna@example.net", "Help", "Algemene vraag"))
    (forward,) = [m for m in narrator.outbox(after=before) if m.kind == "help_forward"]
    assert "Spel: geen" in forward.text and "(WW5)" not in str(forward.message["Subject"])
