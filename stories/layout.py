"""The mail layout: the HTML part around a story (header, action box, roster, footer) and the
running roster of the text part, worded by the pack's words.toml ``[mail]``.

Stories write text only; this module (not the packs) shapes every mail's HTML, from the same
facts the text tells: so a new pack or a reworded template needs nothing here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup, escape

from stories import vocab
from stories.context import Action, Cast, Game, shared_cast
from stories.helpers import ucfirst
from stories.words import Words

#: The mails whose text and HTML end with the running roster: the story mails (to the whole
#: village) and the step mails (who may still be named).
ROSTER_MAILS = frozenset({"night_result", "day_result", "step", "reminder"})
#: The line the text's roster follows (the signature separator of RFC 3676, "-- ").
ROSTER_SEPARATOR = "-- "
#: The mails whose HTML shows the roster besides: the game over's text tells who was who itself.
HTML_ROSTER_MAILS = ROSTER_MAILS | {"game_over"}
#: The mails that ask for a vote: their HTML has the action box (choices, how many, deadline).
ACTION_MAILS = frozenset({"step", "reminder", "error"})
#: The mails to the admins: no reply recipe, no Help footer.
ADMIN_MAILS = frozenset({"help_forward", "help_digest"})
#: The error codes whose mail says that Help cannot reach anybody: its footer does not offer it.
NO_HELP_ERRORS = frozenset({"no-admin"})

LAYOUT_FILE = Path(__file__).resolve().parent / "layout" / "mail.html"


def fill(text: str, **values: str) -> str:
    """`text` with each ``{name}`` replaced by its value (other braces are left alone)."""
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


@dataclass(frozen=True)
class Roster:
    """Who is alive and who is dead, as the whole village may know it: a role only where the
    game has made it public (a dead player's when roles are revealed, everyone's at the end)."""

    alive_label: str  # "Nog in leven (4)"
    alive: str  # "Anna, Bram, Carla en Frank"
    dead_label: str  # "Dood (2)"
    dead: str  # "Dirk (Burger) en Eva"; "" when nobody died

    def lines(self) -> list[str]:
        """The roster as the text part ends with it: one line for the living, one for the dead
        (left out while nobody died)."""
        lines = [f"{self.alive_label}: {self.alive}"]
        if self.dead:
            lines.append(f"{self.dead_label}: {self.dead}")
        return lines


def public_roles(cast: Cast) -> dict[str, str | None]:
    """name -> role as the whole village knows it, from the cast every reader shares.

    A recipient's own copy of the cast carries his own role (stories.context.Cast.with_player);
    the shared cast does not, so no mail's roster shows what only its reader knows.  A living
    player's role shows only when every living player's does (the game is over): a cast that
    holds one living role by mistake does not leak it either.
    """
    shared = shared_cast(cast)
    living_known = all(p.role is not None for p in shared if p.alive)
    return {p.name: p.role if (not p.alive or living_known) else None for p in shared}


def roster_of(cast: Cast, words: Words, names: Callable[..., str]) -> Roster | None:
    """The roster of `cast` in `words` (None without players); worked out once per shared cast
    and language, for every mail of a batch."""
    shared = shared_cast(cast)
    if not shared:
        return None
    memo_key = ("roster", words.ruleset, words.language)
    known = shared._memo.get(memo_key)
    if isinstance(known, Roster):
        return known
    roles = public_roles(cast)
    label = words.mail

    def shown(name: str) -> str:
        role = roles.get(name)
        # A role of two cards ("detective+mafia", a black Mafia player's) reads as both names.
        parts = [words.roles.get(part) for part in role.split("+")] if role else []
        if not parts or any(part is None for part in parts):
            return name
        told = [part.name for part in parts if part is not None]
        return fill(label.with_role, name=name, role=told[0] if len(told) == 1 else names(told))

    alive = [shown(p.name) for p in shared if p.alive]
    dead = [shown(p.name) for p in shared if not p.alive]
    roster = Roster(
        alive_label=fill(label.alive, count=str(len(alive))),
        alive=names(alive),
        dead_label=fill(label.dead, count=str(len(dead))),
        dead=names(dead) if dead else "",
    )
    shared._memo[memo_key] = roster
    return roster


def _actions_asked(mail: str, ctx: Mapping[str, Any]) -> list[tuple[Action, Sequence[str]]]:
    """The actions a mail asks for, each with its valid names."""
    if mail not in ACTION_MAILS:
        return []
    if "actions" in ctx:
        return [(a, a.choices) for a in ctx["actions"]]
    action = ctx.get("action")
    if isinstance(action, Action):  # an error: the names it gives, as its text lists them
        return [(action, tuple(ctx.get("choices") or ()))]
    return []


def _action_title(kind: str, words: Words) -> str | None:
    if kind in words.roles:
        return words.roles[kind].name
    if kind in words.steps:
        return ucfirst(words.steps[kind].name)
    return None


def _how_many(action: Action, words: Words, ctx: Mapping[str, Any]) -> str:
    label = words.mail
    count, number = ctx["count"], ctx["number"]
    forms = label.name_forms
    if action.max <= 0:
        return ""
    if action.min == action.max:
        return fill(label.names_exact, count=count(action.max, *forms))
    if action.min <= 0:
        return fill(label.names_most, max=count(action.max, *forms))
    return fill(label.names_range, min=number(action.min), max=count(action.max, *forms))


@lru_cache(maxsize=64)
def list_items(names: tuple[str, ...]) -> Markup:
    """The escaped `<li>` items of `names`: built once for the choices every reader of a step
    shares (a day vote of a thousand players lists a thousand names in each mail)."""
    return Markup("\n".join(f"<li>{escape(name)}</li>" for name in names))


@lru_cache(maxsize=64)
def _when(moment: dt.datetime, zone: str, pattern: str, locale: str) -> str:
    """A deadline in words (the same for every mail of a step); `zone` is part of the key, as
    equal moments in different zones are equal datetimes but are written differently."""
    return vocab.when(moment, pattern, locale)


def action_box(mail: str, ctx: Mapping[str, Any], words: Words) -> dict[str, Any] | None:
    """The action box of a mail that asks for a vote: per action its title, choices, how many
    names, blanco and keyword; the deadline in the game's time zone.  None for other mails."""
    asked = _actions_asked(mail, ctx)
    if not asked:
        return None
    label = words.mail
    label_of = ctx.get("choice_names", list)  # a role or team among the choices, by its name
    items = []
    for action, choices in asked:
        lines = [_how_many(action, words, ctx)]
        if action.blanco and action.max > 0 and words.blanco:
            lines.append(fill(label.blanco, word=words.blanco[0]))
        if action.keyword:
            spelt = words.keywords.get(action.keyword, (action.keyword,))
            lines.append(fill(label.keyword, word=spelt[0]))
        items.append(
            {
                "title": _action_title(action.kind, words),
                "choices": list_items(tuple(label_of(choices))) if action.max > 0 else "",
                "lines": [line for line in lines if line],
            }
        )
    game: Game | None = ctx.get("game")
    deadline = ""
    if game is not None and game.deadline is not None:
        written = _when(game.deadline, str(game.deadline.tzinfo), words.when, words.locale)
        deadline = f"{written} ({game.timezone})"
    return {
        "heading": label.action,
        "choices_label": label.choices,
        "asked": items,
        "deadline_label": label.deadline,
        "deadline": deadline,
    }


def help_subject(game: Game | None, words: Words) -> str:
    """The subject of a Help mail about `game`: "Help WW5" (the language's first Help word)."""
    word = ucfirst(words.help[0])
    return f"{word} {game.name}" if game is not None else word


@cache
def _layout() -> Template:
    """The compiled layout (read once per process; autoescaped, strict)."""
    env = Environment(
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    return env.from_string(LAYOUT_FILE.read_text(encoding="utf-8"))


def link_lines(link: str, words: Words) -> list[str]:
    """The lines of a mail that carries the recipient's personal page `link`: the link, and
    that it is not to be forwarded."""
    return [fill(words.mail.page_link, url=link), words.mail.page_private]


def mail_html(
    mail: str,
    ctx: Mapping[str, Any],
    words: Words,
    *,
    language: str,
    subject: str,
    story: Markup,
    roster: Roster | None,
) -> str:
    """The HTML part of a rendered mail: a header (game, moment), the `story` (its body as
    escaped HTML), the action box, the roster and a footer (how to vote, how to ask for help).

    Every value is escaped by the layout (only `story`, already escaped, is markup).
    """
    game: Game | None = ctx.get("game")
    action = action_box(mail, ctx, words)
    footer: list[str] = []
    if mail not in ADMIN_MAILS:
        if action is not None:
            footer.append(words.mail.reply)
        if ctx.get("code") not in NO_HELP_ERRORS:
            footer.append(fill(words.mail.help, subject=help_subject(game, words)))
    shown = roster if mail in HTML_ROSTER_MAILS else None
    link: str | None = ctx.get("page_link")
    personal = None
    if link is not None:
        before, _, after = words.mail.page_link.partition("{url}")
        private = words.mail.page_private
        personal = {"before": before, "url": link, "after": after, "private": private}
    return _layout().render(
        lang=language,
        title=subject,
        header=None if game is None else {"game": game.name, "moment": ctx.get("moment", "")},
        story=story,
        action=action,
        personal=personal,
        roster=None
        if shown is None
        else {
            "heading": words.mail.roster,
            "alive_label": shown.alive_label,
            "alive": shown.alive,
            "dead_label": shown.dead_label,
            "dead": shown.dead,
        },
        footer=footer,
    )
