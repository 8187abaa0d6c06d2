"""Driving a game from the command line: inject signups, start, close steps, pause, extend."""

from __future__ import annotations

import json
import mailbox
import os
from pathlib import Path

import pytest

from narrator.cli import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _signup(path: Path, name: str, n: int) -> Path:
    file = path / f"{name}.eml"
    file.write_bytes(
        f"From: {name} <{name.lower()}@example.org>\r\nTo: verteller@example.org\r\n"
        f"Subject: WW9\r\nMessage-ID: <signup{n}@example.org>\r\n\r\n{name}, vrouw\r\n".encode()
    )
    return file


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def test_a_game_driven_by_the_cli(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "db", "upgrade")[0] == 0
    assert _run(capsys, "game", "create", "WW9", "--speed", "1h")[0] == 0
    files = [
        str(_signup(workdir, n, i)) for i, n in enumerate(["Anna", "Bea", "Cor", "Dina", "Els"])
    ]
    status, out, _ = _run(capsys, "inject", *files)
    assert status == 0
    outbox = mailbox.Maildir(workdir / "outbox", create=False)
    subjects = sorted(str(message["To"]) for message in outbox)
    assert len(subjects) == 5 and "Anna <anna@example.org>" in subjects

    status, out, err = _run(capsys, "game", "start", "WW9", "--seed", "3", "--json")
    assert status == 0, err
    view = json.loads(out)
    assert view["state"] == "running" and view["step"] and view["asked"]
    assert all(player["role"] for player in view["players"])

    status, out, err = _run(capsys, "game", "close-step", "WW9", "--json")
    assert status == 0, err
    after = json.loads(out)
    assert (after["step"], after["night"], after["day"]) != (
        view["step"],
        view["night"],
        view["day"],
    )
    # What close-step printed is the state it left, as any later look at the game shows it.
    shown = json.loads(_run(capsys, "game", "show", "WW9", "--json")[1])
    assert (after["asked"], after["players"]) == (shown["asked"], shown["players"])
    assert after["asked"] != view["asked"]

    assert _run(capsys, "game", "pause", "WW9")[0] == 0
    status, _, err = _run(capsys, "game", "pause", "WW9")
    assert status == 2 and "not running" in err and err.count("\n") == 1
    assert _run(capsys, "game", "resume", "WW9")[0] == 0
    before = json.loads(_run(capsys, "game", "show", "WW9", "--json")[1])["deadline"]
    status, out, _ = _run(capsys, "game", "extend", "WW9", "2h", "--json")
    assert status == 0 and json.loads(out)["deadline"] > before


def test_start_needs_enough_players(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "db", "upgrade")
    _run(capsys, "game", "create", "WW9")
    status, _, err = _run(capsys, "game", "start", "WW9")
    assert status == 2
    assert err == "narrator: error: game WW9 has 0 players; at least 3 are needed\n"
