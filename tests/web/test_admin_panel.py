"""The admin panel over HTTP (the real server on loopback): logging in, its refusals (a wrong
password, too many attempts, a form without its CSRF token, a forged or expired session), its
pages, and each action, which does what the CLI does and is recorded with who did it."""

from __future__ import annotations

import html
import io
import logging
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.commands.game import game_view
from narrator.db import transaction
from narrator.models import (
    Admin,
    AdminAction,
    AdminPassword,
    Game,
    GameStatus,
    OutboxMessage,
    game_players,
)
from narrator.service.work import work_in
from narrator.web.auth import (
    SESSION_COOKIE,
    AdminSession,
    LoginLimiter,
    check_password,
    csrf_token,
    fingerprint,
    read_session,
    session_cookie,
)
from tests.narrator.fixtures import CliResult
from tests.support.admin import (
    BOSS,
    PASSWORD,
    SECRET,
    AdminClient,
    csrf_of,
    panel_site,
    set_password,
    store_hash,
)
from tests.support.botgame import BotGame
from tests.support.bymail import Clock, Table
from tests.support.web import serving

GAME = BotGame(
    "wakkerdam",
    "en",
    "Harbour",
    (("Anna", "vrouw"), ("Bram", "man"), ("Carla", "vrouw"), ("Dirk", "man"), ("Eva", "vrouw")),
    seed=3,
)


def _game(factory: sessionmaker[Session], name: str = GAME.name) -> Game:
    with transaction(factory) as session:
        game = session.scalars(select(Game).where(Game.name == name)).one()
        session.expunge(game)
        return game


def _actions(factory: sessionmaker[Session]) -> list[tuple[str, str, str]]:
    with transaction(factory) as session:
        rows = session.scalars(select(AdminAction).order_by(AdminAction.id)).all()
        return [(row.by, row.action, row.game) for row in rows]


# --- the keys --------------------------------------------------------------------------------


def test_a_session_cookie_is_signed_and_expires() -> None:
    session = AdminSession(BOSS, 2_000, "nonce", "print")
    cookie = session_cookie(SECRET, session)
    assert read_session(SECRET, cookie, 1_999.0) == session
    assert read_session(SECRET, cookie, 2_000.0) is None  # expired
    assert read_session("another key", cookie, 1_000.0) is None
    signature = cookie.rsplit(".", 1)[1]
    forged = session_cookie("another key", AdminSession("eve@example.org", 9_999, "n", "p"))
    assert read_session(SECRET, f"{forged.rsplit('.', 1)[0]}.{signature}", 1_000.0) is None
    assert read_session(SECRET, "garbage", 1_000.0) is None
    assert read_session(SECRET, None, 1_000.0) is None


def test_a_password_is_kept_as_an_argon2_hash(
    run_cli: Callable[..., CliResult],
    sessions: sessionmaker[Session],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def password(email: str, typed: str) -> CliResult:
        monkeypatch.setattr(sys, "stdin", io.StringIO(typed + "\n"))
        return run_cli("admin", "password", email, "--stdin")

    refused = password("eve@example.org", PASSWORD)
    assert refused.status == 2 and "not an administrator" in refused.err
    assert run_cli("admin", "add", BOSS).status == 0
    short = password(BOSS, "short")
    assert short.status == 2 and "at least 12 characters" in short.err
    done = password(BOSS, PASSWORD)
    assert done.status == 0, done.err
    with transaction(sessions) as session:
        row = session.get(AdminPassword, BOSS)
        assert row is not None and row.hash.startswith("$argon2id$")
        assert PASSWORD not in row.hash
        first = row.hash
    assert check_password(first, PASSWORD) and not check_password(first, PASSWORD + "!")
    assert password(BOSS, "another long password").status == 0
    with transaction(sessions) as session:
        row = session.get(AdminPassword, BOSS)
        assert row is not None and row.hash != first
    assert run_cli("admin", "remove", BOSS).status == 0
    with transaction(sessions) as session:  # removed, he would need a new one
        assert session.get(AdminPassword, BOSS) is None


def test_the_cli_records_who_acted(
    run_cli: Callable[..., CliResult],
    sessions: sessionmaker[Session],
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="narrator.admin"):
        assert run_cli("game", "create", "WW5").status == 0
        assert run_cli("game", "pause", "WW5").status == 2  # not running: nothing recorded
    [(by, action, game)] = _actions(sessions)
    assert by.startswith("cli") and (action, game) == ("create", "WW5")
    assert any("admin action create on WW5 by cli" in r.getMessage() for r in caplog.records)


# --- logging in --------------------------------------------------------------------------------


def test_an_admin_logs_in_and_out(factory: sessionmaker[Session], boss_hash: str) -> None:
    store_hash(factory, BOSS, boss_hash)
    with serving(panel_site(factory)) as root:
        client = AdminClient(root)
        first = client.get("/admin")
        assert first.status == 303 and first.headers["location"].endswith("/admin/login")
        form = client.get("/admin/login")
        assert form.status == 200
        assert "default-src 'none'" in form.headers["content-security-policy"]
        assert form.headers["cache-control"] == "no-store"
        login_cookie = form.headers["set-cookie"]
        assert "HttpOnly" in login_cookie and "SameSite=strict" in login_cookie
        assert "Path=/admin" in login_cookie
        answer = client.post(
            "/admin/login", {"csrf": csrf_of(form), "email": BOSS.upper(), "password": PASSWORD}
        )
        assert answer.status == 303, answer.text
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith(f"{SESSION_COOKIE}=")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/admin" in cookie
        assert "Secure" not in cookie  # http://: a Secure cookie would never come back
        games = client.get("/admin")
        assert games.status == 200 and "Games" in games.text and f"Log out {BOSS}" in games.text
        # Logging out needs the form's token; then the session is gone.
        assert client.post("/admin/logout", {"csrf": "x"}).status == 403
        out = client.post("/admin/logout", {"csrf": csrf_of(games)})
        assert out.status == 303
        assert client.get("/admin").status == 303


def test_a_wrong_password_or_a_stranger_gets_nothing(
    factory: sessionmaker[Session], caplog: pytest.LogCaptureFixture, boss_hash: str
) -> None:
    store_hash(factory, BOSS, boss_hash)
    set_password(factory, "gone@example.org", PASSWORD)  # a password, but no admin any more
    with serving(panel_site(factory)) as root, caplog.at_level(logging.INFO):
        client = AdminClient(root)
        for email, password in (
            (BOSS, PASSWORD + "x"),
            ("gone@example.org", PASSWORD),
            ("eve@example.org", PASSWORD),
            (BOSS, ""),
        ):
            answer = client.login(email, password)
            assert answer.status == 403, (email, answer.status)
            assert "Wrong address or password." in answer.text
            assert client.cookie(SESSION_COOKIE) is None
            assert client.get("/admin").status == 303
        # The login form itself wants its token (a page elsewhere cannot log anybody in).
        bare = AdminClient(root).post("/admin/login", {"email": BOSS, "password": PASSWORD})
        assert bare.status == 403 and "expired" in bare.text
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert PASSWORD not in logged and "failed" in logged


def test_failed_logins_are_limited_per_address_and_per_client(
    factory: sessionmaker[Session],
    boss_hash: str,
) -> None:
    store_hash(factory, BOSS, boss_hash)
    now = [0.0]
    limiter = LoginLimiter(per_address=3, per_client=5, window=600.0, clock=lambda: now[0])
    with serving(panel_site(factory, limiter=limiter)) as root:
        client = AdminClient(root)
        for _ in range(3):
            assert client.login(BOSS, "wrong password!").status == 403
        # The address waits, even with the right password …
        limited = client.login(BOSS, PASSWORD)
        assert limited.status == 429 and "Too many failed attempts" in limited.text
        # … and so does the client after trying other addresses.
        assert client.login("a@example.org", "wrong password!").status == 403
        assert client.login("b@example.org", "wrong password!").status == 403  # 5 failures
        assert client.login("c@example.org", "wrong password!").status == 429
        now[0] += 601.0  # the window has passed
        assert client.login(BOSS, PASSWORD).status == 303
        assert client.get("/admin").status == 200


def test_a_forged_expired_or_outdated_session_opens_nothing(
    factory: sessionmaker[Session],
    boss_hash: str,
) -> None:
    store_hash(factory, BOSS, boss_hash)
    with transaction(factory) as session:
        session.add(Admin(email="ann@example.org"))
    set_password(factory, "ann@example.org", PASSWORD)
    table = Table(factory, language="en")
    GAME.open(table)
    with serving(panel_site(factory)) as root:
        client = AdminClient(root)
        assert client.login().status == 303
        page = client.get(f"/admin/games/{GAME.name}")
        assert page.status == 200
        token = csrf_of(page)
        real = client.cookie(SESSION_COOKIE)
        assert real is not None
        session = read_session(SECRET, real, 0)
        assert session is not None

        def refused(cookie: str) -> None:
            client.set_cookie(SESSION_COOKIE, cookie)
            assert client.get("/admin").status == 303
            assert client.get(f"/admin/games/{GAME.name}").status == 303
            answer = client.post(f"/admin/games/{GAME.name}/start", {"csrf": token})
            assert answer.status == 403

        forged = session_cookie("not the key", session)
        refused(forged)
        payload, signature = real.rsplit(".", 1)
        refused(f"{payload[:-2]}AA.{signature}")  # the payload changed, the signature kept
        expired = AdminSession(session.email, 1_000, session.nonce, session.fingerprint)
        refused(session_cookie(SECRET, expired))
        # A new password ends the sessions opened with the old one.
        client.set_cookie(SESSION_COOKIE, real)
        assert client.get("/admin").status == 200
        set_password(factory, BOSS, "a brand new password")
        refused(real)
        # So does no longer being an admin.
        other = AdminClient(root)
        assert other.login("ann@example.org").status == 303
        assert other.get("/admin").status == 200
        with transaction(factory) as db:
            db.delete(db.scalars(select(Admin)).one())
        assert other.get("/admin").status == 303
        assert other.cookie(SESSION_COOKIE) is None  # the void cookie is deleted
        assert other.get("/admin/login").status == 200  # the login form, not a loop
        # No session at all: no page, no action.
        nobody = AdminClient(root)
        assert nobody.get(f"/admin/games/{GAME.name}").status == 303
        assert nobody.post(f"/admin/games/{GAME.name}/start", {"csrf": token}).status == 403
        assert nobody.post("/admin/games", {"name": "X", "csrf": token}).status == 403
    assert _game(factory).status == GameStatus.SIGNUP.value
    assert _actions(factory) == []


def test_an_action_without_its_csrf_token_is_refused(
    factory: sessionmaker[Session], boss_hash: str
) -> None:
    store_hash(factory, BOSS, boss_hash)
    table = Table(factory, language="en")
    GAME.open(table)
    with serving(panel_site(factory)) as root:
        client = AdminClient(root)
        assert client.login().status == 303
        session = read_session(SECRET, client.cookie(SESSION_COOKIE), 0)
        assert session is not None
        other_nonce = csrf_token(SECRET, "another session's nonce")
        for fields in ({}, {"csrf": ""}, {"csrf": other_nonce}, {"csrf": csrf_token("k", "n")}):
            answer = client.post(f"/admin/games/{GAME.name}/start", fields)
            assert answer.status == 403, fields
            assert client.post("/admin/games", {**fields, "name": "Other"}).status == 403
        assert fingerprint("x") != session.fingerprint
    assert _game(factory).status == GameStatus.SIGNUP.value
    with transaction(factory) as db:
        assert db.scalars(select(Game.name)).all() == [GAME.name]


# --- the pages -------------------------------------------------------------------------------


def test_the_pages_show_games_players_votes_log_help_distributions_and_stories(
    factory: sessionmaker[Session],
    boss_hash: str,
) -> None:
    store_hash(factory, BOSS, boss_hash)
    table = Table(factory, language="en")
    GAME.open(table)
    GAME.start(table)
    roles = table.roles()
    # A Help mail, with markup in it (shown as text), and a vote of this step.
    table.write("Anna", "<script>alert(1)</script> how do I vote?", f"Help {GAME.name}")
    with serving(panel_site(factory)) as root:
        client = AdminClient(root)
        assert client.login().status == 303
        index = client.get("/admin")
        row = re.search(r'<table class="admin" id="games">.*?</table>', index.body, re.S)
        assert row is not None and GAME.name in row.group(0) and "running" in row.group(0)
        detail = client.get(f"/admin/games/{GAME.name}")
        assert detail.status == 200
        text = detail.text
        for name, role in roles.items():
            assert re.search(rf"{name} {name.lower()}@example.org {role} alive", text), name
        assert "Game log" in text and "start" in text
        assert "Close step" in text and "Pause" in text and "Start the game" not in text
        help_page = client.get("/admin/help")
        assert "anna@example.org" in help_page.text and f"game {GAME.name}" in help_page.text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in help_page.body
        assert "<script>" not in help_page.body
        distributions = client.get("/admin/distributions?ruleset=wakkerdam")
        assert distributions.status == 200 and "builtin" in distributions.text
        stories = client.get("/admin/stories?ruleset=wakkerdam&lang=en&theme=wakkerdam&event=role")
        assert stories.status == 200 and "=== wakkerdam/en/wakkerdam/role variant 1" in stories.text
        assert "Subject:" in stories.text
        unknown = client.get("/admin/stories?event=nothing")
        assert "unknown event or mail" in unknown.text
        assert client.get("/admin/games/NoSuchGame").status == 404


# --- the actions -----------------------------------------------------------------------------


def test_each_action_does_what_the_cli_does_and_is_recorded(
    factory: sessionmaker[Session],
    boss_hash: str,
) -> None:
    store_hash(factory, BOSS, boss_hash)
    table = Table(factory, language="en")
    changes: list[int] = []
    site = panel_site(factory, clock=table.clock, on_change=lambda: changes.append(1))
    with serving(site) as root:
        client = AdminClient(root)
        assert client.login().status == 303
        index = client.get("/admin")
        created = client.post(
            "/admin/games",
            {
                "csrf": csrf_of(index),
                "name": GAME.name,
                "ruleset": "wakkerdam",
                "lang": "en",
                "speed": "1d",
                "tz": "Europe/Amsterdam",
                "strictness": "9",
            },
        )
        assert created.status == 303, created.text
        assert created.headers["location"].endswith(f"/admin/games/{GAME.name}")
        game = _game(factory)
        assert (game.status, game.language, game.speed) == ("signup", "en", 86400)
        again = client.post("/admin/games", {"csrf": csrf_of(index), "name": GAME.name})
        assert again.status == 409 and "already exists" in again.text
        for player, gender in GAME.players:
            assert table.write(player, f"{player}, {gender}", GAME.name) == f"signup: {player}"

        def act(verb: str, **fields: str) -> str:
            page = client.get(f"/admin/games/{GAME.name}")
            answer = client.post(
                f"/admin/games/{GAME.name}/{verb}", {"csrf": csrf_of(page), **fields}
            )
            assert answer.status == 303, answer.text
            done = client.get(answer.headers["location"].removeprefix(root))
            match = re.search(r'<div class="box now" id="done"><p>Done: (.*?)</p>', done.body, re.S)
            assert match is not None
            return html.unescape(match.group(1))

        assert act("start", seed="3").startswith(f"started {GAME.name} with distribution")
        game = _game(factory)
        assert (game.status, game.seed, game.step_number) == ("running", 3, 1)
        with transaction(factory) as db:
            kinds = db.scalars(select(OutboxMessage.kind)).all()
        assert kinds.count("role") == len(GAME.players)  # the same mails as `game start`
        assert act("close-step").startswith(f"closed step {game.step} of {GAME.name}")
        assert _game(factory).step_number == 2
        deadline = _game(factory).deadline
        assert deadline is not None
        assert act("extend", by="1h").startswith(f"extended {GAME.name} by 1h")
        assert _game(factory).deadline == deadline + timedelta(hours=1)
        assert act("pause") == f"paused {GAME.name}"
        assert _game(factory).status == "paused"
        # What the game's status does not allow is refused, saying why; nothing is recorded.
        page = client.get(f"/admin/games/{GAME.name}")
        refused = client.post(f"/admin/games/{GAME.name}/pause", {"csrf": csrf_of(page)})
        assert refused.status == 409 and "is not running" in refused.text
        bad = client.post(f"/admin/games/{GAME.name}/extend", {"csrf": csrf_of(page), "by": "x"})
        assert bad.status == 409 and "DURATION" in bad.text
        assert act("resume").startswith(f"resumed {GAME.name}")
        assert _game(factory).status == "running"
        assert "no longer receives the group mails" in act("unsubscribe", player="Anna")
        assert act("revoke-link", player="Bram").startswith("revoked the personal link of Bram")
        with transaction(factory) as db:
            players = {p.name: p for p in game_players(db, db.scalars(select(Game)).one())}
            assert players["Anna"].unsubscribed and players["Bram"].page_generation == 1
        nobody = client.post(
            f"/admin/games/{GAME.name}/unsubscribe", {"csrf": csrf_of(page), "player": "Zoe"}
        )
        assert nobody.status == 409 and "no player called 'Zoe'" in nobody.text
        unknown = client.post(f"/admin/games/{GAME.name}/explode", {"csrf": csrf_of(page)})
        assert unknown.status == 404
        # Removing a player: the ruleset's way (Wakkerdam: a death by removal), told to all.
        mails_before = len(_kinds(factory))
        removed = act("remove", player="Carla")
        assert removed.startswith(f"removed Carla from {GAME.name}"), removed
        with transaction(factory) as db, work_in(db) as work:
            seats = game_view(work, db.scalars(select(Game)).one())["players"]
        assert {p["name"]: p["alive"] for p in seats}["Carla"] is False
        assert len(_kinds(factory)) - mails_before >= len(GAME.players) - 1  # everyone told
        log = client.get(f"/admin/games/{GAME.name}").text
        assert f"{BOSS} {GAME.name} revoke-link" in log
        assert f"{BOSS} {GAME.name} remove" in log
    verbs = [
        "create",
        "start",
        "close-step",
        "extend",
        "pause",
        "resume",
        "unsubscribe",
        "revoke-link",
        "remove",
    ]
    assert _actions(factory) == [(BOSS, verb, GAME.name) for verb in verbs]
    assert len(changes) == len(verbs)  # the daemon was told of each at once


def _kinds(factory: sessionmaker[Session]) -> list[str]:
    with transaction(factory) as db:
        return list(db.scalars(select(OutboxMessage.kind)))


def test_without_the_key_there_is_no_panel(factory: sessionmaker[Session], boss_hash: str) -> None:
    store_hash(factory, BOSS, boss_hash)
    with serving(replace(panel_site(factory), secret=None)) as root:
        client = AdminClient(root)
        assert client.get("/admin").status == 404
        assert client.get("/admin/login").status == 404
        assert client.post("/admin/login", {"email": BOSS, "password": PASSWORD}).status == 404


def test_a_session_ends_eight_hours_after_the_login(
    factory: sessionmaker[Session], boss_hash: str
) -> None:
    store_hash(factory, BOSS, boss_hash)
    clock = Clock()
    with serving(panel_site(factory, clock=clock)) as root:
        client = AdminClient(root)
        assert client.login().status == 303
        clock.now += timedelta(hours=8) - timedelta(seconds=1)
        assert client.get("/admin").status == 200
        clock.now += timedelta(seconds=1)
        assert client.get("/admin").status == 303
