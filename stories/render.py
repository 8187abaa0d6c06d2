"""Rendering: draw a variant, fill it in the sandbox, and build subject, text and HTML."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jinja2 import BaseLoader, TemplateError, TemplateNotFound
from jinja2.environment import Environment, Template
from jinja2.exceptions import SecurityError, UndefinedError
from jinja2.runtime import Context
from markupsafe import Markup, escape

from rules.core.registry import UnknownRuleset, get_ruleset
from stories.context import (
    Action,
    Cast,
    ContextError,
    Event,
    Game,
    Player,
    clean_text,
    mail_fields,
    players_from,
)
from stories.helpers import Helpers, StoryError
from stories.keys import BASE_THEME, StoryKey, StoryKeyError
from stories.layout import (
    HTML_ROSTER_MAILS,
    ROSTER_MAILS,
    ROSTER_SEPARATOR,
    Roster,
    choices_elsewhere,
    compile_layout,
    deaths_of,
    is_big,
    link_lines,
    mail_html,
    roster_elsewhere,
    roster_of,
    summed_roster,
)
from stories.sandbox import Compiled, compile_story, make_environment, with_globals
from stories.store import StorySource, TemplateStore
from stories.words import Words, WordsError, load_words

_BULLET = re.compile(r"^[-*]\s+")
_BLANK_RUNS = re.compile(r"\n{3,}")
_MAX_OUTPUT = 200_000


class StoryNotFound(StoryError):
    """No template exists for a key (nor for it in the ruleset's main theme)."""


@dataclass(frozen=True)
class RenderedMail:
    """A rendered mail: one-line subject, plain text and its HTML alternative; `narrator` is
    the name the narrator goes by in the words of the key asked for (its theme's, else the
    ruleset's main theme's; "" when the words do not say): who signs the mail."""

    subject: str
    text: str
    html: str
    key: StoryKey
    variant: int
    narrator: str = ""


def main_theme(key: StoryKey) -> str:
    """The theme every pack falls back to: the one named after the ruleset ("wakkerdam")."""
    return key.ruleset


def phase_of(game: Game) -> str:
    """The game's phase: `game.phase` (the narrator's, from the rules' view), or without one
    the phase its counters say (`start` before the first night, `day` once the day counter
    has caught up with the night's, else `night`)."""
    if game.phase is not None:
        return game.phase
    if game.night == 0 and game.day == 0:
        return "start"
    return "day" if game.day >= game.night else "night"


def moment_in(game: Game | Mapping[str, Any], ruleset: str, language: str) -> str:
    """The moment of `game` (a Game or its fields) in the words of `ruleset`'s pack in
    `language` (see :func:`moment_of`)."""
    return moment_of(Game.from_any(game), load_words(ruleset, language))


def moment_of(game: Game | None, words: Words) -> str:
    """The moment of the game in words: "Nacht 3", "Dag 2", "Het begin" ("" without a game).

    The words' `[phases]` (or the step's own `moment`) give the pattern, with the game's
    `{night}` and `{day}` counters.
    """
    if game is None:
        return ""
    pattern = words.moment_pattern(phase_of(game), game.step)
    return pattern.replace("{night}", str(game.night)).replace("{day}", str(game.day))


def story_mail_for(game: Game | None, words: Words) -> str:
    """Which mail tells the story of the game's step: the step's own `mail` in the words, else
    `day_result` in the day phase and `night_result` otherwise."""
    if game is None:
        return "night_result"
    own = words.steps.get(game.step) if game.step is not None else None
    if own is not None and own.mail is not None:
        return own.mail
    return "day_result" if phase_of(game) == "day" else "night_result"


def always_told(game: Game | None, words: Words) -> bool:
    """Whether the story of the game's step goes to every reader, even with nothing to tell
    him (words.toml ``[steps.<step>] always = true``: the vampiri's nightfall)."""
    if game is None or game.step is None:
        return False
    own = words.steps.get(game.step)
    return own is not None and own.always


class _StoreLoader(BaseLoader):
    """Loads the templates a story includes, imports or extends from the renderer's store."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer

    def load(
        self,
        environment: Environment,
        name: str,
        globals: Mapping[str, Any] | None = None,
    ) -> Template:
        """The compiled template of the full name `ruleset/lang/theme/event`."""
        return self.renderer.compile_named(name).template


def _rng(seed: int | str, *parts: object) -> random.Random:
    return random.Random("|".join([str(seed), *map(str, parts)]))


def normalise(raw: str) -> str:
    """Trim every line, collapse runs of blank lines to one, strip the ends."""
    lines = [line.strip() for line in raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    text = "\n".join(lines)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def story_markup(text: str) -> Markup:
    """A normalised plain text as HTML: everything escaped, then paragraphs (single line breaks
    become `<br>`) and `- ` lines become lists."""
    parts = []
    # Escaped once as a whole (escaping keeps line breaks, "-", "*" and spaces as they are).
    text = str(escape(text))
    for paragraph in text.split("\n\n"):
        lines = paragraph.split("\n")
        run: list[str] = []
        items: list[str] = []
        for line in lines:
            bullet = _BULLET.match(line) if line.startswith(("-", "*")) else None
            if bullet is not None:
                if run:
                    parts.append("<p>" + "<br>\n".join(run) + "</p>")
                    run = []
                items.append(f"<li>{line[bullet.end() :]}</li>")
            else:
                if items:
                    parts.append("<ul>\n" + "\n".join(items) + "\n</ul>")
                    items = []
                run.append(line)
        if run:
            parts.append("<p>" + "<br>\n".join(run) + "</p>")
        if items:
            parts.append("<ul>\n" + "\n".join(items) + "\n</ul>")
    return Markup("\n".join(parts))


def to_html(text: str, language: str) -> str:
    """A bare HTML document of a normalised plain text (see :func:`story_markup`); mails get
    the full layout (:func:`stories.layout.mail_html`)."""
    return (
        f'<!DOCTYPE html>\n<html lang="{escape(language)}">\n<head><meta charset="utf-8"></head>\n'
        f"<body>\n{story_markup(text)}\n</body>\n</html>\n"
    )


def one_line(text: str) -> str:
    """A header-safe subject: all whitespace (CR and LF included) collapsed to single spaces."""
    return " ".join(text.split())


class Renderer:
    """Renders stories from a template store; keeps compiled templates (per instance).

    Its store is fixed when it is built (`store` is read only): the templates it compiled
    include, import and extend through that store, so none of those who share a renderer can
    point it at other templates.  (What a store holds may change: the daemon's mailer renders
    through a store of its own whose contents its reload replaces.)
    """

    def __init__(self, store: TemplateStore) -> None:
        self._store = store
        self.env = make_environment()
        self.env.loader = _StoreLoader(self)
        # Each template variant's compilation, by its origin, with the text compiled: an edited
        # template (the daemon reloads its stories while it runs) replaces its old compilation,
        # so the table holds one per variant however often writers change them.
        self._compiled: dict[str, tuple[str, Compiled]] = {}
        self._layout: Template | None = None

    @property
    def store(self) -> TemplateStore:
        """The templates this renderer renders (fixed at its construction)."""
        return self._store

    @property
    def layout(self) -> Template:
        """The mail layout, compiled by this renderer at its first HTML mail (like its
        stories: a renderer built only to check words compiles none), unless
        :meth:`compile_layout` compiled it before."""
        if self._layout is None:
            self._layout = compile_layout()
        return self._layout

    def compile_layout(self) -> None:
        """Compile the mail layout now, not at the first HTML mail (the daemon asks at its
        start, through :meth:`narrator.service.mailer.Mailer.prepare`, so that its first
        mail does not wait for it: about 10 ms).  Compiled once: a second call does nothing."""
        if self._layout is None:
            self._layout = compile_layout()

    # -- templates --------------------------------------------------------------------------
    def variants(self, key: StoryKey) -> Sequence[StorySource]:
        """The variants for `key`: the theme's, else the ruleset's main theme's, else the
        language's shared `_base` templates.

        Raises StoryNotFound when none exists.
        """
        for theme in dict.fromkeys((key.theme, main_theme(key), BASE_THEME)):
            found = self.store.variants(key if theme == key.theme else key.with_theme(theme))
            if found:
                return found
        raise StoryNotFound(f"no story template for {key}")

    def compile(self, source: StorySource) -> Compiled:
        """Compile a template variant, once per instance and text: the variant's compilation
        is kept until its text changes (another text of it replaces it)."""
        origin = source.origin or f"{source.key}#{source.variant}"
        kept = self._compiled.get(origin)
        if kept is not None and kept[0] == source.source:
            return kept[1]
        compiled = compile_story(
            self.env,
            source.source,
            origin,
            is_mail=source.key.is_mail,
            name=source.key.template_name,
            is_partial=source.key.is_partial,
        )
        self._compiled[origin] = (source.source, compiled)
        return compiled

    def source_named(self, name: str) -> StorySource:
        """The template an include, import or extends names (`ruleset/lang/theme/event`, its
        first variant), from the store; raises TemplateNotFound."""
        try:
            key = StoryKey(*name.split("/"))
        except (TypeError, StoryKeyError):
            raise TemplateNotFound(name) from None
        found = self.store.variants(key)
        if not found:
            raise TemplateNotFound(name)
        return found[0]

    def compile_named(self, name: str) -> Compiled:
        """The compiled template of a full name (see :meth:`source_named`)."""
        return self.compile(self.source_named(name))

    def words(self, key: StoryKey) -> Words:
        """The words of the key's ruleset and language; raises StoryError when it has none."""
        try:
            return load_words(key.ruleset, key.language)
        except WordsError as error:
            raise StoryError(str(error)) from None

    def draw(self, key: StoryKey, rng: random.Random) -> StorySource:
        """One variant of `key`, drawn with `rng`."""
        return rng.choice(list(self.variants(key)))

    # -- contexts ---------------------------------------------------------------------------
    def base_context(
        self, key: StoryKey, context: Mapping[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        """Helpers, `game`, `players`, `recipient`, `lang`, `moment`, `page_link` for a render."""
        game_value = context.get("game")
        game = None if game_value is None else Game.from_any(game_value)
        recipient = context.get("recipient")
        players = players_from(context.get("players", ()))
        if recipient is not None:
            players = players.seen_by(str(recipient))
        words = self.words(key)
        helpers = Helpers(words, players, rng)
        link = context.get("page_link")
        page_link = None if link is None else clean_text(str(link))
        helper = helpers.as_dict()

        game_link = context.get("game_link")
        roster_link = None if game_link is None else clean_text(str(game_link))

        def unlisted(listed: Action | Sequence[str]) -> str:
            """The line a big game's mail writes instead of a long list (docs/stories.md, "A
            big game"): of an action's choices or of the names an error reply gives, their
            count and the reader's page; of the `players`, the summed-up roster and the
            game's page.  "" when the mail lists them."""
            if isinstance(listed, Cast):
                return roster_elsewhere(listed, words, helper["names"], roster_link)
            choices = listed.choices if isinstance(listed, Action) else listed
            return choices_elsewhere(choices, players, page_link, words, helper["count"])

        return {
            **helper,
            "game": game,
            "players": players,
            "recipient": None if recipient is None else str(recipient),
            "page_link": page_link,
            "lang": key.language,
            "moment": moment_of(game, words),
            "you": False,
            "unlisted": unlisted,
        }

    def _mail_context(
        self, key: StoryKey, context: Mapping[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        ctx = self.base_context(key, context, rng)
        fields = mail_fields(key.event, context, key.ruleset)
        player = fields.get("player")
        if isinstance(player, str):
            fields["player"] = ctx["players"].find(player) or Player(player)
        if key.event == "role" and fields["team"] is None:
            fields["team"] = _team_of(key.ruleset, fields["role"])
        if "events" in fields:
            fields["events"] = tuple(e.as_context() for e in fields["events"])
        ctx.update(fields)
        if fields.get("actions"):
            ctx["unlisted"] = _unlisted_of(fields["actions"], ctx["unlisted"])
        if isinstance(fields.get("player"), Player):
            ctx["you"] = ctx["recipient"] is None or ctx["recipient"] == fields["player"].name
        return ctx

    # -- rendering --------------------------------------------------------------------------
    def _run(self, source: StorySource, block: str | None, ctx: dict[str, Any]) -> str:
        """The whole template (`block` None: an event's fragment), or one block of a mail."""
        return self._run_blocks(source, (block,), ctx)[0]

    def _run_blocks(
        self, source: StorySource, blocks: Sequence[str | None], ctx: dict[str, Any]
    ) -> list[str]:
        """Each of `blocks` of `source` rendered with `ctx` in turn (None: the whole template),
        a mail's blocks from one Jinja context (a block's own variables are its own: the
        subject's never reach the body)."""
        compiled = self.compile(source)
        origin = source.origin or f"{source.key}#{source.variant}"
        outs: list[str] = []
        context: Context | None = None
        for block in blocks:
            try:
                if block is None:
                    out = compiled.template.render(ctx)
                else:
                    if context is None:
                        context = self._block_context(compiled, ctx)
                    out = self._render_block(context, block)
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
            outs.append(out)
        return outs

    def _block_context(self, compiled: Compiled, ctx: dict[str, Any]) -> Context:
        """The Jinja context a mail's blocks render in, with the blocks of the templates it
        extends (as Jinja's own inheritance does: the child's block first, `super()` reaching
        the parent's)."""
        context = compiled.template.new_context(with_globals(compiled.template, ctx), shared=True)
        seen = {compiled.template.name}
        while compiled.parent is not None:
            if compiled.parent in seen:
                raise StoryError(f"{compiled.parent} extends itself")
            seen.add(compiled.parent)
            compiled = self.compile_named(compiled.parent)
            for name, function in compiled.template.blocks.items():
                context.blocks.setdefault(name, []).append(function)
        return context

    @staticmethod
    def _render_block(context: Context, block: str) -> str:
        """One block of a mail in its context (:meth:`_block_context`)."""
        functions = context.blocks.get(block)
        if not functions:
            raise StoryError(f"no {{% block {block} %}}")
        return "".join(functions[0](context))

    def render_source_mail(
        self,
        source: StorySource,
        context: Mapping[str, Any],
        rng: random.Random,
        *,
        narrator: str = "",
    ) -> RenderedMail:
        """Render one given variant of a mail template (no draw), signed by `narrator`."""
        ctx = self._mail_context(source.key, context, rng)
        subject_out, body_out = self._run_blocks(source, ("subject", "body"), ctx)
        subject, body = one_line(subject_out), normalise(body_out)
        key = source.key
        words = self.words(key)
        roster = None
        if ctx["game"] is not None and key.event in HTML_ROSTER_MAILS:
            roster = self._roster(ctx, context, words)
        text = body
        if ctx["page_link"] is not None:
            # His personal page (role and action mails, when the pages are configured): under
            # the story, above the roster, in the language's words.
            text += "\n\n" + "\n".join(link_lines(ctx["page_link"], words))
        if roster is not None and key.event in ROSTER_MAILS:
            # Below the usual signature separator: mail clients set it apart and leave it out
            # of a reply's quote, so a player's answer does not quote every name back.
            text += f"\n\n{ROSTER_SEPARATOR}\n" + "\n".join(roster.lines())
        game_link = context.get("game_link")
        html = mail_html(
            key.event,
            ctx,
            words,
            language=key.language,
            subject=subject,
            body=body,
            roster=roster,
            layout=self.layout,
            game_link=None if game_link is None else clean_text(str(game_link)),
        )
        return RenderedMail(subject, text + "\n", html, key, source.variant, narrator)

    def _roster(
        self, ctx: Mapping[str, Any], context: Mapping[str, Any], words: Words
    ) -> Roster | None:
        """The roster a mail ends with: every name, or in a big game with its public page
        (`game_link`) the counts, who died in the step told (a story mail's deaths, else the
        context's `fallen`) and that page."""
        cast = ctx["players"]
        link = context.get("game_link")
        if link is None or not is_big(cast):
            return roster_of(cast, words, ctx["names"])
        fallen = deaths_of(ctx) or [clean_text(str(name)) for name in context.get("fallen", ())]
        return summed_roster(cast, words, ctx["names"], clean_text(str(link)), fallen)

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
        narrator = self.words(key).narrator(key.theme) or ""
        return self.render_source_mail(self.draw(key, rng), context, rng, narrator=narrator)

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
            event = Event.from_dict(event, key.ruleset)
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
        part: str = "all",
    ) -> RenderedMail | None:
        """The story mail of one step for `context["recipient"]`.

        Keeps the events whose audience is public, the recipient, or one of his `groups`
        (team ids such as `weerwolven`), renders each, and renders them into the step's
        `night_result` or `day_result` mail (chosen from `game.step`; `key.event` is ignored).
        Returns None when no event is visible to the recipient, unless `send_empty` or the
        step's words say its story is always told (``always``).

        `part` splits the story in two mails: ``"public"`` keeps only the public events (the
        caller passes no recipient, so the mail is one text for the whole village),
        ``"private"`` only the others the recipient may see (the mail's `private` is true;
        never sent empty); ``"all"`` keeps both in one mail.
        """
        if part not in ("all", "public", "private"):
            raise ValueError(f"unknown story part {part!r}")
        recipient = context.get("recipient")
        if recipient is not None:  # his own role, once for every event of his story
            players = players_from(context.get("players", ())).seen_by(str(recipient))
            context = {**context, "players": players}
        parsed = [e if isinstance(e, Event) else Event.from_dict(e, key.ruleset) for e in events]
        fragments: list[str] = []
        shown: list[Event] = []
        for index, event in enumerate(parsed):
            if not event.is_visible_to(recipient, groups):
                continue
            if part != "all" and ("public" in event.audience) != (part == "public"):
                continue
            fragment = self.render_event(key, context, event, f"{rng_seed}|{index}")
            shown.append(event)
            if fragment:
                fragments.append(fragment)
        game = context.get("game")
        told = None if game is None else Game.from_any(game)
        if not shown and (
            part == "private" or (not send_empty and not always_told(told, self.words(key)))
        ):
            return None
        told_in = story_mail_for(told, self.words(key))
        mail_key = key.with_event(told_in)
        extra: dict[str, Any] = {"stories": fragments, "events": shown}
        if part == "private":
            extra["private"] = True
        return self.render_mail(mail_key, {**context, **extra}, rng_seed)


def _unlisted_of(
    actions: Sequence[Action], unlisted: Callable[[Action | Sequence[str]], str]
) -> Callable[[Action | Sequence[str]], str]:
    """`unlisted` with its line for each of a mail's `actions` worked out once for the mail
    (its template and its layout both ask), by identity; anything else as `unlisted`."""
    lines = [(action, unlisted(action)) for action in actions]

    def once(listed: Action | Sequence[str]) -> str:
        for asked, line in lines:
            if asked is listed:
                return line
        return unlisted(listed)

    return once


def _team_of(ruleset: str, role: str) -> str | None:
    """The team of `role` in `ruleset` (None when either is unknown)."""
    try:
        spec = get_ruleset(ruleset).roles.get(role)
    except UnknownRuleset:
        return None
    return None if spec is None else spec.team


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
    part: str = "all",
) -> RenderedMail | None:
    """Render one step's story mail for one recipient (see Renderer.render_story)."""
    return Renderer(store).render_story(
        key, context, events, rng_seed, groups=groups, send_empty=send_empty, part=part
    )
