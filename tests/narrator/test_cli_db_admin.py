"""`narrator db …` and `narrator admin …` against real databases (SQLite file, PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from narrator.cli import main
from narrator.db import current_revision, head_revision
from tests.narrator.fixtures import BACKENDS, CliResult


def _error(result: CliResult, fragment: str) -> None:
    assert result.status == 2, result
    assert result.err.count("\n") == 1, result.err
    assert result.err.startswith("narrator: error: ")
    assert fragment in result.err, result.err


def _config(tmp_path: Path, url: str, extra: str = "") -> Path:
    path = tmp_path / "fresh.toml"
    path.write_text(f'[narrator]\ndatabase = "{url}"\n{extra}', encoding="utf-8")
    return path


@pytest.mark.parametrize("backend", BACKENDS)
def test_db_upgrade_creates_the_schema_and_reports_it(
    backend: str,
    fresh_database: Callable[[str], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = fresh_database(backend)
    config = str(_config(tmp_path, url))
    assert main(["db", "upgrade", "--config", config]) == 0
    assert f"upgraded from empty to {head_revision()}" in capsys.readouterr().out
    assert current_revision(url) == head_revision()
    assert main(["db", "upgrade", "--config", config]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["db", "current", "--json", "--config", config]) == 0
    current = json.loads(capsys.readouterr().out)
    assert current["revision"] == current["head"] == head_revision()
    assert main(["db", "downgrade", "base", "--config", config]) == 0
    assert current_revision(url) is None


def test_db_errors_hide_the_password(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, "postgresql+psycopg://u:sekrit@127.0.0.1:1/nothing")
    assert main(["db", "current", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "sekrit" not in err and "***" in err and err.count("\n") == 1


def test_db_upgrade_to_an_unknown_revision_is_an_error(
    fresh_database: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, fresh_database("sqlite"))
    assert main(["db", "upgrade", "nosuch", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and err.count("\n") == 1


def test_commands_on_an_unmigrated_database_say_to_upgrade(
    fresh_database: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, fresh_database("sqlite"))
    assert main(["admin", "list", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "narrator db upgrade" in err and err.count("\n") == 1


def test_db_upgrade_uses_narrator_toml_of_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "narrator.toml").write_text(
        '[narrator]\ndatabase = "sqlite:///games.db"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["db", "upgrade"]) == 0
    assert current_revision(f"sqlite:///{tmp_path / 'games.db'}") == head_revision()


def test_admin_add_list_remove(run_cli: Callable[..., CliResult]) -> None:
    assert run_cli("admin", "list").out.startswith("no administrators")
    added = run_cli("admin", "add", "Beheer@Example.org")
    assert (added.status, added.out) == (0, "added administrator beheer@example.org\n")
    assert run_cli("admin", "add", "tweede@example.org").status == 0
    assert run_cli("admin", "list").out == "beheer@example.org\ntweede@example.org\n"
    rows = [json.loads(line) for line in run_cli("admin", "list", "--json").out.splitlines()]
    assert rows == [
        {"email": "beheer@example.org", "source": "database"},
        {"email": "tweede@example.org", "source": "database"},
    ]
    _error(run_cli("admin", "add", "BEHEER@example.org"), "already an administrator")
    assert run_cli("admin", "remove", "beheer@EXAMPLE.org").status == 0
    assert run_cli("admin", "list").out == "tweede@example.org\n"
    _error(run_cli("admin", "remove", "beheer@example.org"), "is not an administrator")


@pytest.mark.parametrize("address", ["beheer", "be heer@example.org", "a@b", "<a@example.org>"])
def test_admin_add_refuses_what_is_not_an_address(
    run_cli: Callable[..., CliResult], address: str
) -> None:
    _error(run_cli("admin", "add", address), "not an e-mail address")


def test_admins_of_the_config_file_are_listed_but_not_removable(
    run_cli: Callable[..., CliResult], config_file: Path
) -> None:
    with config_file.open("a", encoding="utf-8") as file:
        file.write('[admins]\nemails = ["Cfg@example.org"]\n')
    run_cli("admin", "add", "db@example.org")
    rows = [json.loads(line) for line in run_cli("admin", "list", "--json").out.splitlines()]
    assert rows == [
        {"email": "cfg@example.org", "source": "config"},
        {"email": "db@example.org", "source": "database"},
    ]
    _error(run_cli("admin", "remove", "cfg@example.org"), "by the configuration file")
