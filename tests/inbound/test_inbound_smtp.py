"""The SMTP/LMTP receiver against real smtplib clients on loopback."""

from __future__ import annotations

import asyncio
import smtplib
from dataclasses import dataclass, field

import pytest

from narrator.inbound.sink import Source, StoreResult
from narrator.inbound.smtp import SmtpReceiver, SmtpSettings, is_narrator_address
from tests.support.aio import run_async, wait_until
from tests.support.sinks import FlakySink, MemorySink

ADDRESS = "verteller@example.org"


def mail(message_id: str = "vote-1@example.org", body: str = "Ik stem op Bram.") -> bytes:
    return (
        f"From: Anna <anna@example.org>\r\nTo: {ADDRESS}\r\nSubject: WW5\r\n"
        f"Message-ID: <{message_id}>\r\n\r\n{body}\r\n"
    ).encode()


def settings(**overrides: object) -> SmtpSettings:
    values: dict[str, object] = {"addresses": (ADDRESS,), "port": 0}
    values.update(overrides)
    return SmtpSettings(**values)  # type: ignore[arg-type]


def send(port: int, raw: bytes, rcpt: str = ADDRESS, sender: str = "anna@example.org") -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(sender, [rcpt], raw)


def data_reply(port: int, raw: bytes, sender: str = "anna@example.org") -> tuple[int, bytes]:
    """One transaction without the SIZE shortcut; return the reply to DATA."""
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.ehlo()
        assert client.mail(sender)[0] == 250
        assert client.rcpt(ADDRESS)[0] == 250
        return client.data(raw)


@dataclass
class GateSink:
    """A sink whose commit waits until the test opens the gate."""

    inner: MemorySink = field(default_factory=MemorySink)
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    entered: asyncio.Event = field(default_factory=asyncio.Event)

    async def store(self, raw: bytes, *, source: Source, **imap: object) -> StoreResult:
        self.entered.set()
        await self.gate.wait()
        return await self.inner.store(raw, source=source)


def test_250_comes_only_after_the_commit() -> None:
    async def scenario() -> None:
        sink = GateSink()
        async with SmtpReceiver(sink, settings()) as receiver:  # type: ignore[arg-type]
            client = asyncio.create_task(asyncio.to_thread(data_reply, receiver.port, mail()))
            await asyncio.wait_for(sink.entered.wait(), 10)
            done, _ = await asyncio.wait({client}, timeout=0.2)
            assert not done, "the client got its reply before the message was committed"
            assert sink.inner.messages == []
            sink.gate.set()
            code, text = await client
        assert code == 250, text
        assert len(sink.inner.messages) == 1
        assert sink.inner.messages[0].source == "smtp"

    run_async(scenario())


def test_storage_failure_answers_451_and_the_retry_is_stored() -> None:
    async def scenario() -> None:
        memory = MemorySink()
        sink = FlakySink(memory, failures=1)
        async with SmtpReceiver(sink, settings()) as receiver:
            with pytest.raises(smtplib.SMTPDataError) as refused:
                await asyncio.to_thread(send, receiver.port, mail())
            assert refused.value.smtp_code == 451
            assert refused.value.smtp_error.startswith(b"4.3.0")
            assert memory.messages == []
            await asyncio.to_thread(send, receiver.port, mail())
        assert [m.message_id for m in memory.messages] == ["vote-1@example.org"]
        assert len(sink.calls) == 2

    run_async(scenario())


def test_a_resent_message_is_accepted_but_stored_once() -> None:
    async def scenario() -> None:
        sink = MemorySink()
        async with SmtpReceiver(sink, settings()) as receiver:
            first = await asyncio.to_thread(data_reply, receiver.port, mail())
            second = await asyncio.to_thread(data_reply, receiver.port, mail())
        assert first == (250, b"2.0.0 Ok: stored")
        assert second == (250, b"2.0.0 Ok: already stored")
        assert len(sink.messages) == 1

    run_async(scenario())


def test_mail_over_the_size_limit_is_refused_with_552() -> None:
    async def scenario() -> None:
        sink = MemorySink()
        big = mail(body="x" * 80 + ("\r\n" + "y" * 78) * 100)
        async with SmtpReceiver(sink, settings(max_message_size=2000)) as receiver:
            code, _ = await asyncio.to_thread(data_reply, receiver.port, big)
            assert code == 552
            with pytest.raises(smtplib.SMTPSenderRefused) as refused:  # SIZE= in MAIL FROM
                await asyncio.to_thread(send, receiver.port, big)
            assert refused.value.smtp_code == 552
            await asyncio.to_thread(send, receiver.port, mail())
        assert len(sink.messages) == 1

    run_async(scenario())


def test_only_the_narrators_addresses_are_accepted() -> None:
    def client_session(port: int) -> dict[str, tuple[int, bytes]]:
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
            client.ehlo()
            client.mail("anna@example.org")
            code, text = client.rcpt("iemand@example.org")
            assert (code, text[:5]) == (550, b"5.1.1")
            client.rset()
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                client.sendmail("anna@example.org", ["iemand@example.org"], mail())
            return client.sendmail(
                "anna@example.org", ["Verteller+WW5-k3x9@Example.org", "x@example.org"], mail()
            )

    async def scenario() -> None:
        sink = MemorySink()
        async with SmtpReceiver(sink, settings()) as receiver:
            refused = await asyncio.to_thread(client_session, receiver.port)
        assert list(refused) == ["x@example.org"]
        assert len(sink.messages) == 1
        assert b"Delivered-To: Verteller+WW5-k3x9@Example.org\r\n" in sink.messages[0].raw

    run_async(scenario())


def test_trace_headers_record_the_envelope_including_a_null_sender() -> None:
    async def scenario() -> None:
        sink = MemorySink()
        async with SmtpReceiver(sink, settings()) as receiver:
            await asyncio.to_thread(send, receiver.port, mail(), sender="")
        raw = sink.messages[0].raw
        assert raw.startswith(b"Return-Path: <>\r\nDelivered-To: verteller@example.org\r\n")
        assert raw.endswith(mail())

    run_async(scenario())


def test_lmtp_mode_answers_once_per_recipient() -> None:
    # smtplib.LMTP reads a single DATA reply, so two recipients are spoken by hand here.
    async def scenario() -> None:
        sink = MemorySink()
        async with SmtpReceiver(sink, settings(lmtp=True)) as receiver:
            reader, writer = await asyncio.open_connection("127.0.0.1", receiver.port)
            replies = []

            async def command(line: bytes) -> bytes:
                writer.write(line)
                reply = await reader.readline()
                while reply[3:4] == b"-":
                    reply = await reader.readline()
                return reply

            assert (await reader.readline()).startswith(b"220")
            assert (await command(b"LHLO client\r\n")).startswith(b"250")
            assert (await command(b"MAIL FROM:<anna@example.org>\r\n")).startswith(b"250")
            for rcpt in (ADDRESS, "verteller+ww5@example.org"):
                assert (await command(f"RCPT TO:<{rcpt}>\r\n".encode())).startswith(b"250")
            assert (await command(b"DATA\r\n")).startswith(b"354")
            writer.write(mail() + b".\r\n")
            replies = [await reader.readline(), await reader.readline()]
            assert (await command(b"QUIT\r\n")).startswith(b"221")
            writer.close()
            await writer.wait_closed()
        assert replies == [b"250 2.0.0 Ok: stored\r\n"] * 2
        assert len(sink.messages) == 1

    run_async(scenario())


def test_lmtp_mode_with_smtplib_lmtp() -> None:
    async def scenario() -> None:
        sink = MemorySink()
        async with SmtpReceiver(sink, settings(lmtp=True)) as receiver:

            def deliver() -> dict[str, tuple[int, bytes]]:
                with smtplib.LMTP("127.0.0.1", receiver.port, timeout=10) as client:
                    return client.sendmail("anna@example.org", [ADDRESS], mail())

            assert await asyncio.to_thread(deliver) == {}
        assert len(sink.messages) == 1

    run_async(scenario())


def test_stop_closes_open_sessions_and_the_port() -> None:
    async def scenario() -> None:
        receiver = SmtpReceiver(MemorySink(), settings())
        await receiver.start()
        port = receiver.port
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert (await reader.readline()).startswith(b"220")
        await receiver.stop()
        assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.close()
        await writer.wait_closed()
        with pytest.raises(OSError):
            await asyncio.open_connection("127.0.0.1", port)

    run_async(scenario())


def test_the_worker_is_woken_after_each_new_message() -> None:
    async def scenario() -> None:
        woken: list[StoreResult] = []
        sink = MemorySink(on_stored=woken.append)
        async with SmtpReceiver(sink, settings()) as receiver:
            await asyncio.to_thread(send, receiver.port, mail("a@x"))
            await asyncio.to_thread(send, receiver.port, mail("a@x"))
            await asyncio.to_thread(send, receiver.port, mail("b@x"))
            await wait_until(lambda: len(woken) == 2, message="two wake-ups")
        assert [r.message_id for r in woken] == ["a@x", "b@x"]

    run_async(scenario())


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("verteller@example.org", True),
        ("<VERTELLER@EXAMPLE.ORG>", True),
        ("verteller+ww5-k3x9@example.org", True),
        ("verteller@example.com", False),
        ("vertellerx@example.org", False),
        ("anna+verteller@example.org", False),
        ("verteller", False),
    ],
)
def test_is_narrator_address(address: str, expected: bool) -> None:
    assert is_narrator_address(address, ["verteller@example.org"]) is expected
