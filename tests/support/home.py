"""A narrator's home for tests that run `narrator serve` beside the CLI: config, game, Maildir."""

from __future__ import annotations

import contextlib
import io
import mailbox
from collections import Counter
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path

from sqlalchemy import select

from narrator.cli import main as narrator_cli
from narrator.db import make_engine, session_factory, transaction
from narrator.models import Game, OutboxMessage, Player, find_game, fold_email, fold_name

NARRATOR = "verteller@example.org"
PLAYERS = [
    ("Anna", "vrouw"),
    ("Bram", "man"),
    ("Carla", "vrouw"),
    ("Dirk", "man"),
    ("Eva", "vrouw"),
    ("Frank", "man"),
    ("Greet", "vrouw"),
    ("Hans", "man"),
]
HEADERS = BytesHeaderParser(policy=compat32)


def write_home(home: Path, db_url: str, maildir: Path) -> Path:
    """A narrator.toml in ``home``: database ``db_url``, no receiver, mail out to ``maildir``,
    every other key (polls, lease) at its default."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "narrator.toml"
    config.write_text(
        "[web]\nport = 0\n"  # the game pages on any free port
        f'[narrator]\ndatabase = "{db_url}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nenabled = false\n[outbound]\nmaildir = "{maildir}"\n',
        encoding="utf-8",
    )
    return config


def cli(config: Path, *args: str) -> str:
    """Run ``narrator --config CONFIG ARGS`` in this process; return its stdout (fail if not 0)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = narrator_cli(["--config", str(config), *args])
    assert status == 0, f"narrator {' '.join(args)}: exit {status}: {err.getvalue()}"
    return out.getvalue()


def create_game(config: Path, db_url: str, name: str, *, speed: str = "2h") -> int:
    """``narrator game create`` and eight players signed up (straight into the database);
    returns the game's id."""
    cli(config, "game", "create", name, "--speed", speed)
    engine = make_engine(db_url)
    try:
        with transaction(session_factory(engine)) as session:
            game = find_game(session, name)
            assert game is not None
            for seat, (player, gender) in enumerate(PLAYERS, start=1):
                session.add(
                    Player(
                        game_id=game.id,
                        seat=seat,
                        name=player,
                        name_key=fold_name(player),
                        email=fold_email(f"{player.lower()}@spelers.example.org"),
                        gender=gender,
                    )
                )
            return game.id
    finally:
        engine.dispose()


def deadline_of(db_url: str, game_id: int) -> str | None:
    """The game's deadline as the scheduler logs it (ISO 8601), or None."""
    engine = make_engine(db_url)
    try:
        with transaction(session_factory(engine)) as session:
            deadline = session.scalar(select(Game.deadline).where(Game.id == game_id))
            return None if deadline is None else deadline.isoformat()
    finally:
        engine.dispose()


def outbox_ids(db_url: str) -> dict[str, str]:
    """Every outbox row: Message-ID (without <>) -> state."""
    engine = make_engine(db_url)
    try:
        with transaction(session_factory(engine)) as session:
            rows = session.execute(select(OutboxMessage.message_id, OutboxMessage.state)).all()
            return {message_id.strip("<>"): state for message_id, state in rows}
    finally:
        engine.dispose()


def maildir_ids(path: Path) -> Counter[str]:
    """How often each Message-ID (without <>) is in the Maildir ``path`` (none before it exists)."""
    if not (path / "new").is_dir():
        return Counter()
    box = mailbox.Maildir(path, create=False)
    ids: Counter[str] = Counter()
    for key in box.iterkeys():
        ids[str(HEADERS.parsebytes(box.get_bytes(key)).get("Message-ID", "")).strip("<> ")] += 1
    return ids
