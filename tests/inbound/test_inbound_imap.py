"""The IMAP poller against a real Dovecot on loopback."""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
from collections.abc import Callable
from pathlib import Path

import pytest

from narrator.config import load_config
from narrator.inbound.imap import (
    ImapPoller,
    ImapSettings,
    backoff_delay,
    compact_uid_set,
    parse_fetch,
    parse_uids,
)
from narrator.inbound.smtp import SmtpSettings
from tests.support.aio import run_async, wait_until
from tests.support.dovecot import DovecotAccount, DovecotServer
from tests.support.net import free_port
from tests.support.sinks import FlakySink, MemorySink

pytestmark = pytest.mark.dovecot


def mail(n: int) -> bytes:
    return (
        f"From: speler{n}@example.org\r\nTo: verteller@example.org\r\nSubject: WW5\r\n"
        f"Message-ID: <vote-{n}@example.org>\r\n\r\nIk stem op Bram ({n}).\r\n"
    ).encode()


def settings_for(account: DovecotAccount, **overrides: object) -> ImapSettings:
    values: dict[str, object] = {
        "host": account.server.host,
        "port": account.server.imap_port,
        "ssl": False,
        "username": account.username,
        "password": account.password,
        "poll_interval": 3600.0,  # only IDLE can wake the poller unless a test says otherwise
        "idle_timeout": 3600.0,
        "command_timeout": 10.0,
        "backoff_initial": 0.05,
        "backoff_max": 0.4,
    }
    values.update(overrides)
    return ImapSettings(**values)  # type: ignore[arg-type]


def poller(sink: object, settings: ImapSettings, **kwargs: object) -> ImapPoller:
    return ImapPoller(sink, settings, rng=random.Random(4), **kwargs)  # type: ignore[arg-type]


def stored_ids(sink: MemorySink) -> list[str]:
    return [m.message_id for m in sink.messages]


async def seen_uids(account: DovecotAccount, mailbox: str = "INBOX") -> set[int]:
    flags = await asyncio.to_thread(account.flags, mailbox)
    return {uid for uid, f in flags.items() if "\\Seen" in f}


async def wait_seen(account: DovecotAccount, uids: set[int]) -> None:
    async def all_seen() -> bool:
        return await seen_uids(account) == uids

    await wait_until(all_seen, message=f"UIDs {sorted(uids)} flagged \\Seen")


def test_new_mail_is_stored_then_flagged_seen(dovecot_account: DovecotAccount) -> None:
    dovecot_account.deliver(mail(1))
    dovecot_account.deliver(mail(2))
    uidvalidity = dovecot_account.uidvalidity()

    async def scenario() -> MemorySink:
        sink = MemorySink()
        async with poller(sink, settings_for(dovecot_account)):
            await wait_until(lambda: len(sink.messages) == 2, message="two stored mails")
            await wait_seen(dovecot_account, {1, 2})
        return sink

    sink = run_async(scenario())
    assert stored_ids(sink) == ["vote-1@example.org", "vote-2@example.org"]
    assert [(m.source, m.mailbox, m.uidvalidity, m.uid) for m in sink.messages] == [
        ("imap", "INBOX", uidvalidity, 1),
        ("imap", "INBOX", uidvalidity, 2),
    ]
    assert sink.messages[0].raw.endswith(mail(1))
    assert sink.last_uids == {("INBOX", uidvalidity): 2}


def test_only_the_first_max_message_size_bytes_of_a_huge_mail_are_fetched(
    dovecot_account: DovecotAccount, caplog: pytest.LogCaptureFixture
) -> None:
    """Like the SMTP receiver's limit: a mail of 300 kB is not held whole; its first 64 kB are
    stored (more than the inbox's limit, which answers it with the too-large reply)."""
    dovecot_account.deliver(mail(1) + b"x" * 300_000 + b"\r\n")
    dovecot_account.deliver(mail(2))

    async def scenario() -> MemorySink:
        sink = MemorySink()
        async with poller(sink, settings_for(dovecot_account, max_message_size=65_536)):
            await wait_until(lambda: len(sink.messages) == 2, message="two stored mails")
            await wait_seen(dovecot_account, {1, 2})
        return sink

    with caplog.at_level(logging.WARNING, logger="narrator.inbound.imap"):
        sink = run_async(scenario())
    huge, small = sink.messages
    assert len(huge.raw) == 65_536 and huge.message_id == "vote-1@example.org"
    assert small.raw.endswith(mail(2))  # a mail under the limit comes whole
    assert "UID 1 is" in caplog.text and "only its first 65536 are kept" in caplog.text


def test_idle_wakes_the_poller_on_new_mail(dovecot_account: DovecotAccount) -> None:
    async def scenario() -> None:
        sink = MemorySink()
        synced = asyncio.Event()
        async with poller(sink, settings_for(dovecot_account), on_synced=synced.set) as p:
            await asyncio.wait_for(synced.wait(), 10)
            assert sink.messages == []
            await asyncio.to_thread(dovecot_account.deliver, mail(1))
            # poll_interval is an hour: only an IDLE notification can bring it in this fast.
            await wait_until(lambda: len(sink.messages) == 1, timeout=5, message="IDLE wake-up")
            await asyncio.to_thread(dovecot_account.deliver, mail(2))
            await wait_until(lambda: len(sink.messages) == 2, timeout=5, message="second wake-up")
            assert p.sessions == 1
        assert stored_ids(sink) == ["vote-1@example.org", "vote-2@example.org"]

    run_async(scenario())


def test_without_idle_the_poller_polls(dovecot_account: DovecotAccount) -> None:
    async def scenario() -> None:
        sink = MemorySink()
        synced = asyncio.Event()
        settings = settings_for(dovecot_account, use_idle=False, poll_interval=0.1)
        async with poller(sink, settings, on_synced=synced.set) as p:
            await asyncio.wait_for(synced.wait(), 10)
            await asyncio.to_thread(dovecot_account.deliver, mail(1))
            await wait_until(lambda: len(sink.messages) == 1, message="polled mail")
            assert p.passes >= 2

    run_async(scenario())


def test_nothing_is_fetched_twice_across_restarts(dovecot_account: DovecotAccount) -> None:
    dovecot_account.deliver(mail(1))
    dovecot_account.deliver(mail(2))

    async def scenario() -> FlakySink:
        sink = FlakySink(MemorySink())
        settings = settings_for(dovecot_account)
        for round_ in range(3):
            synced = asyncio.Event()
            async with poller(sink, settings, on_synced=synced.set):
                await asyncio.wait_for(synced.wait(), 10)
                await asyncio.to_thread(dovecot_account.deliver, mail(10 + round_))
                await wait_until(lambda r=round_: len(sink.calls) == 3 + r, message="new mail")
        return sink

    sink = run_async(scenario())
    assert sink.calls == [("imap", uid) for uid in (1, 2, 3, 4, 5)]
    assert not any(r.duplicate for r in sink.results)


def test_a_new_uidvalidity_stores_only_what_is_not_stored(
    dovecot_account: DovecotAccount,
) -> None:
    dovecot_account.deliver(mail(1))
    dovecot_account.deliver(mail(2))
    old = dovecot_account.uidvalidity()

    async def scenario() -> tuple[FlakySink, MemorySink]:
        memory = MemorySink()
        sink = FlakySink(memory)
        async with poller(sink, settings_for(dovecot_account)):
            await wait_until(lambda: len(memory.messages) == 2, message="first two")
        await asyncio.to_thread(dovecot_account.set_uidvalidity, old + 1000)
        await asyncio.to_thread(dovecot_account.deliver, mail(3))
        synced = asyncio.Event()
        async with poller(sink, settings_for(dovecot_account), on_synced=synced.set):
            await asyncio.wait_for(synced.wait(), 10)
            await wait_seen(dovecot_account, {1, 2, 3})
        return sink, memory

    sink, memory = run_async(scenario())
    # 1 and 2 are fetched again (the sink alone can tell a copy from another mail under the
    # same Message-ID) and found stored: not stored twice.
    assert sink.calls == [("imap", 1), ("imap", 2), ("imap", 1), ("imap", 2), ("imap", 3)]
    assert [r.duplicate for r in sink.results] == [False, False, True, True, False]
    assert stored_ids(memory) == [f"vote-{n}@example.org" for n in (1, 2, 3)]
    assert memory.messages[2].uidvalidity == old + 1000
    assert memory.last_uids[("INBOX", old + 1000)] == 3


def test_a_storage_failure_leaves_the_mail_unflagged_until_stored(
    dovecot_account: DovecotAccount, caplog: pytest.LogCaptureFixture
) -> None:
    dovecot_account.deliver(mail(1))

    async def scenario() -> None:
        memory = MemorySink()
        sink = FlakySink(memory, failures=10**6)
        async with poller(sink, settings_for(dovecot_account)):
            await wait_until(lambda: len(sink.calls) >= 3, message="retries after failures")
            assert await seen_uids(dovecot_account) == set()
            assert memory.messages == []
            sink.failures = 0
            await wait_until(lambda: len(memory.messages) == 1, message="stored after retry")
            await wait_seen(dovecot_account, {1})
        assert sink.results[0].duplicate is False

    with caplog.at_level(logging.INFO, logger="narrator.inbound.imap"):
        run_async(scenario())
    assert any("could not store UID 1" in r.getMessage() for r in caplog.records)
    attempts = [r.args[1] for r in caplog.records if "reconnecting" in r.getMessage()]
    assert attempts[:3] == [1, 2, 3], "storage failures back off exponentially, not reset"


def test_stored_mail_can_be_moved_to_a_folder(dovecot_account: DovecotAccount) -> None:
    dovecot_account.create_mailbox("Verwerkt")
    dovecot_account.deliver(mail(1))
    dovecot_account.deliver(mail(2))

    async def scenario() -> MemorySink:
        sink = MemorySink()
        async with poller(sink, settings_for(dovecot_account, move_to="Verwerkt")):
            await wait_until(lambda: len(sink.messages) == 2, message="two stored")

            async def moved() -> bool:
                inbox = await asyncio.to_thread(dovecot_account.flags, "INBOX")
                done = await asyncio.to_thread(dovecot_account.flags, "Verwerkt")
                return not inbox and len(done) == 2

            await wait_until(moved, message="both moved")
        return sink

    assert stored_ids(run_async(scenario())) == ["vote-1@example.org", "vote-2@example.org"]


def test_the_poller_survives_a_dovecot_restart(
    dovecot_factory: Callable[..., DovecotServer], caplog: pytest.LogCaptureFixture
) -> None:
    server = dovecot_factory()
    account = server.add_user()
    account.deliver(mail(1))

    async def scenario() -> tuple[FlakySink, ImapPoller]:
        memory = MemorySink()
        sink = FlakySink(memory)
        synced = asyncio.Event()
        p = poller(sink, settings_for(account), on_synced=synced.set)
        async with p:
            await wait_until(lambda: len(memory.messages) == 1, message="first mail")
            await asyncio.wait_for(synced.wait(), 10)  # idling now
            await asyncio.to_thread(server.stop)
            await wait_until(
                lambda: any("reconnecting" in r.getMessage() for r in caplog.records),
                message="the poller noticed",
            )
            await asyncio.to_thread(server.start)
            await asyncio.to_thread(account.deliver, mail(2))
            await wait_until(lambda: len(memory.messages) == 2, message="mail after restart")
            await wait_seen(account, {1, 2})
        return sink, p

    with caplog.at_level(logging.INFO, logger="narrator.inbound.imap"):
        sink, p = run_async(scenario())
    assert p.sessions >= 2
    assert sink.calls == [("imap", 1), ("imap", 2)]


def test_a_refused_login_is_logged_and_retried_later(
    dovecot_server: DovecotServer, caplog: pytest.LogCaptureFixture
) -> None:
    account = DovecotAccount(dovecot_server, "nobody", "wrong")

    async def scenario() -> None:
        p = poller(MemorySink(), settings_for(account))
        await p.start()
        await wait_until(
            lambda: any("reconnecting" in r.getMessage() for r in caplog.records),
            message="a retry planned",
        )
        await p.stop()
        assert p.sessions == 0

    with caplog.at_level(logging.INFO, logger="narrator.inbound.imap"):
        run_async(scenario())
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("login as 'nobody' refused" in m for m in messages), messages


def test_an_unreachable_server_is_retried_with_backoff_and_stop_is_prompt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        settings = ImapSettings(
            host="127.0.0.1",
            port=free_port(),  # nothing listens there
            ssl=False,
            username="verteller",
            password="secret",
            backoff_initial=0.02,
            backoff_max=0.1,
        )
        p = poller(MemorySink(), settings)
        await p.start()
        await wait_until(
            lambda: sum("reconnecting" in r.getMessage() for r in caplog.records) >= 4,
            message="four reconnect attempts",
        )
        loop = asyncio.get_running_loop()
        started = loop.time()
        await p.stop()
        assert loop.time() - started < 1
        assert p.sessions == 0

    with caplog.at_level(logging.INFO, logger="narrator.inbound.imap"):
        run_async(scenario())
    assert any("ConnectionRefusedError" in r.getMessage() for r in caplog.records)


def test_backoff_is_exponential_capped_and_jittered() -> None:
    rng = random.Random(1)
    delays = [backoff_delay(n, 1.0, 30.0, rng) for n in range(10)]
    for attempt, delay in enumerate(delays):
        ceiling = min(30.0, 2.0**attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert delays[-1] <= 30.0
    again = random.Random(1)
    assert delays == [backoff_delay(n, 1.0, 30.0, again) for n in range(10)]  # seeded: replays
    assert len({round(d, 6) for d in delays[6:]}) > 1  # jittered, not all at the cap


def test_parse_fetch_finds_uid_before_or_after_the_literal() -> None:
    lines = [
        b"1 FETCH (UID 7 BODY[] {5}",
        bytearray(b"hello"),
        b")",
        b"2 FETCH (BODY[] {3}",
        bytearray(b"abc"),
        b" UID 9 FLAGS (\\Seen))",
        b"3 FETCH (UID 10 FLAGS ())",
        b"Fetch completed.",
    ]
    assert parse_fetch(lines) == [(7, b"hello"), (9, b"abc")]


def test_parse_uids() -> None:
    assert parse_uids([b"5 3 4", b"Search completed."]) == [3, 4, 5]
    assert parse_uids([b"Search completed."]) == []


def test_compact_uid_set() -> None:
    assert compact_uid_set([7, 1, 2, 3, 9, 10]) == "1:3,7,9:10"
    assert compact_uid_set([5]) == "5"


def test_imaps_with_a_trusted_certificate_and_refusal_of_an_untrusted_one(
    dovecot_factory: Callable[..., DovecotServer], caplog: pytest.LogCaptureFixture
) -> None:
    server = dovecot_factory(tls=True)
    account = server.add_user()
    account.deliver(mail(1))
    trusted = ssl.create_default_context(cafile=str(server.cert_path))

    async def scenario() -> tuple[MemorySink, MemorySink]:
        untrusted_sink, sink = MemorySink(), MemorySink()
        untrusted = settings_for(account, ssl=True, port=server.imaps_port)
        async with poller(untrusted_sink, untrusted):
            await wait_until(
                lambda: any("CERTIFICATE_VERIFY_FAILED" in r.getMessage() for r in caplog.records),
                message="the untrusted certificate refused",
            )
        good = settings_for(account, ssl=True, port=server.imaps_port, ssl_context=trusted)
        async with poller(sink, good):
            await wait_until(lambda: len(sink.messages) == 1, message="mail over IMAPS")
        return untrusted_sink, sink

    with caplog.at_level(logging.WARNING, logger="narrator.inbound.imap"):
        untrusted_sink, sink = run_async(scenario())
    assert untrusted_sink.messages == []
    assert stored_ids(sink) == ["vote-1@example.org"]


def test_settings_from_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(
        '[narrator]\naddress = "wolf@example.net"\n'
        "[inbound.smtp]\nport = 2525\n"
        '[inbound.imap]\nenabled = true\nhost = "imap.example.net"\nusername = "wolf"\n'
        'password_env = "WOLF_PW"\nmailbox = "Spel"\n'
    )
    config = load_config(path, environ={"WOLF_PW": "s3cret"})
    imap = ImapSettings.from_config(config.inbound.imap, move_to="Verwerkt")
    assert (imap.host, imap.port, imap.ssl, imap.username, imap.password, imap.mailbox) == (
        "imap.example.net",
        993,
        True,
        "wolf",
        "s3cret",
        "Spel",
    )
    assert imap.move_to == "Verwerkt" and imap.key == "Spel"
    smtp = SmtpSettings.from_config(config)
    assert (smtp.addresses, smtp.host, smtp.port) == (("wolf@example.net",), "127.0.0.1", 2525)
