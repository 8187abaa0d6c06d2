"""`narrator parse --game NAME` reads the game's players and language from the database."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from narrator.cli import main


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def _eml(path: Path, name: str, sender: str, body: str, subject: str = "WW7") -> str:
    file = path / name
    file.write_bytes(
        f"From: {sender}\r\nTo: verteller@example.org\r\nSubject: {subject}\r\n"
        f"Message-ID: <{name}@example.org>\r\n\r\n{body}\r\n".encode()
    )
    return str(file)


def _parse(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["parse", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_players_and_language_come_from_the_stored_game(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["db", "upgrade"]) == 0
    assert main(["game", "create", "WW7", "--lang", "en"]) == 0
    signups = [
        _eml(workdir, f"s{i}.eml", f"{n.lower()}@example.org", f"{n}, vrouw")
        for i, n in enumerate(["Anneke", "Bregje", "Chantal"])
    ]
    assert main(["inject", *signups]) == 0
    assert main(["game", "start", "WW7", "--seed", "1"]) == 0
    capsys.readouterr()

    vote = _eml(workdir, "vote.eml", "anneke@example.org", "Ik stem op bregje.")
    result = _parse(capsys, vote, "--game", "WW7")
    assert result["kind"] == "vote" and result["targets"] == ["Bregje"]

    typo = _parse(
        capsys, _eml(workdir, "typo.eml", "anneke@example.org", "Chantel"), "--game", "WW7"
    )
    assert typo["targets"] == ["Chantal"]

    nobody = _parse(
        capsys, _eml(workdir, "none.eml", "anneke@example.org", "Dirk"), "--game", "WW7"
    )
    assert nobody["kind"] == "error" and nobody["code"] == "no-name"
    assert "Bregje" in str(nobody["message"])  # the valid choices, in the game's language

    # Nothing was changed: the game still has its three signups and no votes.
    assert main(["game", "show", "WW7", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in view["players"]] == ["Anneke", "Bregje", "Chantal"]
    assert view["state"] == "running"


def test_an_unknown_game_still_matches_the_subject(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mail = _eml(workdir, "m.eml", "x@example.org", "Anna, vrouw", subject="WW8")
    assert main(["parse", mail, "--game", "WW8", "--signup", "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["game"] == "WW8" and result["kind"] == "signup"
    assert "not found" in captured.err


def test_a_player_s_mail_is_read_with_his_moves_of_the_running_game(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``--game``, the mail is read as the inbox would read it now: Cupido's first-night
    mail takes two names (the sender's moves, from the game), where a mail read without the
    game's state takes one; ``--me`` reads it as that player's, ``--count`` overrides."""
    assert main(["db", "upgrade"]) == 0
    file = workdir / "drie.toml"
    file.write_text("players = 3\nroles = { cupido = 1, weerwolf = 1, burger = 1 }\n")
    assert main(["distributions", "add", str(file)]) == 0
    assert main(["game", "create", "WW9", "--lang", "en"]) == 0
    names = ["Anneke", "Bregje", "Chantal"]
    signups = [
        _eml(workdir, f"s{i}.eml", f"{n.lower()}@example.org", f"{n}, vrouw", subject="WW9")
        for i, n in enumerate(names)
    ]
    assert main(["inject", *signups]) == 0
    assert main(["game", "start", "WW9", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["game", "show", "WW9", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    cupido = next(p for p in view["players"] if p["role"] == "cupido")
    assert view["asked"] == [cupido["name"]], view
    others = [n for n in names if n != cupido["name"]]
    body = " ".join(others)

    sent = _eml(workdir, "pair.eml", cupido["email"], body, subject="WW9")
    read = _parse(capsys, sent, "--game", "WW9")
    assert read["kind"] == "vote" and sorted(read["targets"]) == sorted(others), read
    as_me = _parse(
        capsys,
        _eml(workdir, "other.eml", "nobody@example.org", body, subject="WW9"),
        "--game",
        "WW9",
        "--me",
        cupido["name"],
    )
    assert as_me["kind"] == "vote" and sorted(as_me["targets"]) == sorted(others), as_me
    one = _parse(capsys, sent, "--game", "WW9", "--count", "1")
    assert one["kind"] == "error", one
    assert main(["parse", sent, "--game", "WW9", "--me", "Zeno"]) != 0
    assert "no player of WW9" in capsys.readouterr().err
    assert main(["parse", sent, "--game", "WW9", "--lang", "ru"]) != 0
    assert "speaks en, nl" in capsys.readouterr().err
