"""The web application (Starlette): the list of games, each game's public page and its JSON, a
player's own page, and the admin panel (:mod:`narrator.web.admin`).

:func:`make_app` builds it from a session factory and the story renderer the daemon's mailer
holds (so pages tell the stories the mails told, from the same stories table).  Every page is
read in its own unit of work, in a worker thread; every response carries a strict
Content-Security-Policy (no script, no inline style, nothing from elsewhere).  The pages'
words are the story packs' (words.toml ``[web]`` and ``[mail]``), never the code's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from narrator.inbound.dbsink import DbSink
from narrator.models import Game, GameStatus, find_game, game_players
from narrator.service.story_context import story_game
from narrator.service.wiring import utc_now
from narrator.service.work import unit_of_work
from narrator.web.admin import Panel, routes_for
from narrator.web.headers import ResponseHeaders
from narrator.web.private import PrivatePage, private_page, seat_of
from narrator.web.public import PublicGame, public_game, words_of
from narrator.web.tokens import read_token
from narrator.web.vote import MAX_FORM_BYTES, Envelope, ballot_body, vote_mail
from stories import Game as StoryGame
from stories import Renderer
from stories.layout import fill
from stories.render import moment_of
from stories.words import Words

HERE = Path(__file__).resolve().parent

#: Every response's security headers: no script at all, styles only from the site itself.
SECURITY_HEADERS: Mapping[str, str] = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}
_SECURITY_PAIRS = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

#: The order of the list of games: open for signup first, then running, then ended.
GROUPS = (
    (GameStatus.SIGNUP.value, "open"),
    (GameStatus.RUNNING.value, "running"),
    (GameStatus.PAUSED.value, "paused"),
    (GameStatus.ENDED.value, "ended"),
)


@dataclass(frozen=True)
class Site:
    """What the pages need: the database, the story renderer, the narrator's address (how to
    sign up), the words of the list of games (the configured ruleset and language) and the
    path the site lives under (from ``[web] base_url``)."""

    factory: sessionmaker[Session]
    renderer: Renderer
    address: str
    ruleset: str
    language: str
    base_url: str
    #: The key of the personal links (``[web] secret_env``); None: no personal pages.
    secret: str | None = field(default=None, repr=False)
    #: How a vote on a page is mailed (None: the pages take no votes), and who is told that
    #: a mail was stored (the inbox worker; called in the event loop).
    envelope: Envelope | None = None
    on_stored: Callable[[], None] | None = None
    #: The admin panel (``/admin``; it needs the key too); None: no panel.
    panel: Panel | None = None
    #: The pages' templates (compiled on first use each, kept by the site built once).
    templates: Environment = field(default_factory=lambda: page_templates(), compare=False)

    @property
    def root(self) -> str:
        """The path prefix of every link ("" at the root of a host)."""
        return urlsplit(self.base_url).path.rstrip("/")


def page_templates() -> Environment:
    """The public and personal pages' templates."""
    return Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )


def _template(site: Site, name: str) -> Template:
    return site.templates.get_template(name)


def _page(html: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(html, status_code=status)


def not_found() -> Response:
    """The one answer to anything unknown: a plain 404."""
    return PlainTextResponse("Not Found", status_code=404)


# --- the list of games -----------------------------------------------------------------------


def _listed(site: Site, game: Game, session: Session) -> dict[str, Any]:
    words = words_of(game.ruleset, game.language)
    labels = words.web
    entry: dict[str, Any] = {"name": game.name, "moment": "", "signed_up": "", "sign_up": ""}
    if game.status == GameStatus.SIGNUP.value:
        count = len(game_players(session, game))
        entry["signed_up"] = fill(labels.signed_up, count=str(count))
        entry["sign_up"] = fill(labels.sign_up, address=site.address, game=game.name)
    elif game.status in (GameStatus.RUNNING.value, GameStatus.PAUSED.value):
        entry["moment"] = moment_of(StoryGame.from_any(story_game(game, None)), words)
    return entry


def render_index(site: Site) -> str:
    """The list of games: open for signup (with how to sign up by mail), running, ended."""
    words = words_of(site.ruleset, site.language)
    labels = words.web
    with unit_of_work(site.factory) as work:
        games = work.session.scalars(select(Game).order_by(Game.created_at, Game.id)).all()
        groups = []
        for status, label in GROUPS:
            listed = [_listed(site, g, work.session) for g in games if g.status == status]
            if listed:
                groups.append(
                    {"status": status, "heading": getattr(labels, label), "games": listed}
                )
    return _template(site, "index.html").render(
        lang=site.language, title=labels.games, root=site.root, labels=labels, groups=groups
    )


# --- a game's public page --------------------------------------------------------------------


def read_game(site: Site, name: str) -> PublicGame | None:
    """The public read model of the game called `name` (None: no such game)."""
    with unit_of_work(site.factory) as work:
        game = find_game(work.session, name)
        if game is None:
            return None
        return public_game(work, game)


def _told(site: Site, game: PublicGame) -> dict[str, Any]:
    """What every page of a game shows of it (templates/told.html and the header)."""
    words = game.words
    assert isinstance(words, Words)
    labels = words.web
    alive = [p for p in game.players if p.alive]
    dead = [p for p in game.players if not p.alive]
    return {
        "lang": game.language,
        "title": f"{game.name} — {game.moment}" if game.moment else game.name,
        "root": site.root,
        "labels": labels,
        "mail": words.mail,
        "game": game,
        "status": {s: getattr(labels, label) for s, label in GROUPS}[game.status],
        "ended": game.status == GameStatus.ENDED.value,
        "alive": alive,
        "dead": dead,
        "alive_label": fill(words.mail.alive, count=str(len(alive))),
        "dead_label": fill(words.mail.dead, count=str(len(dead))),
    }


def render_game(site: Site, game: PublicGame) -> str:
    """The public page of `game`."""
    context = _told(site, game)
    sign_up = ""
    if game.status == GameStatus.SIGNUP.value:
        sign_up = fill(context["labels"].sign_up, address=site.address, game=game.name)
    return _template(site, "game.html").render(**context, sign_up=sign_up)


# --- a player's own page ---------------------------------------------------------------------


def read_private(site: Site, token: str) -> PrivatePage | None:
    """The page a personal `token` opens (None: no key configured, a wrong token, no seat)."""
    if site.secret is None:
        return None
    seat = read_token(site.secret, token)
    if seat is None:
        return None
    with unit_of_work(site.factory) as work:
        found = seat_of(work, seat)
        if found is None:
            return None
        game, player = found
        return private_page(work, game, player)


def render_private(site: Site, page: PrivatePage, token: str, *, sent: bool = False) -> str:
    """A player's own page (`sent`: just after a vote in its form)."""
    context = _told(site, page.game)
    context["title"] = f"{page.player} — {context['title']}"
    return _template(site, "private.html").render(
        **context,
        page=page,
        fill=fill,
        form=site.envelope is not None,
        action=f"{site.root}/p/{token}",
        sent=sent,
    )


def store_vote(site: Site, token: str, form: Mapping[str, list[str]], now: datetime) -> bool:
    """Mail the form's vote to the narrator as the player would (:mod:`narrator.web.vote`):
    store it in the inbox.  False: no such page, or words no form writes."""
    envelope = site.envelope
    if envelope is None or site.secret is None:
        return False
    seat = read_token(site.secret, token)
    if seat is None:
        return False
    body = ballot_body(form)
    if body is None:
        return False
    with unit_of_work(site.factory) as work:
        found = seat_of(work, seat)
        if found is None:
            return False
        game, player = found
        raw, _message_id = vote_mail(envelope, game, player, body, now)
    DbSink(site.factory).store_sync(raw, source="web", envelope_from=player.email)
    return True


# --- the application -------------------------------------------------------------------------


def make_app(site: Site) -> ASGIApp:
    """The ASGI application of the game pages."""

    def index(request: Request) -> Response:
        return _page(render_index(site))

    def game_page(request: Request) -> Response:
        game = read_game(site, request.path_params["name"])
        return not_found() if game is None else _page(render_game(site, game))

    def game_json(request: Request) -> Response:
        game = read_game(site, request.path_params["name"])
        return not_found() if game is None else JSONResponse(game.to_json())

    def own_page(request: Request) -> Response:
        token = request.path_params["token"]
        page = read_private(site, token)
        if page is None:
            return not_found()
        sent = request.query_params.get("sent") == "1"
        return _page(render_private(site, page, token, sent=sent))

    async def own_vote(request: Request) -> Response:
        token = request.path_params["token"]
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                return not_found()
        form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=False)
        stored = await run_in_threadpool(store_vote, site, token, form, utc_now())
        if not stored:
            return not_found()
        if site.on_stored is not None:
            site.on_stored()
        return RedirectResponse(f"{site.root}/p/{token}?sent=1", status_code=303)

    def own_json(request: Request) -> Response:
        page = read_private(site, request.path_params["token"])
        return not_found() if page is None else JSONResponse(page.to_json())

    routes: Sequence[Route | Mount] = [
        Route("/", index),
        Route("/p/{token}.json", own_json),
        Route("/p/{token}", own_page, methods=["GET"]),
        Route("/p/{token}", own_vote, methods=["POST"]),
        Route("/games/{name}.json", game_json),
        Route("/games/{name}", game_page),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        *routes_for(site.factory, site.secret, site.root, site.base_url, site.panel),
    ]
    app = Starlette(routes=list(routes))
    return ResponseHeaders(app, lambda: _SECURITY_PAIRS)
