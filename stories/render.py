"""Rendering: draw a variant, fill it in the sandbox, and build subject, text and HTML."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jinja2 import TemplateError
from jinja2.exceptions import SecurityError, UndefinedError
from markupsafe import escape

from stories import vocab
from stories.context import (
    Action,
    ContextError,
    Event,
    Game,
    Player,
    mail_fields,
    players_from,
)
from stories.helpers import Helpers, StoryError
from stories.keys import StoryKey
from stories.sandbox import Compiled, compile_story, make_environment
from stories.store import StorySource, TemplateStore

_BULLET = re.compile(r"^[-*]\s+")
_MAX_OUTPUT = 200_000
#: What a player is told he is, where the role must not say what it is (interfaces, spec 10).
PRESENTED_ROLES = {"dwaas": "ziener"}


class StoryNotFound(StoryError):
    """No template exists for a key (nor for it in the ruleset's main theme)."""


@dataclass(frozen=True)
class RenderedMail:
    """A rendered mail: one-line subject, plain text and its HTML alternative."""

    subject: str
    text: str
    html: str
    key: StoryKey
    variant: int


def main_theme(key: StoryKey) -> str:
    """The theme every pack falls back to: the one named after the ruleset ("wakkerdam")."""
    return key.ruleset


def moment_of(game: Game | None, language: str) -> str:
    """The moment of the game in words: "Nacht 3", "Dag 2", "Het begin" ("" without a game)."""
    if game is None:
        return ""
    words = vocab.MOMENT_WORDS.get(language, vocab.MOMENT_WORDS["en"])
    step = game.step
    if step in vocab.START_STEPS or (step is None and game.night == 0):
        return words["start"]
    if step == "burgemeesterverkiezing":
        return f"{words['day']} {max(game.day, game.night)}"
    if step in vocab.DAY_STEPS or (step is None and game.day >= game.night):
        return f"{words['day']} {game.day}"
    return f"{words['night']} {game.night}"


def story_mail_for(step: str | None) -> str:
    """Which mail tells the story of `step`: `day_result` for day steps, else `night_result`."""
    return "day_result" if step in vocab.DAY_STEPS else "night_result"


def _rng(seed: int | str, *parts: object) -> random.Random:
    return random.Random("|".join([str(seed), *map(str, parts)]))


def normalise(raw: str) -> str:
    """Trim every line, collapse runs of blank lines to one, strip the ends."""
    lines = [line.strip() for line in raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def to_html(text: str, language: str) -> str:
    """The HTML alternative of a normalised plain text: everything escaped, then paragraphs
    (single line breaks become `<br>`) and `- ` lines become lists."""
    parts = []
    # Escaped once as a whole (escaping keeps line breaks, "-", "*" and spaces as they are).
    text = str(escape(text))
    for paragraph in text.split("\n\n"):
        lines = paragraph.split("\n")
        run: list[str] = []
        items: list[str] = []
        for line in lines:
            if _BULLET.match(line):
                if run:
                    parts.append("<p>" + "<br>\n".join(run) + "</p>")
                    run = []
                items.append(f"<li>{_BULLET.sub('', line)}</li>")
            else:
                if items:
                    parts.append("<ul>\n" + "\n".join(items) + "\n</ul>")
                    items = []
                run.append(line)
        if run:
            parts.append("<p>" + "<br>\n".join(run) + "</p>")
        if items:
            parts.append("<ul>\n" + "\n".join(items) + "\n</ul>")
    body = "\n".join(parts)
    return (
        f'<!DOCTYPE html>\n<html lang="{escape(language)}">\n<head><meta charset="utf-8"></head>\n'
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def one_line(text: str) -> str:
    """A header-safe subject: all whitespace (CR and LF included) collapsed to single spaces."""
    return " ".join(text.split())


class Renderer:
    """Renders stories from a template store; keeps compiled templates (per instance)."""

    def __init__(self, store: TemplateStore) -> None:
        self.store = store
        self.env = make_environment()
        self._compiled: dict[tuple[str, str], Compiled] = {}

    # -- templates --------------------------------------------------------------------------
    def variants(self, key: StoryKey) -> Sequence[StorySource]:
        """The variants for `key`, falling back to the ruleset's main theme when it has none.

        Raises StoryNotFound when neither exists.
        """
        found = self.store.variants(key)
        if not found and key.theme != main_theme(key):
            found = self.store.variants(key.with_theme(main_theme(key)))
        if not found:
            raise StoryNotFound(f"no story template for {key}")
        return found

    def compile(self, source: StorySource) -> Compiled:
        """Compile (once per instance and source text) a template variant."""
        origin = source.origin or f"{source.key}#{source.variant}"
        cache_key = (origin, source.source)
        compiled = self._compiled.get(cache_key)
        if compiled is None:
            compiled = compile_story(self.env, source.source, origin, is_mail=source.key.is_mail)
            self._compiled[cache_key] = compiled
        return compiled

    def draw(self, key: StoryKey, rng: random.Random) -> StorySource:
        """One variant of `key`, drawn with `rng`."""
        return rng.choice(list(self.variants(key)))

    # -- contexts ---------------------------------------------------------------------------
    def base_context(
        self, key: StoryKey, context: Mapping[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        """Helpers, `game`, `players`, `recipient`, `lang`, `moment` for a render."""
        game_value = context.get("game")
        game = None if game_value is None else Game.from_any(game_value)
        players = players_from(context.get("players", ()))
        helpers = Helpers(key.language, players, rng)
        recipient = context.get("recipient")
        return {
            **helpers.as_dict(),
            "game": game,
            "players": players,
            "recipient": None if recipient is None else str(recipient),
            "lang": key.language,
            "moment": moment_of(game, key.language),
            "you": False,
        }

    def _mail_context(
        self, key: StoryKey, context: Mapping[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        ctx = self.base_context(key, context, rng)
        fields = mail_fields(key.event, context)
        player = fields.get("player")
        if isinstance(player, str):
            fields["player"] = ctx["players"].find(player) or Player(player)
        if key.event == "role":
            fields["role"] = PRESENTED_ROLES.get(fields["role"], fields["role"])
            if fields["team"] is None:
                fields["team"] = vocab.ROLE_TEAMS.get(fields["role"], "burgers")
        for name in ("action",):
            action = fields.get(name)
            if action is not None and action.kind in PRESENTED_ROLES:
                fields[name] = _present(action)
        if "actions" in fields:
            fields["actions"] = tuple(_present(a) for a in fields["actions"])
        if "events" in fields:
            fields["events"] = tuple(e.as_context() for e in fields["events"])
        ctx.update(fields)
        if isinstance(fields.get("player"), Player):
            ctx["you"] = ctx["recipient"] is None or ctx["recipient"] == fields["player"].name
        return ctx

    # -- rendering --------------------------------------------------------------------------
    def _run(self, source: StorySource, block: str | None, ctx: dict[str, Any]) -> str:
        compiled = self.compile(source)
        origin = source.origin or f"{source.key}#{source.variant}"
        try:
            template = compiled.template
            if block is None:
                out = template.render(ctx)
            else:
                out = "".join(template.blocks[block](template.new_context(ctx)))
        except SecurityError as error:
            raise StoryError(f"{origin}: not allowed in a story: {error}") from None
        except UndefinedError as error:
            raise StoryError(f"{origin}: unknown variable or field: {error}") from None
        except (TemplateError, StoryError, ContextError) as error:
            raise StoryError(f"{origin}: {error}") from None
        except Exception as error:  # a template bug (bad filter argument, 1/0, …)
            raise StoryError(f"{origin}: {type(error).__name__}: {error}") from None
        if len(out) > _MAX_OUTPUT:
            raise StoryError(f"{origin}: output longer than {_MAX_OUTPUT} characters")
        return out

    def render_source_mail(
        self, source: StorySource, context: Mapping[str, Any], rng: random.Random
    ) -> RenderedMail:
        """Render one given variant of a mail template (no draw)."""
        ctx = self._mail_context(source.key, context, rng)
        subject = one_line(self._run(source, "subject", ctx))
        text = normalise(self._run(source, "body", ctx))
        return RenderedMail(
            subject, text + "\n", to_html(text, source.key.language), source.key, source.variant
        )

    def render_source_event(
        self, source: StorySource, context: Mapping[str, Any], event: Event, rng: random.Random
    ) -> str:
        """Render one given variant of an event template into a text fragment (no draw)."""
        ctx = self.base_context(source.key, context, rng)
        ctx["event"] = event.as_context()
        ctx["you"] = ctx["recipient"] is not None and ctx["recipient"] in event.subjects()
        return normalise(self._run(source, None, ctx))

    def render_mail(
        self, key: StoryKey, context: Mapping[str, Any], rng_seed: int | str
    ) -> RenderedMail:
        """Render the mail `key.event` (a non-event mail) with a variant drawn from `rng_seed`.

        `context` holds `game`, `players`, `recipient` and the mail's fields (docs/stories.md).
        Raises StoryNotFound, ContextError (bad context) or StoryError (template failed).
        """
        if not key.is_mail:
            raise ContextError(f"{key.event!r} is an event, not a mail; use render_event")
        rng = _rng(rng_seed, key)
        return self.render_source_mail(self.draw(key, rng), context, rng)

    def render_event(
        self,
        key: StoryKey,
        context: Mapping[str, Any],
        event: Event | Mapping[str, Any],
        rng_seed: int | str,
    ) -> str:
        """Render one event (transcript dict or Event) into a text fragment.

        `key.event` is ignored: the event's type picks the template.
        """
        if not isinstance(event, Event):
            event = Event.from_dict(event)
        key = key.with_event(event.type)
        rng = _rng(rng_seed, key)
        return self.render_source_event(self.draw(key, rng), context, event, rng)

    def render_story(
        self,
        key: StoryKey,
        context: Mapping[str, Any],
        events: Sequence[Event | Mapping[str, Any]],
        rng_seed: int | str,
        *,
        groups: frozenset[str] = frozenset(),
        send_empty: bool = False,
    ) -> RenderedMail | None:
        """The story mail of one step for `context["recipient"]`.

        Keeps the events whose audience is public, the recipient, or one of his `groups`
        (team ids such as `weerwolven`), renders each, and renders them into the step's
        `night_result` or `day_result` mail (chosen from `game.step`; `key.event` is ignored).
        Returns None when no event is visible to the recipient, unless `send_empty`.
        """
        recipient = context.get("recipient")
        parsed = [e if isinstance(e, Event) else Event.from_dict(e) for e in events]
        fragments: list[str] = []
        shown: list[Event] = []
        for index, event in enumerate(parsed):
            if not event.is_visible_to(recipient, groups):
                continue
            fragment = self.render_event(key, context, event, f"{rng_seed}|{index}")
            shown.append(event)
            if fragment:
                fragments.append(fragment)
        if not shown and not send_empty:
            return None
        game = context.get("game")
        step = None if game is None else Game.from_any(game).step
        mail_key = key.with_event(story_mail_for(step))
        return self.render_mail(
            mail_key, {**context, "stories": fragments, "events": shown}, rng_seed
        )


def _present(action: Action) -> Action:
    if action.kind in PRESENTED_ROLES:
        return Action(**{**action.__dict__, "kind": PRESENTED_ROLES[action.kind]})
    return action


def render_mail(
    store: TemplateStore, key: StoryKey, context: Mapping[str, Any], rng_seed: int | str
) -> RenderedMail:
    """Render one non-event mail from `store` (see Renderer.render_mail)."""
    return Renderer(store).render_mail(key, context, rng_seed)


def render_story(
    store: TemplateStore,
    key: StoryKey,
    context: Mapping[str, Any],
    events: Sequence[Event | Mapping[str, Any]],
    rng_seed: int | str,
    *,
    groups: frozenset[str] = frozenset(),
    send_empty: bool = False,
) -> RenderedMail | None:
    """Render one step's story mail for one recipient (see Renderer.render_story)."""
    return Renderer(store).render_story(
        key, context, events, rng_seed, groups=groups, send_empty=send_empty
    )
