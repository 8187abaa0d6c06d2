"""`narrator game remove` and narrator.service.removal: the removal stored, logged, replayed and
told to every player through the post office."""

from __future__ import annotations

import email
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from narrator.cli import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def _started(workdir: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert _run(capsys, "db", "upgrade")[0] == 0
    assert _run(capsys, "game", "create", "WW9", "--speed", "1h")[0] == 0
    files = []
    for i, name in enumerate(["Anna", "Bea", "Cor", "Dina", "Els"]):
        file = workdir / f"{name}.eml"
        file.write_bytes(
            f"From: {name} <{name.lower()}@example.org>\r\nTo: verteller@example.org\r\n"
            f"Subject: WW9\r\nMessage-ID: <signup{i}@example.org>\r\n\r\n{name}, vrouw\r\n".encode()
        )
        files.append(str(file))
    assert _run(capsys, "inject", *files)[0] == 0
    status, out, err = _run(capsys, "game", "start", "WW9", "--seed", "3", "--json")
    assert status == 0, err
    view: dict[str, Any] = json.loads(out)
    return view


def _stories(workdir: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(workdir / "narrator.db") as db:
        rows = db.execute("select recipient, raw from outbox where kind = 'story' order by id")
        found = []
        for recipient, raw in rows:
            message = email.message_from_bytes(raw if isinstance(raw, bytes) else raw.encode())
            text = next(
                part.get_payload(decode=True).decode()
                for part in message.walk()
                if part.get_content_type() == "text/plain"
            )
            found.append((recipient, text))
    return found


def test_a_removed_player_dies_every_player_is_told_and_the_game_goes_on(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    view = _started(workdir, capsys)
    step = view["step"]
    wolf = next(p["name"] for p in view["players"] if p["role"] == "weerwolf")
    target = next(p["name"] for p in view["players"] if p["role"] == "jager")
    vote = workdir / "vote.eml"
    vote.write_bytes(
        f"From: {wolf} <{wolf.lower()}@example.org>\r\nTo: verteller@example.org\r\n"
        f"Subject: Re: WW9\r\nMessage-ID: <vote@example.org>\r\n\r\n{target}\r\n".encode()
    )
    assert _run(capsys, "inject", str(vote))[0] == 0
    with sqlite3.connect(workdir / "narrator.db") as db:
        assert db.execute("select count(*) from votes").fetchone() == (1,)
    assert target == "Bea"  # the seed deals her the Jager
    status, out, err = _run(capsys, "game", "remove", "WW9", "bea", "--json")
    assert status == 0, err
    after = json.loads(out)
    assert after["step"] == step and after["deadline"] == view["deadline"]
    alive = {p["name"]: p["alive"] for p in after["players"]}
    assert alive == {"Anna": True, "Bea": False, "Cor": True, "Dina": True, "Els": True}
    stories = _stories(workdir)
    assert len(stories) == 5  # one village story to each player, Bea too
    assert all("Bea" in text and "spelleiding" in text for _to, text in stories)
    with sqlite3.connect(workdir / "narrator.db") as db:
        last = db.execute("select kind, payload from game_log order by seq desc")
        kind, payload = last.fetchone()
    assert kind == "remove"
    logged = json.loads(payload)
    assert logged["player"] == "Bea" and logged["by"].startswith("cli:")
    assert [e["type"] for e in logged["events"]] == ["removed", "death"]
    assert logged["events"][1]["cause"] == "verwijderd"
    with sqlite3.connect(workdir / "narrator.db") as db:  # the wolf's vote for her is withdrawn
        assert db.execute("select count(*) from votes").fetchone() == (0,)

    # Twice is refused with a one-line error; an unknown player too.
    status, _, err = _run(capsys, "game", "remove", "WW9", "Bea")
    assert status == 2 and "already dead" in err and err.count("\n") == 1
    status, _, err = _run(capsys, "game", "remove", "WW9", "Zoe")
    assert status == 2 and "no player called" in err

    # The log replays through the removal: the next close resolves from the stored state
    # and the replayed one alike (games.replay is what the pages and the epilogue read).
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from narrator.db import make_engine
    from narrator.models import Game, GameLogEntry
    from narrator.service.games import replay
    from rules.core.registry import get_ruleset

    engine = make_engine(f"sqlite:///{workdir / 'narrator.db'}")
    with Session(engine) as session:
        game = session.scalars(select(Game).where(Game.name == "WW9")).one()
        entries = session.scalars(
            select(GameLogEntry).where(GameLogEntry.game_id == game.id).order_by(GameLogEntry.seq)
        ).all()
        rs = get_ruleset("wakkerdam")
        replayed = replay(game, entries)
        stored = rs.load_state(game.state)
        assert rs.dump_state(replayed) == rs.dump_state(stored)
    engine.dispose()
    assert _run(capsys, "game", "close-step", "WW9")[0] == 0


def test_a_game_not_started_has_nobody_to_remove(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "db", "upgrade")[0] == 0
    assert _run(capsys, "game", "create", "WW9")[0] == 0
    file = workdir / "anna.eml"
    file.write_bytes(
        b"From: Anna <anna@example.org>\r\nTo: verteller@example.org\r\nSubject: WW9\r\n"
        b"Message-ID: <signup@example.org>\r\n\r\nAnna, vrouw\r\n"
    )
    assert _run(capsys, "inject", str(file))[0] == 0
    status, _, err = _run(capsys, "game", "remove", "WW9", "Anna")
    assert status == 2 and "not running" in err


def test_removing_the_last_wolf_ends_the_game_with_its_mails(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    view = _started(workdir, capsys)
    wolves = [p["name"] for p in view["players"] if p["role"] == "weerwolf"]
    assert len(wolves) == 1
    status, out, err = _run(capsys, "game", "remove", "WW9", wolves[0], "--json")
    assert status == 0, err
    after = json.loads(out)
    assert after["state"] == "ended" and after["step"] is None and after["deadline"] is None
    assert "burgers" in after["teams"] and wolves[0] not in after["winners"]
    with sqlite3.connect(workdir / "narrator.db") as db:
        kinds = dict(db.execute("select kind, count(*) from outbox group by kind").fetchall())
    assert kinds["game_over"] == 5 and kinds["epilogue"] == 5
    status, _, err = _run(capsys, "game", "remove", "WW9", "Anna")
    assert status == 2 and "not running" in err
