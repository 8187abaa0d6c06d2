"""The admin panel (``/admin``): every game, a game's detail, the Help mails, the distributions
and story previews, and the CLI's actions on games, for the admins logged in.

An admin (an address of ``[admins] emails`` or ``narrator admin add``) logs in with the password
``narrator admin password`` set; the session is a signed cookie (:mod:`narrator.web.auth`:
HttpOnly, SameSite=Strict, Secure behind https, 8 hours), re-checked against the database on
every request.  Every form carries a CSRF token; failed logins are limited per address and per
client.  Every action calls what the CLI calls (:func:`narrator.commands.game.drive` and its
action builders, :func:`~narrator.commands.game.create_game`): the same game-service function,
recorded with the admin's address (``admin_actions`` and the log), announced to the daemon,
which acts on it at once.  The panel is in English, as the CLI is.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from narrator.cli import CommandError
from narrator.commands.game import (
    Action,
    NewGame,
    close_step_action,
    create_game,
    drive,
    extend_action,
    game_view,
    iso,
    open_game,
    pause_action,
    remove_action,
    resume_action,
    revoke_link_action,
    start_action,
    unsubscribe_action,
)
from narrator.config import Config
from narrator.db import transaction
from narrator.models import (
    AdminAction,
    AdminPassword,
    Game,
    GameLogEntry,
    GameStatus,
    InboxMessage,
    InboxState,
    Player,
    Vote,
    admin_emails,
    fold_email,
    game_players,
)
from narrator.service.mailer import Mailer
from narrator.service.wiring import utc_now
from narrator.service.work import Work, work_in
from narrator.web.auth import (
    LOGIN_COOKIE,
    SESSION_COOKIE,
    SESSION_SECONDS,
    AdminSession,
    LoginLimiter,
    check_password,
    csrf_token,
    fingerprint,
    is_csrf_valid,
    new_nonce,
    read_session,
    session_cookie,
)
from narrator.zones import zone_or_utc

log = logging.getLogger("narrator.admin")

HERE = Path(__file__).resolve().parent
#: The largest form the panel reads (a create form with options is a few hundred bytes).
MAX_FORM_BYTES = 64 * 1024
#: How many inbox rows the Help page looks through (newest first), and how many log lines,
#: votes and actions a page shows.
HELP_SCAN = 300
LOG_LINES = 200
RECENT_ACTIONS = 30
#: Admin pages are never cached (a shared computer's back button shows nothing).
NO_STORE = {"cache-control": "no-store"}


@dataclass(frozen=True)
class Panel:
    """What the panel needs besides the site: the configuration (the admins, the defaults of a
    new game), the daemon's mailer (an action's mails), who to tell that an action committed
    (the daemon's change handler, in the event loop), the login limits and the clock."""

    config: Config
    mailer: Mailer
    on_change: Callable[[], None] | None = None
    limiter: LoginLimiter = field(default_factory=LoginLimiter, compare=False)
    clock: Callable[[], datetime] = utc_now
    templates: Environment = field(default_factory=lambda: panel_templates(), compare=False)


@dataclass(frozen=True)
class PlayerAction:
    """An action on one player of a game: its `verb` (the URL's and the record's), the button's
    `label`, whether it is offered (`shown`, for the game and the player's row) and the
    action (`build`: the player's name and the admin's address)."""

    verb: str
    label: str
    shown: Callable[[Game, Mapping[str, Any]], bool]
    build: Callable[[str, str], Action]


def _open(game: Game) -> bool:
    return game.status != GameStatus.ENDED.value


#: The actions on a player, in the order of their buttons.
PLAYER_ACTIONS: tuple[PlayerAction, ...] = (
    PlayerAction(
        "unsubscribe",
        "Unsubscribe",
        lambda game, player: not player["unsubscribed"],
        lambda name, by: unsubscribe_action(name),
    ),
    PlayerAction(
        "revoke-link",
        "Revoke personal link",
        lambda game, player: _open(game),
        lambda name, by: revoke_link_action(name),
    ),
    PlayerAction(
        "remove",
        "Remove from the game",
        lambda game, player: (
            game.status in (GameStatus.RUNNING.value, GameStatus.PAUSED.value) and player["alive"]
        ),
        remove_action,
    ),
)


def _start(form: Mapping[str, str], by: str) -> Action:
    text = form.get("seed", "").strip()
    if text and not (text.isascii() and text.isdigit() and len(text) <= 18):
        raise CommandError(f"seed: a whole number, not {text!r}")
    return start_action(int(text) if text else None, form.get("distribution", "").strip() or None)


#: The actions on a game: verb -> (builder from the form and the admin, the statuses it is
#: offered in).
GAME_ACTIONS: Mapping[str, tuple[Callable[[Mapping[str, str], str], Action], tuple[str, ...]]] = {
    "start": (_start, (GameStatus.SIGNUP.value,)),
    "close-step": (lambda form, by: close_step_action(), (GameStatus.RUNNING.value,)),
    "pause": (lambda form, by: pause_action(), (GameStatus.RUNNING.value,)),
    "resume": (lambda form, by: resume_action(), (GameStatus.PAUSED.value,)),
    "extend": (
        lambda form, by: extend_action(form.get("by", "").strip()),
        (GameStatus.RUNNING.value, GameStatus.PAUSED.value),
    ),
}


def panel_templates() -> Environment:
    """The panel's templates (compiled on first use each, by the Panel built once per daemon)."""
    return Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )


# --- the site's parts the panel uses -------------------------------------------------------


@dataclass(frozen=True)
class _Where:
    """The panel's place: the database, the key, the path prefix, the cookies' Secure flag."""

    factory: Any  # sessionmaker[Session]
    secret: str
    root: str
    secure: bool
    panel: Panel

    @property
    def home(self) -> str:
        return f"{self.root}/admin"


def _page(
    where: _Where, name: str, admin: AdminSession | None, status: int = 200, **context: Any
) -> Response:
    context.setdefault("title", "Narrator admin")
    template = where.panel.templates.get_template(name)
    html = template.render(
        root=where.root,
        home=where.home,
        lang="en",
        wide=True,
        admin=admin.email if admin is not None else None,
        csrf=csrf_token(where.secret, admin.nonce) if admin is not None else "",
        **context,
    )
    return HTMLResponse(html, status_code=status, headers=NO_STORE)


def _forbidden(text: str = "Forbidden") -> Response:
    return PlainTextResponse(text, status_code=403, headers=NO_STORE)


async def _read_form(request: Request) -> dict[str, str] | None:
    """The urlencoded form of `request` (first value of each field), None when too large."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {key: values[0] for key, values in fields.items()}


def _session(where: _Where, request: Request) -> AdminSession | None:
    now = where.panel.clock().timestamp()
    return read_session(where.secret, request.cookies.get(SESSION_COOKIE), now)


def _is_admin(session: Session, where: _Where, admin: AdminSession) -> bool:
    """Whether the session's admin still is one, with the password he logged in with."""
    if admin.email not in admin_emails(session, tuple(where.panel.config.admins.emails)):
        return False
    row = session.get(AdminPassword, admin.email)
    return row is not None and hmac.compare_digest(
        fingerprint(row.hash).encode(), admin.fingerprint.encode()
    )


def _local(moment: datetime | None, timezone: str) -> str:
    if moment is None:
        return "—"
    local = moment.astimezone(zone_or_utc(timezone))
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


def _utc(moment: datetime | None) -> str:
    return "—" if moment is None else f"{moment:%Y-%m-%d %H:%M:%S} UTC"


# --- pages --------------------------------------------------------------------------------


def _actions_rows(session: Session, game: Game | None = None) -> list[dict[str, Any]]:
    query = select(AdminAction).order_by(AdminAction.id.desc()).limit(RECENT_ACTIONS)
    if game is not None:
        query = query.where(AdminAction.game_id == game.id)
    return [
        {
            "id": row.id,
            "at": _utc(row.at),
            "by": row.by,
            "action": row.action,
            "game": row.game,
            "detail": row.detail,
        }
        for row in session.scalars(query)
    ]


def _index(where: _Where, session: Session) -> dict[str, Any]:
    from rules import ruleset_ids

    counts = dict(
        session.execute(select(Player.game_id, func.count()).group_by(Player.game_id)).all()
    )
    games = session.scalars(select(Game).order_by(Game.created_at, Game.id)).all()
    config = where.panel.config
    return {
        "games": [
            {
                "name": game.name,
                "ruleset": game.ruleset,
                "state": game.status,
                "step": game.step or "—",
                "night": game.night,
                "day": game.day,
                "deadline": _local(game.deadline, game.timezone),
                "players": counts.get(game.id, 0),
            }
            for game in games
        ],
        "actions": _actions_rows(session),
        "rulesets": list(ruleset_ids()),
        "defaults": {
            "ruleset": config.narrator.ruleset,
            "language": config.narrator.language,
            "timezone": config.narrator.timezone,
        },
    }


def _game(where: _Where, work: Work, game: Game, done: int | None) -> dict[str, Any]:
    from narrator.commands.distributions import distribution_rows

    session = work.session
    view = game_view(work, game)
    rows = {p.name: p for p in game_players(session, game)}
    players = []
    for seat in view["players"]:
        row = rows[seat["name"]]
        player = {**seat, "unsubscribed": row.unsubscribed, "generation": row.page_generation}
        player["actions"] = [a for a in PLAYER_ACTIONS if a.shown(game, player)]
        players.append(player)
    votes = session.execute(
        select(Vote, Player.name)
        .join(Player, Player.id == Vote.player_id)
        .where(Vote.game_id == game.id, Vote.step_number == game.step_number)
        .order_by(Vote.cast_at, Vote.id)
    ).all()
    entries = session.scalars(
        select(GameLogEntry)
        .where(GameLogEntry.game_id == game.id)
        .order_by(GameLogEntry.seq.desc())
        .limit(LOG_LINES)
    ).all()
    actions = _actions_rows(session, game)
    distributions = []
    if game.status == GameStatus.SIGNUP.value and len(players) > 0:
        distributions = distribution_rows(session, game.ruleset, len(players))
    return {
        "title": f"{game.name} — Narrator admin",
        "game": game,
        "view": view,
        "deadline_local": _local(game.deadline, game.timezone),
        "deadline_utc": iso(game.deadline) or "—",
        "players": players,
        "votes": [
            {
                "player": name,
                "targets": ", ".join(vote.targets) or ("blank" if vote.blanco else "—"),
                "keywords": ", ".join(vote.keywords),
                "at": _utc(vote.cast_at),
            }
            for vote, name in votes
        ],
        "log": [
            {
                "seq": entry.seq,
                "at": _utc(entry.at),
                "kind": entry.kind,
                "payload": json.dumps(entry.payload, ensure_ascii=False, sort_keys=True),
            }
            for entry in entries
        ],
        "actions": actions,
        "done": next((a for a in actions if a["id"] == done), None),
        "offered": {
            verb for verb, (_, statuses) in GAME_ACTIONS.items() if game.status in statuses
        },
        "distributions": distributions,
    }


def _help(where: _Where, session: Session) -> dict[str, Any]:
    """The Help mails among the newest inbox rows: read as the inbox reads them."""
    from parsing import Help, parse_mail, route
    from stories.lexicon import help_words

    names = list(session.scalars(select(Game.name)))
    words = help_words()
    own = {fold_email(where.panel.config.narrator.address)}
    rows = session.scalars(
        select(InboxMessage)
        .where(InboxMessage.state != InboxState.IGNORED.value)
        .order_by(InboxMessage.id.desc())
        .limit(HELP_SCAN)
    ).all()
    mails = []
    for row in rows:
        parsed = parse_mail(row.raw)
        routed = route(parsed, names, own, help_words=words)
        if not isinstance(routed, Help):
            continue
        text = (parsed.full_text or parsed.body).strip()
        mails.append(
            {
                "at": _utc(row.received_at),
                "sender": parsed.sender,
                "name": parsed.sender_name,
                "game": routed.game or "—",
                "subject": parsed.raw_subject,
                "text": text[:2000],
                "state": row.state,
            }
        )
    return {"mails": mails, "scanned": len(rows)}


def _distributions(where: _Where, session: Session, ruleset: str) -> dict[str, Any]:
    from narrator.commands.distributions import distribution_rows
    from rules import ruleset_ids

    known = list(ruleset_ids())
    chosen = ruleset if ruleset in known else where.panel.config.narrator.ruleset
    rows = distribution_rows(session, chosen)
    for row in rows:
        row["roles_text"] = ", ".join(f"{count} {role}" for role, count in row["roles"].items())
        row["options_text"] = ", ".join(
            f"{key}={json.dumps(value)}"
            for key, value in row.items()
            if key not in ("id", "ruleset", "players", "roles", "source", "roles_text")
        )
    return {"rulesets": known, "chosen": chosen, "rows": rows}


def _stories(where: _Where, session: Session, query: Mapping[str, str]) -> dict[str, Any]:
    from narrator.commands.stories import preview_texts
    from narrator.storystore import runtime_store
    from rules import ruleset_ids
    from stories import Renderer, StoryError, StoryKey, StoryKeyError, all_keys

    config = where.panel.config
    events = list(all_keys())
    form = {
        "ruleset": query.get("ruleset") or config.narrator.ruleset,
        "lang": query.get("lang") or config.narrator.language,
        "theme": query.get("theme") or config.narrator.theme or config.narrator.ruleset,
        "event": query.get("event", ""),
        "sample": query.get("sample", "0"),
    }
    context: dict[str, Any] = {
        "form": form,
        "events": events,
        "rulesets": list(ruleset_ids()),
        "previews": [],
        "error": "",
    }
    if not form["event"]:
        return context
    try:
        if form["event"] not in events:
            raise CommandError(f"unknown event or mail {form['event']!r}")
        sample = form["sample"]
        if not (sample.isascii() and sample.isdigit() and len(sample) <= 3):
            raise CommandError(f"sample: a number from 0 to 999, not {sample!r}")
        try:
            key = StoryKey(form["ruleset"], form["lang"], form["theme"], form["event"]).checked()
        except StoryKeyError as error:
            raise CommandError(str(error)) from None
        renderer = Renderer(runtime_store(session))
        try:
            sources = list(renderer.variants(key))
        except StoryError as error:  # none for the key (StoryNotFound)
            raise CommandError(str(error)) from None
        context["previews"] = preview_texts(renderer, sources, sample=int(sample))
    except CommandError as error:
        context["error"] = str(error)
    return context


# --- the routes ---------------------------------------------------------------------------


def admin_routes(factory: Any, secret: str, root: str, base_url: str, panel: Panel) -> list[Route]:
    """The panel's routes (under ``/admin``) on the database of `factory`, signed with `secret`."""
    where = _Where(factory, secret, root, base_url.lower().startswith("https://"), panel)

    def to_login() -> Response:
        return RedirectResponse(f"{where.home}/login", status_code=303, headers=NO_STORE)

    def guarded(
        build: Callable[[Request, Session, AdminSession], Response],
    ) -> Callable[[Request], Awaitable[Response]]:
        """A GET page for a logged-in admin (else the login page)."""

        async def endpoint(request: Request) -> Response:
            admin = _session(where, request)
            if admin is None:
                return to_login()

            def read() -> Response | None:
                with transaction(where.factory) as session:
                    if not _is_admin(session, where, admin):
                        return None
                    return build(request, session, admin)

            page = await run_in_threadpool(read)
            if page is None:  # no admin any more, or another password: the cookie is void
                response = to_login()
                response.delete_cookie(SESSION_COOKIE, path=where.home)
                return response
            return page

        return endpoint

    def index(request: Request, session: Session, admin: AdminSession) -> Response:
        return _page(where, "admin_index.html", admin, **_index(where, session))

    def game_page(request: Request, session: Session, admin: AdminSession) -> Response:
        done_text = request.query_params.get("done", "")
        done = int(done_text) if done_text.isdigit() and len(done_text) < 12 else None
        with work_in(session) as work:
            try:
                game = open_game(session, request.path_params["name"])
            except CommandError:
                return PlainTextResponse("Not Found", status_code=404, headers=NO_STORE)
            context = _game(where, work, game, done)
        return _page(where, "admin_game.html", admin, error="", **context)

    def help_page(request: Request, session: Session, admin: AdminSession) -> Response:
        return _page(where, "admin_help.html", admin, **_help(where, session))

    def distributions_page(request: Request, session: Session, admin: AdminSession) -> Response:
        ruleset = request.query_params.get("ruleset", "")
        return _page(
            where, "admin_distributions.html", admin, **_distributions(where, session, ruleset)
        )

    def stories_page(request: Request, session: Session, admin: AdminSession) -> Response:
        query = {key: value[:200] for key, value in request.query_params.items()}
        return _page(where, "admin_stories.html", admin, **_stories(where, session, query))

    # --- logging in and out

    def login_form(message: str = "", status: int = 200, email: str = "") -> Response:
        nonce = new_nonce()
        response = _page(
            where,
            "admin_login.html",
            None,
            status,
            login_csrf=csrf_token(where.secret, f"login/{nonce}"),
            message=message,
            email=email,
        )
        response.set_cookie(
            LOGIN_COOKIE,
            nonce,
            max_age=3600,
            path=where.home,
            secure=where.secure,
            httponly=True,
            samesite="strict",
        )
        return response

    async def login_page(request: Request) -> Response:
        return login_form()  # also to a session's holder: it may be one no longer valid

    async def login(request: Request) -> Response:
        form = await _read_form(request)
        nonce = request.cookies.get(LOGIN_COOKIE)
        if form is None or not is_csrf_valid(
            where.secret, f"login/{nonce}" if nonce else None, form.get("csrf")
        ):
            return login_form("The form had expired: log in again.", 403)
        email = fold_email(form.get("email", ""))[:320]
        password = form.get("password", "")
        client = request.client.host if request.client is not None else "-"
        limiter = where.panel.limiter
        if not limiter.is_allowed(email, client):
            log.warning(
                "admin login of %r from %s refused: too many failed attempts", email, client
            )
            return login_form(
                "Too many failed attempts: wait a quarter of an hour, then try again.", 429, email
            )

        def check() -> str | None:
            with transaction(where.factory) as session:
                admins = admin_emails(session, tuple(where.panel.config.admins.emails))
                row = session.get(AdminPassword, email) if email in admins else None
                stored = row.hash if row is not None else None
            return fingerprint(stored) if check_password(stored, password) and stored else None

        print_ = await run_in_threadpool(check)
        if print_ is None:
            limiter.failed(email, client)
            log.warning("admin login of %r from %s failed", email, client)
            return login_form("Wrong address or password.", 403, email)
        limiter.succeeded(email)
        expires = int(where.panel.clock().timestamp()) + SESSION_SECONDS
        cookie = session_cookie(where.secret, AdminSession(email, expires, new_nonce(), print_))
        log.info("admin %s logged in from %s", email, client)
        response = RedirectResponse(where.home, status_code=303, headers=NO_STORE)
        response.set_cookie(
            SESSION_COOKIE,
            cookie,
            max_age=SESSION_SECONDS,
            path=where.home,
            secure=where.secure,
            httponly=True,
            samesite="strict",
        )
        response.delete_cookie(LOGIN_COOKIE, path=where.home)
        return response

    async def logout(request: Request) -> Response:
        admin = _session(where, request)
        form = await _read_form(request)
        if (
            admin is None
            or form is None
            or not is_csrf_valid(where.secret, admin.nonce, form.get("csrf"))
        ):
            return _forbidden()
        log.info("admin %s logged out", admin.email)
        response = to_login()
        response.delete_cookie(SESSION_COOKIE, path=where.home)
        return response

    # --- actions

    async def posted(
        request: Request, act: Callable[[Session, AdminSession, Mapping[str, str]], str]
    ) -> tuple[AdminSession, bool, str] | Response:
        """Run an action for the session's admin: (admin, done, what it did or why not)."""
        admin = _session(where, request)
        if admin is None:
            return _forbidden()
        form = await _read_form(request)
        if form is None or not is_csrf_valid(where.secret, admin.nonce, form.get("csrf")):
            return _forbidden("Forbidden: the form had expired; reload the page")

        def run() -> tuple[bool, str] | None:
            try:
                with transaction(where.factory) as session:
                    if not _is_admin(session, where, admin):
                        return None
                    return True, act(session, admin, form)
            except CommandError as error:
                return False, str(error)
            except (IntegrityError, StaleDataError):
                return False, "the game changed meanwhile (a mail or the daemon); try again"

        outcome = await run_in_threadpool(run)
        if outcome is None:
            return _forbidden()
        if outcome[0] and where.panel.on_change is not None:
            where.panel.on_change()  # the daemon sends, re-reads deadlines, at once
        return admin, outcome[0], outcome[1]

    def action_id(session: Session, admin: AdminSession) -> int:
        """The id of the admin's last recorded action (the one just done)."""
        found = session.scalar(
            select(func.max(AdminAction.id)).where(AdminAction.by == admin.email)
        )
        return int(found or 0)

    async def game_action(request: Request) -> Response:
        name, verb = request.path_params["name"], request.path_params["verb"]
        player_actions = {a.verb: a for a in PLAYER_ACTIONS}
        if verb not in GAME_ACTIONS and verb not in player_actions:
            return PlainTextResponse("Not Found", status_code=404, headers=NO_STORE)
        done_id: list[int] = []

        def act(session: Session, admin: AdminSession, form: Mapping[str, str]) -> str:
            if verb in GAME_ACTIONS:
                action = GAME_ACTIONS[verb][0](form, admin.email)
            else:
                action = player_actions[verb].build(form.get("player", ""), admin.email)
            message, _view = drive(
                session,
                where.panel.mailer,
                name,
                verb,
                action,
                by=admin.email,
                now=where.panel.clock(),
            )
            session.flush()
            done_id.append(action_id(session, admin))
            return message

        result = await posted(request, act)
        if isinstance(result, Response):
            return result
        admin, done, message = result
        url = f"{where.home}/games/{quote(name, safe='')}"
        if done:
            return RedirectResponse(f"{url}?done={done_id[0]}", status_code=303, headers=NO_STORE)
        return await failed_page(admin, name, message)

    async def failed_page(admin: AdminSession, name: str, message: str) -> Response:
        def read() -> Response:
            with transaction(where.factory) as session, work_in(session) as work:
                try:
                    game = open_game(session, name)
                except CommandError:
                    return _page(where, "admin_error.html", admin, 409, error=message)
                context = _game(where, work, game, None)
                return _page(where, "admin_game.html", admin, 409, error=message, **context)

        return await run_in_threadpool(read)

    async def create(request: Request) -> Response:
        names: list[str] = []

        def act(session: Session, admin: AdminSession, form: Mapping[str, str]) -> str:
            strictness = form.get("strictness", "").strip()
            if strictness and not (strictness.isascii() and strictness.isdigit()):
                raise CommandError(f"strictness: a whole number, not {strictness!r}")
            reveal = form.get("reveal_roles", "")
            new = NewGame(
                name=form.get("name", "").strip(),
                ruleset=form.get("ruleset", "").strip() or None,
                speed=form.get("speed", "").strip() or "2d",
                strictness=int(strictness) if strictness else None,
                theme=form.get("theme", "").strip() or None,
                language=form.get("lang", "").strip() or None,
                timezone=form.get("tz", "").strip() or None,
                close_early=form.get("close_early") == "on",
                reveal_roles={"yes": True, "no": False}.get(reveal),
                options=tuple(
                    line.strip() for line in form.get("options", "").splitlines() if line.strip()
                ),
            )
            message, view = create_game(
                session, where.panel.config, new, by=admin.email, now=where.panel.clock()
            )
            names.append(view["name"])
            return message

        result = await posted(request, act)
        if isinstance(result, Response):
            return result
        admin, done, message = result
        if done:
            url = f"{where.home}/games/{quote(names[0], safe='')}"
            return RedirectResponse(url, status_code=303, headers=NO_STORE)
        return _page(where, "admin_error.html", admin, 409, error=message)

    return [
        Route("/admin", guarded(index), methods=["GET"]),
        Route("/admin/login", login_page, methods=["GET"]),
        Route("/admin/login", login, methods=["POST"]),
        Route("/admin/logout", logout, methods=["POST"]),
        Route("/admin/games", create, methods=["POST"]),
        Route("/admin/games/{name}", guarded(game_page), methods=["GET"]),
        Route("/admin/games/{name}/{verb}", game_action, methods=["POST"]),
        Route("/admin/help", guarded(help_page), methods=["GET"]),
        Route("/admin/distributions", guarded(distributions_page), methods=["GET"]),
        Route("/admin/stories", guarded(stories_page), methods=["GET"]),
    ]


def routes_for(
    factory: Any, secret: str | None, root: str, base_url: str, panel: Panel | None
) -> Sequence[Route]:
    """The panel's routes, or none without a panel or a key (``/admin`` is then a 404)."""
    if panel is None or secret is None:
        return []
    return admin_routes(factory, secret, root, base_url, panel)
