"""SMTP transport against a real aiosmtpd server on loopback, and the Maildir transport."""

from __future__ import annotations

import mailbox
import shutil
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from narrator.config import ConfigError, OutboundSection, SmtpSubmissionSection
from narrator.outbound.compose import Address, OutgoingMail, compose, make_message_id
from narrator.outbound.transport import (
    Delivery,
    MaildirTransport,
    PermanentFailure,
    ServerUnavailable,
    SmtpSettings,
    SmtpTransport,
    TemporaryFailure,
    maildir_name,
    transport_from_config,
)
from tests.outbound.helpers import PASSWORD, USERNAME, Certificate, SmtpServer
from tests.support.aio import run_async
from tests.support.net import free_port

SENDER = "verteller@example.org"
# aiosmtpd warns when AUTH is offered on a plain connection; these tests do that on purpose.
AUTH_WITHOUT_TLS = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


def raw_mail(key: str = "1", to: str = "anna@example.org") -> bytes:
    mail = OutgoingMail(
        sender=Address(SENDER, "De Verteller"),
        to=Address(to, "Anna"),
        subject="WW5: ronde één",
        text="Hallo Anna,\n.\nEen regel met alleen een punt hierboven.\n",
        html="<p>Hallo</p>",
    )
    return compose(
        mail,
        message_id=make_message_id("example.org", key),
        date=datetime(2026, 11, 18, 9, tzinfo=UTC),
    )


def settings_for(server: SmtpServer, **changes: object) -> SmtpSettings:
    fields: dict[str, object] = {
        "host": server.host,
        "port": server.port,
        "starttls": False,
        "timeout": 5.0,
    }
    fields.update(changes)
    return SmtpSettings(**fields)  # type: ignore[arg-type]


async def send_all(
    settings: SmtpSettings, mails: list[tuple[str, bytes]]
) -> list[Exception | None]:
    """Send each (recipient, raw) over one transport; the outcome of each."""
    transport = SmtpTransport(settings)
    outcomes: list[Exception | None] = []
    try:
        for recipient, raw in mails:
            try:
                await transport.send(SENDER, recipient, raw)
                outcomes.append(None)
            except (TemporaryFailure, PermanentFailure) as error:
                outcomes.append(error)
    finally:
        await transport.close()
    return outcomes


# -- SMTP ----------------------------------------------------------------------------------------


def test_a_mail_is_submitted_byte_for_byte(smtp_server: SmtpServer) -> None:
    raw = raw_mail()
    assert run_async(send_all(settings_for(smtp_server), [("anna@example.org", raw)])) == [None]
    (received,) = smtp_server.handler.received
    assert received.mail_from == SENDER
    assert received.rcpt_tos == ("anna@example.org",)
    assert received.raw == raw  # dot-stuffing undone, CRLF kept


def test_one_connection_is_reused_for_many_mails(smtp_server: SmtpServer) -> None:
    mails = [(f"p{n}@example.org", raw_mail(str(n))) for n in range(5)]
    before = smtp_server.handler.ehlo_calls
    assert run_async(send_all(settings_for(smtp_server), mails)) == [None] * 5
    assert len(smtp_server.handler.received) == 5
    assert smtp_server.handler.ehlo_calls - before == 1


def test_4xx_on_data_is_temporary_and_the_next_try_succeeds(smtp_server: SmtpServer) -> None:
    smtp_server.handler.data_replies.append("451 4.3.0 Try again later")
    raw = raw_mail()
    first, second = run_async(send_all(settings_for(smtp_server), [("anna@example.org", raw)] * 2))
    assert isinstance(first, TemporaryFailure) and first.code == 451
    assert not isinstance(first, ServerUnavailable)  # about this mail: the batch goes on
    assert "451" in str(first)
    assert second is None
    assert [mail.raw for mail in smtp_server.handler.received] == [raw]


def test_5xx_on_rcpt_is_permanent_and_the_connection_stays_usable(
    smtp_server: SmtpServer,
) -> None:
    smtp_server.handler.rcpt_replies.append("550 5.1.1 No such user")
    outcomes = run_async(
        send_all(
            settings_for(smtp_server),
            [("gone@example.org", raw_mail("1")), ("anna@example.org", raw_mail("2"))],
        )
    )
    assert isinstance(outcomes[0], PermanentFailure) and outcomes[0].code == 550
    assert "gone@example.org" in str(outcomes[0])
    assert outcomes[1] is None
    assert [mail.rcpt_tos for mail in smtp_server.handler.received] == [("anna@example.org",)]


def test_4xx_on_rcpt_is_temporary(smtp_server: SmtpServer) -> None:
    smtp_server.handler.rcpt_replies.append("450 4.2.1 Mailbox busy")
    (outcome,) = run_async(send_all(settings_for(smtp_server), [("a@example.org", raw_mail())]))
    assert isinstance(outcome, TemporaryFailure) and outcome.code == 450


def test_421_means_the_server_is_unavailable(smtp_server: SmtpServer) -> None:
    smtp_server.handler.rcpt_replies.append("421 4.3.2 Shutting down")
    first, second = run_async(
        send_all(settings_for(smtp_server), [("a@example.org", raw_mail("1"))] * 2)
    )
    assert isinstance(first, ServerUnavailable) and first.code == 421
    assert second is None  # a new connection is opened for the next mail


def test_5xx_on_data_is_permanent(smtp_server: SmtpServer) -> None:
    smtp_server.handler.data_replies.append("554 5.7.1 Message rejected as spam")
    (outcome,) = run_async(send_all(settings_for(smtp_server), [("a@example.org", raw_mail())]))
    assert isinstance(outcome, PermanentFailure) and outcome.code == 554
    assert smtp_server.handler.received == []


@AUTH_WITHOUT_TLS
def test_auth_with_the_right_password(smtp_server_factory: Callable[..., SmtpServer]) -> None:
    server = smtp_server_factory(auth=True)
    settings = settings_for(server, username=USERNAME, password=PASSWORD)
    assert run_async(send_all(settings, [("a@example.org", raw_mail())])) == [None]
    assert server.handler.auth_attempts == [(USERNAME, PASSWORD)]
    assert len(server.handler.received) == 1


@AUTH_WITHOUT_TLS
def test_a_refused_login_is_temporary_and_sends_nothing(
    smtp_server_factory: Callable[..., SmtpServer],
) -> None:
    server = smtp_server_factory(auth=True)
    settings = settings_for(server, username=USERNAME, password="wrong")
    (outcome,) = run_async(send_all(settings, [("a@example.org", raw_mail())]))
    assert isinstance(outcome, ServerUnavailable) and outcome.code == 535
    assert server.handler.received == []


@AUTH_WITHOUT_TLS
def test_without_auth_an_auth_requiring_server_refuses_temporarily(
    smtp_server_factory: Callable[..., SmtpServer],
) -> None:
    server = smtp_server_factory(auth=True)
    (outcome,) = run_async(send_all(settings_for(server), [("a@example.org", raw_mail())]))
    assert isinstance(
        outcome, TemporaryFailure
    )  # 530 at MAIL FROM: our configuration, not the mail
    assert server.handler.received == []


def test_connection_refused_is_temporary() -> None:
    port = free_port()  # nothing listens there
    settings = SmtpSettings(host="127.0.0.1", port=port, starttls=False, timeout=5.0)
    (outcome,) = run_async(send_all(settings, [("a@example.org", raw_mail())]))
    assert isinstance(outcome, ServerUnavailable)
    assert "cannot connect" in str(outcome)


def test_a_server_that_never_greets_times_out_temporarily() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel completes the handshake; nobody ever answers
        settings = SmtpSettings(
            host="127.0.0.1", port=silent.getsockname()[1], starttls=False, timeout=0.5
        )
        started = time.monotonic()
        (outcome,) = run_async(send_all(settings, [("a@example.org", raw_mail())]))
    assert isinstance(outcome, ServerUnavailable)
    assert "timed out" in str(outcome)
    assert time.monotonic() - started < 5


def test_a_stalled_data_reply_times_out_and_a_new_connection_follows(
    smtp_server: SmtpServer,
) -> None:
    smtp_server.hold()
    settings = settings_for(smtp_server, timeout=0.5)

    async def scenario() -> tuple[Exception | None, Exception | None]:
        transport = SmtpTransport(settings)
        try:
            try:
                await transport.send(SENDER, "a@example.org", raw_mail("1"))
                first = None
            except TemporaryFailure as error:
                first = error
            smtp_server.handler.hold_data = None
            try:
                await transport.send(SENDER, "b@example.org", raw_mail("2"))
                second = None
            except TemporaryFailure as error:
                second = error
        finally:
            await transport.close()
        return first, second

    first, second = run_async(scenario())
    assert isinstance(first, TemporaryFailure) and "timed out" in str(first)
    assert second is None
    assert [mail.rcpt_tos for mail in smtp_server.handler.received] == [("b@example.org",)]


def test_a_connection_dropped_by_the_server_is_reopened(
    smtp_server_factory: Callable[..., SmtpServer],
) -> None:
    server = smtp_server_factory()

    async def scenario() -> None:
        transport = SmtpTransport(settings_for(server))
        try:
            await transport.send(SENDER, "a@example.org", raw_mail("1"))
            # The server goes away and comes back on the same port: the old socket is dead.
            server.restart()
            await transport.send(SENDER, "b@example.org", raw_mail("2"))
        finally:
            await transport.close()

    run_async(scenario())
    assert [mail.rcpt_tos for mail in server.handler.received] == [
        ("a@example.org",),
        ("b@example.org",),
    ]


def test_settings_from_the_config_section(tmp_path: Path) -> None:
    section = SmtpSubmissionSection(
        host="smtp.example.org", port=587, username="verteller", password="s3cret"
    )
    settings = SmtpSettings.from_section(section)
    assert (settings.host, settings.port, settings.starttls) == ("smtp.example.org", 587, True)
    assert (settings.username, settings.password) == ("verteller", "s3cret")
    assert not settings.implicit_tls
    assert "s3cret" not in repr(settings)
    smtps = SmtpSettings.from_section(SmtpSubmissionSection(host="h", port=465, username=""))
    assert smtps.implicit_tls and not smtps.starttls and smtps.username is None
    explicit = SmtpSettings.from_section(
        SmtpSubmissionSection(host="h", port=2465, ssl=True, starttls=False, username="")
    )
    assert explicit.implicit_tls and not explicit.starttls
    with pytest.raises(ConfigError, match="NARRATOR_SMTP_PASSWORD"):
        SmtpSettings.from_section(SmtpSubmissionSection(host="h", username="u"))


def test_the_transport_follows_outbound_mode(tmp_path: Path) -> None:
    maildir = transport_from_config(OutboundSection(mode="maildir", maildir=tmp_path / "out"))
    assert isinstance(maildir, MaildirTransport) and maildir.path == tmp_path / "out"
    smtp = transport_from_config(
        OutboundSection(mode="smtp", smtp=SmtpSubmissionSection(host="h", username=""))
    )
    assert isinstance(smtp, SmtpTransport)
    run_async(smtp.close())


# -- TLS (certificate made with the openssl command; see conftest) ------------------------------


def test_starttls_then_auth(
    smtp_server_factory: Callable[..., SmtpServer], certificate: Certificate
) -> None:
    server = smtp_server_factory(
        auth=True,
        auth_require_tls=True,
        require_starttls=True,
        tls_context=certificate.server_context(),
    )
    settings = settings_for(
        server,
        starttls=True,
        username=USERNAME,
        password=PASSWORD,
        tls_context=certificate.client_context(),
    )
    assert run_async(send_all(settings, [("a@example.org", raw_mail())])) == [None]
    assert server.handler.auth_attempts == [(USERNAME, PASSWORD)]


def test_starttls_required_but_not_offered_sends_no_password(smtp_server: SmtpServer) -> None:
    settings = settings_for(smtp_server, starttls=True, username=USERNAME, password=PASSWORD)
    (outcome,) = run_async(send_all(settings, [("a@example.org", raw_mail())]))
    assert isinstance(outcome, ServerUnavailable) and "STARTTLS" in str(outcome)
    assert smtp_server.handler.auth_attempts == []
    assert smtp_server.handler.received == []


def test_an_untrusted_certificate_is_refused(
    smtp_server_factory: Callable[..., SmtpServer], certificate: Certificate
) -> None:
    server = smtp_server_factory(tls_context=certificate.server_context())
    settings = settings_for(server, starttls=True)  # default context: the self-signed cert fails
    (outcome,) = run_async(send_all(settings, [("a@example.org", raw_mail())]))
    assert isinstance(outcome, TemporaryFailure) and "CERTIFICATE" in str(outcome).upper()
    assert server.handler.received == []


def test_implicit_tls(
    smtp_server_factory: Callable[..., SmtpServer], certificate: Certificate
) -> None:
    server = smtp_server_factory(ssl_context=certificate.server_context())
    settings = settings_for(server, ssl=True, tls_context=certificate.client_context())
    assert run_async(send_all(settings, [("a@example.org", raw_mail())])) == [None]
    assert len(server.handler.received) == 1


# -- Maildir -------------------------------------------------------------------------------------


def test_maildir_gets_one_file_per_mail_in_new(tmp_path: Path) -> None:
    box_path = tmp_path / "outbox"
    transport = MaildirTransport(box_path)

    async def scenario() -> None:
        await transport.send(SENDER, "anna@example.org", raw_mail("1"))
        await transport.send(SENDER, "bram@example.org", raw_mail("2", "bram@example.org"))
        await transport.close()

    run_async(scenario())
    assert sorted(p.name for p in box_path.iterdir()) == ["cur", "new", "tmp"]
    assert list((box_path / "tmp").iterdir()) == []
    files = list((box_path / "new").iterdir())
    assert len(files) == 2
    box = mailbox.Maildir(box_path, create=False)
    by_recipient = {message["Delivered-To"]: message for message in box}
    assert set(by_recipient) == {"anna@example.org", "bram@example.org"}
    anna = by_recipient["anna@example.org"]
    assert anna["Return-Path"] == f"<{SENDER}>"
    assert anna["Message-ID"] == make_message_id("example.org", "1")
    data = files[0].read_bytes()
    assert b"\r\n" not in data
    stored = next(f.read_bytes() for f in files if b"Delivered-To: anna@" in f.read_bytes())
    assert stored.split(b"\n", 2)[2] == raw_mail("1").replace(b"\r\n", b"\n")


def test_maildir_write_errors_are_temporary(tmp_path: Path) -> None:
    transport = MaildirTransport(tmp_path / "outbox")
    shutil.rmtree(tmp_path / "outbox")
    with pytest.raises(TemporaryFailure, match="Maildir"):
        run_async(transport.send(SENDER, "anna@example.org", raw_mail()))


def test_maildir_refuses_unsafe_envelope_addresses(tmp_path: Path) -> None:
    transport = MaildirTransport(tmp_path / "outbox")
    with pytest.raises(ValueError):
        run_async(transport.send(SENDER, "a@example.org\nBcc: x@example.org", raw_mail()))
    assert list((tmp_path / "outbox" / "new").iterdir()) == []


# -- issue 24: an empty Maildir, doubled mails, leftovers ----------------------------------------


def test_an_existing_empty_maildir_gets_its_folders(tmp_path: Path) -> None:
    (tmp_path / "outbox").mkdir()
    transport = MaildirTransport(tmp_path / "outbox")
    run_async(transport.send(SENDER, "anna@example.org", raw_mail("1")))
    assert len(list((tmp_path / "outbox" / "new").iterdir())) == 1


def test_a_mail_sent_again_is_one_file(tmp_path: Path) -> None:
    transport = MaildirTransport(tmp_path / "outbox")
    for _ in range(3):  # a crash between the write and "sent": the row is sent again
        run_async(transport.send(SENDER, "anna@example.org", raw_mail("1")))
    assert len(list((tmp_path / "outbox" / "new").iterdir())) == 1
    (only,) = (tmp_path / "outbox" / "new").iterdir()
    only.rename(tmp_path / "outbox" / "cur" / (only.name + ":2,S"))  # read by a mail client
    run_async(transport.send(SENDER, "anna@example.org", raw_mail("1")))
    assert list((tmp_path / "outbox" / "new").iterdir()) == []
    run_async(transport.send(SENDER, "anna@example.org", raw_mail("2")))
    run_async(transport.send(SENDER, "bram@example.org", raw_mail("1", "bram@example.org")))
    assert len(list((tmp_path / "outbox" / "new").iterdir())) == 2


def test_a_failed_maildir_write_leaves_nothing_in_tmp(tmp_path: Path) -> None:
    transport = MaildirTransport(tmp_path / "outbox")
    (tmp_path / "outbox" / "new").rmdir()
    (tmp_path / "outbox" / "new").write_text("not a folder")
    with pytest.raises(TemporaryFailure, match="Maildir"):
        run_async(transport.send(SENDER, "anna@example.org", raw_mail("1")))
    assert list((tmp_path / "outbox" / "tmp").iterdir()) == []


# -- a group of mails at once (one thread hand-off, one fsync of new/) ---------------------------


def test_a_group_gets_one_outcome_per_mail_and_an_unsafe_address_stops_only_its_mail(
    tmp_path: Path,
) -> None:
    transport = MaildirTransport(tmp_path / "outbox")
    bad = "b@example.org\nBcc: x@example.org"
    mails = [
        Delivery("anna@example.org", raw_mail("1"), first_claim=True),
        Delivery(bad, raw_mail("2"), first_claim=True),
        Delivery("carl@example.org", raw_mail("3", "carl@example.org"), first_claim=True),
    ]
    outcomes = run_async(transport.send_group(SENDER, mails))
    assert outcomes[0] is None is outcomes[2]
    assert isinstance(outcomes[1], ValueError)
    box = mailbox.Maildir(tmp_path / "outbox", create=False)
    assert sorted(message["Delivered-To"] for message in box) == [
        "anna@example.org",
        "carl@example.org",
    ]
    assert list((tmp_path / "outbox" / "tmp").iterdir()) == []


def test_a_write_error_stops_the_group_after_the_mails_already_written(tmp_path: Path) -> None:
    transport = MaildirTransport(tmp_path / "outbox")
    mails = [
        Delivery(f"p{n}@example.org", raw_mail(str(n), f"p{n}@example.org"), first_claim=True)
        for n in range(3)
    ]
    # The second mail's file can't be made (a folder in its way in tmp/).
    obstacle = tmp_path / "outbox" / "tmp" / maildir_name("p1@example.org", mails[1].message)
    obstacle.mkdir()
    outcomes = run_async(transport.send_group(SENDER, mails))
    assert len(outcomes) == 2  # the third was not tried
    assert outcomes[0] is None
    assert isinstance(outcomes[1], ServerUnavailable)
    assert "cannot write to Maildir" in str(outcomes[1])
    assert len(list((tmp_path / "outbox" / "new").iterdir())) == 1
    # Tried again (claimed again: looked for first), the first is not written twice.
    obstacle.rmdir()
    again = [Delivery(mail.recipient, mail.message) for mail in mails]
    assert run_async(transport.send_group(SENDER, again)) == [None, None, None]
    assert len(list((tmp_path / "outbox" / "new").iterdir())) == 3


def test_only_a_mail_claimed_again_is_looked_for_in_new_and_cur(tmp_path: Path) -> None:
    """A mail on its first claim can't have been written by an earlier attempt: it is written
    without looking through the Maildir (whose cur/ a reader may have filled)."""
    transport = MaildirTransport(tmp_path / "outbox")
    cur = tmp_path / "outbox" / "cur"
    for n in range(300):  # a mailbox that has been read
        (cur / f"{maildir_name(f'x{n}@example.org', raw_mail(str(n)))}:2,S").write_bytes(b"x")
    run_async(transport.send(SENDER, "anna@example.org", raw_mail("1")))
    (written,) = (tmp_path / "outbox" / "new").iterdir()
    written.rename(cur / (written.name + ":2,RS"))  # read and answered by a mail client
    claimed_again = Delivery("anna@example.org", raw_mail("1"), first_claim=False)
    assert run_async(transport.send_group(SENDER, [claimed_again])) == [None]
    assert list((tmp_path / "outbox" / "new").iterdir()) == []  # found in cur/: not doubled
    assert transport.is_delivered(written.name)
    # The same bytes announced as a first claim are not looked for (a state the outbox
    # never produces: a row is claimed for the first time once).
    first = Delivery("anna@example.org", raw_mail("1"), first_claim=True)
    assert run_async(transport.send_group(SENDER, [first])) == [None]
    assert [path.name for path in (tmp_path / "outbox" / "new").iterdir()] == [written.name]
