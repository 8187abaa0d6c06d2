"""The daemon compiles the mail layout at its start (Mailer.prepare), not at its first mail."""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2 import Template

from narrator.config import load_config
from narrator.daemon import Daemon, DaemonOptions
from tests.daemon.driver import NARRATOR
from tests.support.aio import run_async
from tests.support.layouts import count_layout_compiles

OPTIONS = DaemonOptions(inbox_interval=30.0, scheduler_poll=30.0, outbox_poll=30.0)


def test_the_daemon_compiles_the_mail_layout_before_its_first_mail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(
        "[web]\nenabled = false\n"
        f'[narrator]\ndatabase = "sqlite:///{tmp_path / "narrator.db"}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nenabled = false\n[outbound]\nmaildir = "{tmp_path / "outbox"}"\n',
        encoding="utf-8",
    )
    config = load_config(path, environ={})
    compiled = count_layout_compiles(monkeypatch)

    async def scenario() -> Template:
        async with Daemon(config, options=OPTIONS) as daemon:
            assert len(compiled) == 1  # at the start, before any mail
            assert daemon.mailer is not None
            return daemon.mailer.renderer.layout

    assert run_async(scenario()) is compiled[0]
    assert len(compiled) == 1
