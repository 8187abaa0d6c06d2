"""`narrator inject`: files or stdin into the inbox; exit 0 stored, 75 to retry (MTA pipe)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from narrator.cli import main
from narrator.db import make_engine, session_factory, upgrade
from narrator.inbound.inject import inject, inject_sync
from narrator.inbound.sink import StoreResult
from narrator.models import InboxMessage
from tests.support.aio import run_async
from tests.support.sinks import MemorySink


def mail(n: int) -> bytes:
    return (
        f"From: anna@example.org\r\nSubject: WW5\r\nMessage-ID: <m{n}@x>\r\n\r\nBram\r\n".encode()
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "narrator.toml"
    path.write_text('[narrator]\ndatabase = "sqlite:///narrator.db"\n')
    return path


def database_url(config: Path) -> str:
    return f"sqlite:///{config.parent / 'narrator.db'}"


def inbox(config: Path) -> list[tuple[str | None, str, bytes]]:
    engine = make_engine(database_url(config))
    try:
        with session_factory(engine)() as session:
            rows = session.scalars(select(InboxMessage).order_by(InboxMessage.id))
            return [(r.message_id, r.source, r.raw) for r in rows]
    finally:
        engine.dispose()


def test_files_are_stored_once(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade(database_url(config))
    files = []
    for n in (1, 2):
        files.append(tmp_path / f"{n}.eml")
        files[-1].write_bytes(mail(n))
    assert main(["inject", "--config", str(config), *map(str, files)]) == 0
    assert main(["inject", "--config", str(config), "--json", str(files[0])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "<m1@x> stored as inbox 1" in out[0]
    assert json.loads(out[2]) == {
        "source": str(files[0]),
        "message_id": "m1@x",
        "inbox_id": 1,
        "duplicate": True,
    }
    assert inbox(config) == [("m1@x", "inject", mail(1)), ("m2@x", "inject", mail(2))]


def test_stdin_is_read_when_no_files_are_given(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    upgrade(database_url(config))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(mail(7))))
    assert main(["inject", "--config", str(config)]) == 0
    assert [row[0] for row in inbox(config)] == ["m7@x"]


def test_an_unmigrated_database_is_a_temporary_failure_then_the_retry_works(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eml = tmp_path / "vote.eml"
    eml.write_bytes(mail(1))
    assert main(["inject", "--config", str(config), str(eml)]) == 75
    assert "temporary failure" in capsys.readouterr().err
    upgrade(database_url(config))
    assert main(["inject", "--config", str(config), str(eml)]) == 0
    assert len(inbox(config)) == 1


def test_an_unreachable_database_is_a_temporary_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "narrator.toml"
    config.write_text('[narrator]\ndatabase = "sqlite:////nonexistent-dir/narrator.db"\n')
    eml = tmp_path / "vote.eml"
    eml.write_bytes(mail(1))
    assert main(["inject", "--config", str(config), str(eml)]) == 75
    assert capsys.readouterr().err.count("\n") == 1


def test_bad_input_is_a_one_line_error(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inject", "--config", str(config), str(tmp_path / "missing.eml")]) == 2
    empty = tmp_path / "empty.eml"
    empty.write_bytes(b"\r\n")
    assert main(["inject", "--config", str(config), str(empty)]) == 65
    assert [
        line.startswith("narrator: error:") for line in capsys.readouterr().err.splitlines()
    ] == [
        True,
        True,
    ]


def test_as_an_mta_pipe(config: Path) -> None:
    upgrade(database_url(config))
    command = [sys.executable, "-m", "narrator", "inject", "--config", str(config)]
    stored = subprocess.run(command, input=mail(3), capture_output=True, check=False, timeout=60)
    assert stored.returncode == 0, stored.stderr
    config.write_text('[narrator]\ndatabase = "sqlite:////nonexistent-dir/narrator.db"\n')
    retry = subprocess.run(command, input=mail(4), capture_output=True, check=False, timeout=60)
    assert retry.returncode == 75, retry.stderr
    assert [row[0] for row in inbox(config)] == ["m3@x"]


def test_inject_api_stores_in_order_and_processes_only_new_mail() -> None:
    sink = MemorySink()
    assert [r.message_id for r in run_async(inject([mail(1), mail(2)], sink))] == ["m1@x", "m2@x"]

    class SyncSink:
        def store_sync(self, raw: bytes, *, source: str, **_: object) -> StoreResult:
            return run_async(sink.store(raw, source=source))  # type: ignore[arg-type]

    processed: list[list[str]] = []
    results = inject_sync(
        [mail(2), mail(3)],
        SyncSink(),
        process=lambda rs: processed.append([r.message_id for r in rs]),
    )
    assert [r.duplicate for r in results] == [True, False]
    assert processed == [["m3@x"]]
    assert [m.source for m in sink.messages] == ["inject"] * 3
