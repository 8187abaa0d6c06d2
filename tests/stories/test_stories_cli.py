"""`narrator stories …` against a real (SQLite) database."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from narrator.cli import main
from stories import default_pack_root


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "narrator.toml"
    path.write_text(f'[narrator]\ndatabase = "sqlite:///{tmp_path / "n.db"}"\n')
    assert main(["--config", str(path), "db", "upgrade"]) == 0
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_of_the_shipped_packs_passes(
    capsys: pytest.CaptureFixture[str], check_store_once: Callable[[], int]
) -> None:
    code, out, _ = run(capsys, "stories", "check", "--files")
    assert code == 0 and " 0 problems" in out
    assert check_store_once() == 1  # the shipped packs, checked once for the session


def test_add_list_preview_remove(
    config: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    check_store_once: Callable[[], int],
) -> None:
    code, out, _ = run(capsys, "stories", "add", "--defaults", "--config", config)
    assert code == 0 and "added" in out
    code, out, _ = run(capsys, "stories", "list", "--json", "--config", config, "--event", "death")
    rows = [json.loads(line) for line in out.splitlines()]
    assert {"ruleset": "wakkerdam", "language": "nl", "theme": "wakkerdam", "event": "death",
            "variant": 2} in rows  # fmt: skip
    assert run(capsys, "stories", "check", "--config", config)[0] == 0
    assert check_store_once() == 1  # the database holds exactly the shipped packs

    pack = tmp_path / "wakkerdam" / "nl" / "wakkerdam"
    pack.mkdir(parents=True)
    mine = pack / "death.4.j2"  # the shipped packs have three
    mine.write_text("{{ event.player }} is dood; {{ hij(event.player) }} rust in vrede.\n")
    code, out, _ = run(capsys, "stories", "add", str(mine), "--config", config)
    assert code == 0 and "added wakkerdam/nl/wakkerdam/death variant 4" in out
    code, _, err = run(capsys, "stories", "add", str(mine), "--config", config)
    assert code == 0  # the same text again changes nothing
    mine.write_text("{{ event.player }} is heen.\n")
    code, _, err = run(capsys, "stories", "add", str(mine), "--config", config)
    assert code == 2 and "--replace" in err and err.count("\n") == 1
    assert run(capsys, "stories", "add", str(mine), "--replace", "--config", config)[0] == 0
    code, out, _ = run(capsys, "stories", "preview", "death", "--variant", "4", "--config", config)
    assert code == 0 and "Anna is heen." in out
    code, out, _ = run(capsys, "stories", "remove", "death", "--variant", "4", "--config", config)
    assert code == 0 and "removed 1" in out


@pytest.mark.parametrize(
    "source",
    ["{{ cycler.__init__.__globals__ }}", "{{ ''.__class__.__mro__ }}", "{% if %}", "{{ config }}"],
)
def test_add_refuses_a_bad_template(
    config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    path = tmp_path / "evil.j2"
    path.write_text(source)
    code, _, err = run(capsys, "stories", "add", str(path), "--event", "death", "--config", config)
    assert code == 2 and "not stored" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "stories", "list", "--config", config)
    assert out == ""


def test_preview_of_a_file_not_yet_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = default_pack_root() / "wakkerdam" / "en" / "wakkerdam" / "receipt.j2"
    copy = tmp_path / "receipt.j2"
    shutil.copy(source, copy)
    code, out, _ = run(capsys, "stories", "preview", str(copy), "--lang", "en", "--html")
    assert code == 0 and "Subject: WW5 — Vote received" in out and "<html" in out
