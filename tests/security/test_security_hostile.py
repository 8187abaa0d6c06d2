"""Hostile input through the whole pipeline: sizes, nesting, names, header injection, templates."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from narrator.db import transaction
from narrator.models import Game, Player, Story
from narrator.service.limits import Limits
from parsing.interpret import MAX_NAME_LENGTH
from tests.security.security_support import (
    ALLOWED_HEADERS,
    NARRATOR,
    Narrator,
    mail,
    players,
)


def _players_of(narrator: Narrator, game: str) -> list[str]:
    with transaction(narrator.factory) as session:
        return list(
            session.scalars(
                select(Player.name).join(Game).where(Game.name == game).order_by(Player.seat)
            )
        )


def test_a_too_large_mail_is_refused_unread(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(max_message_bytes=50_000))
    narrator.add_game("WW5")
    big = "Zora, vrouw\n" + "x" * 60_000
    outcome = narrator.receive(mail("zora@example.net", "WW5", big))
    assert outcome.what == "error: too-large"
    assert _players_of(narrator, "WW5") == []  # the body was never read
    (reply,) = narrator.outbox()
    assert reply.recipient == "zora@example.net" and "te groot" in reply.text
    assert "kB" in reply.text
    # Just under the limit is read as usual.
    outcome = narrator.receive(mail("zora@example.net", "WW5", "Zora, vrouw\n" + "x" * 40_000))
    assert outcome.what == "signup: Zora"
    # A too-large bounce or auto-reply is still never answered.
    auto = mail("a@example.net", "WW5", big, headers=[("Auto-Submitted", "auto-replied")])
    assert narrator.receive(auto).state == "ignored"


def _nested(depth: int) -> bytes:
    head = "From: deep@example.net\r\nTo: verteller@example.org\r\nSubject: WW5\r\n"
    head += f"Message-ID: <deep{depth}@example.net>\r\nMIME-Version: 1.0\r\n"
    body = "Zora, vrouw\r\n"
    for level in range(depth):
        body = (
            f'Content-Type: multipart/mixed; boundary="b{level}"\r\n\r\n'
            f"--b{level}\r\n{body}\r\n--b{level}--\r\n"
        )
    return (head + body).encode()


def test_absurd_mime_nesting_and_header_counts_get_one_short_refusal(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    assert narrator.receive(_nested(60)).what == "error: too-complex (mime-too-deep)"
    junk = "".join(f"X-Junk-{i}: x\r\n" for i in range(600))
    raw = mail("many@example.net", "WW5", "Zora, vrouw").replace(
        b"MIME-Version", junk.encode() + b"MIME-Version"
    )
    outcome = narrator.receive(raw)
    assert outcome.what == "error: too-complex (too-many-headers)"
    parts = "".join("--b\r\nContent-Type: text/plain\r\n\r\nZora, vrouw\r\n" for _ in range(250))
    raw = mail("parts@example.net", "WW5", parts + "--b--").replace(
        b"text/plain; charset=utf-8", b'multipart/mixed; boundary="b"'
    )
    assert narrator.receive(raw).what == "error: too-complex (too-many-parts)"
    sent = narrator.outbox()
    assert [(m.recipient, m.kind) for m in sent] == [
        ("deep@example.net", "error"),
        ("many@example.net", "error"),
        ("parts@example.net", "error"),
    ]
    assert all("ingewikkeld" in m.text and "Zora" not in m.text for m in sent)
    assert _players_of(narrator, "WW5") == []
    # Within the reply limits: a stranger flooding hostile mail gets the hour's answers.
    for n in range(25):
        narrator.receive(_nested(60).replace(b"<deep60@", f"<deep60-{n}@".encode()))
    assert len([m for m in narrator.outbox() if m.recipient == "deep@example.net"]) == 20 + 1
    # Ordinary nesting (a few levels) is a player's mail like any other.
    nested = _nested(3).replace(b"deep@example.net", b"zora@example.net")
    assert narrator.receive(nested).what == "signup: Zora"


def test_names_are_letters_of_bounded_length(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    long_name = "A" + "b" * (MAX_NAME_LENGTH - 1)
    outcome = narrator.receive(mail("long@example.net", "WW5", f"{long_name}b, man"))
    assert outcome.what == "error: bad-name"
    assert narrator.receive(mail("long@example.net", "WW5", f"{long_name}, man")).state == "done"
    assert _players_of(narrator, "WW5") == [long_name]


@pytest.mark.parametrize(
    "body",
    [
        "Robert'); DROP TABLE players;--, man",
        "x' OR '1'='1, man",
        'Anna"; DELETE FROM games; --, vrouw',
        "Bobby, man'; UPDATE players SET email='evil'--",
    ],
)
def test_sql_looking_signups_are_refused_and_harmless(narrator: Narrator, body: str) -> None:
    narrator.add_game("WW5")
    narrator.sign_up("WW5", players(2))
    outcome = narrator.receive(mail("bobby@example.net", "WW5; DROP TABLE games;--", body))
    assert outcome.state == "done" and outcome.what.startswith("error: bad-")
    assert _players_of(narrator, "WW5") == ["Anna", "Bram"]
    with transaction(narrator.factory) as session:
        assert session.scalar(select(func.count(Game.id))) == 1
        assert all("@example.net" in e for e in session.scalars(select(Player.email)))


def test_sql_keywords_are_just_names(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [("Select", "s@example.net"), ("Drop", "d@example.net")])
    narrator.sign_up("WW5", [("Null", "n@example.net")])
    assert _players_of(narrator, "WW5") == ["Select", "Drop", "Null"]


def test_players_per_game_and_games_per_address(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(max_players_per_game=3, max_games_per_address=2))
    for name in ("WW5", "WW6", "WW7"):
        narrator.add_game(name)
    narrator.sign_up("WW5", players(3))
    outcome = narrator.receive(mail("dirk@example.net", "WW5", "Dirk, man"))
    assert outcome.what == "error: game-full"
    assert "zit vol" in narrator.outbox()[-1].text
    # A player of a full game may still change his name.
    assert narrator.receive(mail("anna@example.net", "WW5", "Annie, vrouw")).what == "signup: Annie"
    narrator.sign_up("WW6", [("Anna", "anna@example.net")])
    outcome = narrator.receive(mail("anna@example.net", "WW7", "Anna, vrouw"))
    assert outcome.what == "error: too-many-games"
    assert _players_of(narrator, "WW7") == []


INJECTIONS = [
    # Encoded words that decode to CR/LF and a new header.
    "=?utf-8?q?Eve=0D=0ABcc:_victim@evil.example?=",
    "=?utf-8?b?RXZlDQpCY2M6IHZpY3RpbUBldmlsLmV4YW1wbGU=?=",
    # Unicode line separators and a NUL.
    "=?utf-8?b?RXZl4oCoQmNjOiB2aWN0aW1AZXZpbC5leGFtcGxl?=",
    "=?utf-8?q?Eve=00Bcc:_victim@evil.example?=",
    # Text that looks like an encoded word once decoded.
    "=?utf-8?q?=3D=3Futf-8=3Fq=3FX=0AY=3F=3D?=",
]


@pytest.mark.parametrize("quoted", [True, False])
@pytest.mark.parametrize("name", INJECTIONS)
@pytest.mark.parametrize("subject", ["Help", "Geen spel", "WW5"])
def test_header_injection_through_names_never_reaches_a_header(
    narrator: Narrator, name: str, subject: str, quoted: bool
) -> None:
    narrator.add_game("WW5")
    display = f'"{name}"' if quoted else name
    raw = (
        f"From: {display} <eve@example.net>\r\nTo: {NARRATOR}\r\nSubject: {subject}\r\n"
        f"Message-ID: <inj@example.net>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        "hoi\r\n"
    ).encode()
    outcome = narrator.receive(raw)
    sent = narrator.outbox()
    if not quoted and outcome.state == "ignored":
        # Unquoted, the ':' and '@' make the From field unreadable as an address: no answer.
        assert outcome.what == "ignored: unusable-sender" and sent == []
        return
    assert outcome.state == "done", outcome
    # One answer, and for a Help mail also the forward to the admin (the answer is then the
    # acknowledgement to the sender): every header still holds one address.
    assert len(sent) == (2 if subject == "Help" else 1)
    for mail_out in sent:
        assert mail_out.header_names <= ALLOWED_HEADERS, mail_out.header_names
        for header in ("To", "Reply-To"):
            value = mail_out.message[header]
            if value is not None:
                assert len(value.addresses) == 1
                assert value.addresses[0].addr_spec in ("eve@example.net", "beheer@example.org")


def test_unusable_sender_addresses_are_ignored(narrator: Narrator) -> None:
    for sender in ("évil@exämple.org", "a" * 300 + "@example.net", "eve@"):
        raw = (
            f"From: <{sender}>\r\nTo: {NARRATOR}\r\nSubject: Help\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n\r\nhoi\r\n"
        ).encode()
        outcome = narrator.receive(raw)
        assert outcome.state == "ignored", outcome
    assert narrator.outbox() == []


SANDBOX_ESCAPES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.system('touch PWNED') }}",
    "{{ self._TemplateReference__context }}",
    "{% for c in [].__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
    "{{ lipsum.__globals__['os'].popen('id').read() }}",
]


@pytest.mark.parametrize("escape", SANDBOX_ESCAPES)
def test_a_sandbox_escape_stored_as_a_story_does_not_execute(
    narrator: Narrator, escape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    narrator.add_game("WW5")
    source = (
        "{% block subject %}Welkom{% endblock %}{% block body %}Hallo " + escape + "{% endblock %}"
    )
    with transaction(narrator.factory) as session:
        session.add(
            Story(
                ruleset="wakkerdam",
                language="nl",
                theme="wakkerdam",
                event="signup_confirmed",
                variant=1,
                source=source,
            )
        )
    with transaction(narrator.factory) as session:
        narrator.mailer.reload(session)
    narrator.deliver(mail("zora@example.net", "WW5", "Zora, vrouw"))
    for _ in range(10):  # retried, then set aside: never executed, never lost
        narrator.process()
    assert not (tmp_path / "PWNED").exists()
    # The broken stored story is passed over for the shipped one: the player is answered.
    assert narrator.inbox_states() == [("done", None)]
    (sent,) = narrator.outbox()
    assert sent.kind == "signup_confirmed" and "Zora" in sent.text
    assert "<class" not in sent.text and "uid=" not in sent.text and "__" not in sent.text
