"""The mail layout: the HTML part around a story (header with the kind of mail, role card,
moves set apart, action box, roster, footer) and the running roster of the text part, worded
by the pack's words.toml ``[mail]``.

Stories write text only; this module (not the packs) shapes every mail's HTML, from the same
facts the text tells: so a new pack or a reworded template needs nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup, escape

from stories import vocab
from stories.context import Action, Cast, Game, cast_counts, shared_cast
from stories.helpers import ucfirst
from stories.sandbox import with_globals
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
#: The mails that ask for moves: their action box is there even without a deadline.
MOVE_MAILS = frozenset({"step", "reminder"})
#: The mails that tell the story of a step or of the game: their header says so.
STORY_MAILS = frozenset({"night_result", "day_result", "game_over", "epilogue"})
#: The event types that tell a death: the story mail's header strip names who died.
DEATH_EVENTS = frozenset({"death"})
#: Mail -> (its kind's label in [mail], the header's colours: background, text).
KINDS: Mapping[str, tuple[str, str, str]] = MappingProxyType(
    {
        "step": ("action", "#ffd27a", "#3b2600"),
        "reminder": ("action", "#ffd27a", "#3b2600"),
        "error": ("kind_error", "#f6c1bd", "#5a0f0a"),
        "receipt": ("kind_receipt", "#bfe3c4", "#0f3d17"),
        "role": ("kind_role", "#d4ccf2", "#251a52"),
        **{mail: ("kind_story", "#c9d8f0", "#142a4d") for mail in STORY_MAILS},
    }
)

#: A game with more living players than this is big: when the pages are configured (docs/web.md)
#: its mails sum the roster up and link the public game page, and a step mail writes a list of
#: more choices than this as one line pointing to the reader's own page (docs/stories.md, "A big
#: game").  A thousand players would otherwise read a thousand names in each of a thousand mails.
BIG_GAME = 40

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
    exiled_label: str = ""  # "Esiliati (1)"
    exiled: str = ""  # the exiled, out of play but living (Lupus); "" when nobody is
    # A big game's roster, summed up (:func:`summed_roster`): its lines instead of the names,
    # the last one linking `link`, the public game page.
    summary: tuple[str, ...] = ()
    link: str = ""

    def lines(self) -> list[str]:
        """The roster as the text part ends with it: one line for the living, one for the dead
        (left out while nobody died), one for the exiled (left out while nobody is); a big
        game's, its summary."""
        if self.summary:
            return list(self.summary)
        lines = [f"{self.alive_label}: {self.alive}"]
        if self.dead:
            lines.append(f"{self.dead_label}: {self.dead}")
        if self.exiled:
            lines.append(f"{self.exiled_label}: {self.exiled}")
        return lines


def public_roles(cast: Cast) -> dict[str, str | None]:
    """name -> role as the whole village knows it, from the cast every reader shares.

    A recipient's own copy of the cast carries his own role (stories.context.Cast.with_player);
    the shared cast does not, so no mail's roster shows what only its reader knows.  A living
    player's role shows only when every living player's does (the game is over), or when the
    village saw it (`revealed`: the Dorpsgek): a cast that holds one living role by mistake
    does not leak it either.
    """
    shared = shared_cast(cast)
    living_known = all(p.role is not None for p in shared if p.alive)
    return {p.name: p.role if (not p.alive or living_known or p.revealed) else None for p in shared}


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
    dead = [shown(p.name) for p in shared if not p.alive and not p.exiled]
    exiled = [shown(p.name) for p in shared if not p.alive and p.exiled]
    roster = Roster(
        alive_label=fill(label.alive, count=str(len(alive))),
        alive=names(alive),
        dead_label=fill(label.dead, count=str(len(dead))),
        dead=names(dead) if dead else "",
        exiled_label=fill(label.exiled, count=str(len(exiled))),
        exiled=names(exiled) if exiled else "",
    )
    shared._memo[memo_key] = roster
    return roster


def is_big(cast: Cast) -> bool:
    """Whether the game of `cast` is big: more than :data:`BIG_GAME` players alive."""
    return cast_counts(cast)[0] > BIG_GAME


def summed_roster(
    cast: Cast, words: Words, names: Callable[..., str], link: str, fallen: Sequence[str]
) -> Roster:
    """A big game's roster in a few lines: how many are alive and dead (and exiled), who died
    in the step just told (`fallen`), and the public game page (`link`) where every name is.
    The same for every reader: no name but the fallen, no role."""
    alive, dead, exiled = cast_counts(cast)
    label = words.mail
    counts = fill(label.roster_count, alive=str(alive), dead=str(dead))
    if exiled:
        counts += " " + fill(label.exiled, count=str(exiled)) + "."
    lines = [counts]
    if fallen:
        lines.append(fill(label.roster_fallen, names=names(list(fallen))))
    lines.append(fill(label.roster_link, url=link))
    return Roster(
        alive_label=fill(label.alive, count=str(alive)),
        alive="",
        dead_label=fill(label.dead, count=str(dead)),
        dead="",
        exiled_label=fill(label.exiled, count=str(exiled)),
        summary=tuple(lines),
        link=link,
    )


def is_unlisted(choices: Sized, cast: Cast) -> bool:
    """Whether a big game's mail leaves these `choices` to the reader's page: more than
    :data:`BIG_GAME` of them, in a big game (the mail needs his page's link to say so)."""
    return len(choices) > BIG_GAME and is_big(cast)


def choices_elsewhere(
    choices: Sized, cast: Cast, page_link: str | None, words: Words, count: Callable[..., str]
) -> str:
    """The line a big game's mail (a step mail, a reminder, an error reply) writes instead of
    its list of `choices` when that list is longer than :data:`BIG_GAME`: how many, and the
    reader's own page (`page_link`) where they are.  "" when the mail lists them (a small
    game, a short list, no page)."""
    if page_link is None or not is_unlisted(choices, cast):
        return ""
    many = count(len(choices), *words.mail.name_forms)
    return fill(words.mail.choices_elsewhere, count=many, url=page_link)


def roster_elsewhere(cast: Cast, words: Words, names: Callable[..., str], link: str | None) -> str:
    """The line a big game's mail (a role mail) writes instead of naming every player of
    `cast`: its summed-up roster (:func:`summed_roster`: the counts and the public game page
    `link`) in one line.  "" when the mail names them (a small game, no game page)."""
    if link is None or not is_big(cast):
        return ""
    return " ".join(summed_roster(cast, words, names, link, ()).summary)


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


def deadline_of(ctx: Mapping[str, Any], words: Words) -> str:
    """The step's deadline in words and its zone ("" without one)."""
    game: Game | None = ctx.get("game")
    if game is None or game.deadline is None:
        return ""
    written = vocab.when(game.deadline, words.when, words.cldr)
    return f"{written} ({game.timezone})"


def action_box(
    mail: str, ctx: Mapping[str, Any], words: Words, moves: Sequence[Move]
) -> dict[str, Any] | None:
    """The action box of a mail that asks for a vote, set before the story's signature: the
    `moves` not set apart in the story and the deadline in the game's time zone.  None for
    other mails, and for an error mail with neither."""
    if mail not in ACTION_MAILS:
        return None
    deadline = deadline_of(ctx, words)
    if not moves and not deadline and mail not in MOVE_MAILS:
        return None
    return {
        "heading": words.mail.action,
        "moves": [move_html(move) for move in moves],
        "deadline_label": words.mail.deadline,
        "deadline": deadline,
        "told": "",
    }


# --- the story, with each move set apart where it asks for it ---------------------------------

_BULLET = re.compile(r"^[-*]\s+")
#: The marks a story quotes a word to write with: «arrest Alice», "blanco", „witte“, “kill”.
_QUOTES = "«\"„“‘'"
P_STYLE = "margin:0 0 10px 0;"
UL_STYLE = "margin:0 0 10px 0; padding-left:22px;"


@dataclass(frozen=True)
class Move:
    """One move of an action mail as its HTML sets it apart: a heading naming the word to
    write, the choices once (inline), and the story's own lines about writing it."""

    heading: str
    choices: Markup
    lines: tuple[str, ...]


def _paragraphs(body: str) -> list[list[str]]:
    return [paragraph.split("\n") for paragraph in body.split("\n\n")] if body else []


_QUOTED = re.compile("[" + re.escape(_QUOTES) + "]")
_WORD_END = re.compile(r"[\s«»„“”‘’\"',.;:!?()]+")


def _quotes_word(line: str, words: Iterable[str]) -> bool:
    """Whether `line` quotes one of `words` (of up to three words) at the start of a
    quotation: «убить Alice», "blanco", „witte“.  A set lookup per quotation mark, so a day
    vote's thousand names cost no more than a keyword."""
    marks = [m.end() for m in _QUOTED.finditer(line)]
    if not marks:
        return False
    wanted = {w.casefold() for w in words if w}
    folded = line.casefold()
    for start in marks:
        tokens = _WORD_END.split(folded[start:], maxsplit=3)[:3]
        if any(" ".join(tokens[:k]) in wanted for k in (1, 2, 3) if k <= len(tokens)):
            return True
    return False


def _choice_block(
    lines: Sequence[tuple[int, str]],
    start: int,
    labels: Sequence[str],
    joined: Callable[[], Sequence[str]],
) -> list[int]:
    """The indices in `lines` (from `start`) of the story's list of exactly these choices:
    its `- ` items with the label line above them ("Je keuzes:"), or one line "Label: A, B"
    (the choices as `joined` writes them: worked out only for a line ending with the last)."""
    index = start
    while index < len(lines):
        paragraph, line = lines[index]
        if _BULLET.match(line):
            end = index
            while end < len(lines) and lines[end][0] == paragraph and _BULLET.match(lines[end][1]):
                end += 1
            if end - index == len(labels) and all(
                _BULLET.sub("", text, count=1) == label
                for (_p, text), label in zip(lines[index:end], labels, strict=True)
            ):
                above = index - 1
                label = above >= start and lines[above][0] == paragraph
                if label and lines[above][1].endswith(":"):
                    return list(range(above, end))
                return list(range(index, end))
            index = end
            continue
        if labels and line.endswith(labels[-1]):
            for names in joined():
                head = line[: -len(names)] if names and line.endswith(names) else None
                if head is not None and head.rstrip().endswith(":"):
                    return [index]
        index += 1
    return []


def _write_line(
    lines: Sequence[tuple[int, str]],
    start: int,
    block: Sequence[int],
    written: Sequence[str],
) -> int | None:
    """The index of the story's line that quotes a word to write for this move: the nearest
    after its list of choices (within a few lines), else before it, else the first from
    `start`; None when there is none."""
    if not written:
        return None
    if block:
        after = range(block[-1] + 1, min(block[-1] + 4, len(lines)))
        before = range(block[0] - 1, start - 1, -1)
        order: Sequence[int] = [*after, *before]
    else:
        order = range(start, len(lines))
    return next((i for i in order if _quotes_word(lines[i][1], written)), None)


def _told_before(
    lines: Sequence[tuple[int, str]], first: int, start: int, taken: set[int]
) -> list[int]:
    """The lines that tell a move, just above its list or line to write: the lines above it
    in its paragraph, else the whole paragraph above (never the first: the greeting), when
    they come after the previous move and are plain lines."""
    paragraph = lines[first][0]
    above = [i for i in range(start, first) if lines[i][0] == paragraph]
    if not above and first > 0:
        previous = lines[first - 1][0]
        above = [i for i in range(start, first) if lines[i][0] == previous]
        if previous == 0 or len(above) != sum(1 for p, _t in lines if p == previous):
            return []
    if any(i in taken or _BULLET.match(lines[i][1]) for i in above):
        return []
    return above


def _move_heading(action: Action, words: Words) -> tuple[str, tuple[str, ...]]:
    """A move's heading ("Блокер — напишите «арест»") and the words its lines quote."""
    label = words.mail
    title = _action_title(action.kind, words)
    if action.keyword:
        spelt = words.keywords.get(action.keyword, (action.keyword,))
        move, written = fill(label.move, word=spelt[0]), tuple(spelt)
    else:
        move, written = label.move_name, ()
    return (f"{title} — {move}" if title else ucfirst(move)), written


def escaped(text: str) -> str:
    """`text` escaped for HTML as :func:`markupsafe.escape` escapes a str (the same five
    characters, the same entities; a test compares the two), as a plain str: the lines and
    names of a mail's HTML are joined as strs, and ``escape`` makes each a ``Markup`` first
    (a call in Python per line of every mail)."""
    return (
        text.replace("&", "&amp;")
        .replace(">", "&gt;")
        .replace("<", "&lt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )


def inline_choices(names: tuple[str, ...]) -> Markup:
    """The choices in one wrapping line, each name kept whole (each escaped, then joined as
    plain strings: a day vote of a thousand players lists a thousand names in each mail, and
    ``Markup.format`` per name costs ten times as much)."""
    return Markup(
        " · ".join(f'<span style="white-space:nowrap;">{escaped(name)}</span>' for name in names)
    )


def linked(text: str, url: str) -> Markup:
    """`text` escaped, with `url` in it made a link."""
    shown = escape(text)
    if not url:
        return shown
    address = escape(url)
    return Markup(shown.replace(address, Markup('<a href="{0}">{0}</a>').format(url)))


@dataclass(frozen=True)
class Laid:
    """A story laid out: its pieces in order (a paragraph's lines, a list's items, a move),
    and the moves the story gives no place to (they go with the deadline, before the
    signature)."""

    pieces: tuple[tuple[str, Any], ...]
    unplaced: tuple[Move, ...]


def lay_out(
    body: str, asked: Sequence[tuple[Action, Sequence[str]]], words: Words, ctx: Mapping[str, Any]
) -> Laid:
    """The pieces of a story in which each asked move is set apart at the place the story
    asks for it: the story's list of its choices (and the line quoting the word to write)
    becomes the move's box, so the choices are listed once.  A move the story gives no
    place to is left for the box before the signature, with the layout's own lines."""
    paragraphs = _paragraphs(body)
    lines = [(p, text) for p, paragraph in enumerate(paragraphs) for text in paragraph]
    label_of = ctx.get("choice_names", list)
    names = ctx.get("names")
    taken: set[int] = set()
    at: dict[int, Move] = {}
    unplaced: list[Move] = []
    start = 0
    unlisted = ctx.get("unlisted")
    for action, choices in asked:
        heading, written = _move_heading(action, words)
        # A big game's long list: the story's line saying where the choices are stands for it.
        # (A step mail's are its action's; an error reply's, the valid names it gives.)
        elsewhere = (
            "" if unlisted is None else unlisted(action if choices is action.choices else choices)
        )
        labels = tuple(label_of(choices)) if action.max > 0 and not elsewhere else ()

        def joined(labels: tuple[str, ...] = labels) -> list[str]:
            return [", ".join(labels)] + ([names(labels)] if names and labels else [])

        if elsewhere:
            found = (i for i in range(start, len(lines)) if lines[i][1].endswith(elsewhere))
            first = next(found, None)
            block = [] if first is None else [first]
        else:
            block = _choice_block(lines, start, labels, joined) if labels else []
        write = _write_line(lines, start, block, written)
        after = block[-1] + 1 if block else len(lines)
        if write is None and after < len(lines) and not _BULLET.match(lines[after][1]):
            # The line after its list that says how to write it: in the list's paragraph
            # ("Noem één naam, of stem blanco."), or quoting a name ("например «Alice»").
            same = lines[after][0] == lines[block[-1]][0]
            if same or (
                not action.keyword and _quotes_word(lines[after][1], (*labels, *words.blanco))
            ):
                write = after
        anchors = sorted({*block, *(() if write is None else (write,))} - taken)
        shown = (
            linked(elsewhere, ctx.get("page_link") or "")
            if elsewhere
            else inline_choices(labels)
            if labels
            else Markup("")
        )
        if not anchors:
            unplaced.append(Move(heading, shown, tuple(_generated_lines(action, words, ctx))))
            continue
        told = _told_before(lines, anchors[0], start, taken)
        taken.update(anchors, told)
        own = tuple(lines[i][1] for i in told)
        own += (lines[write][1],) if write is not None else ()
        at[min(anchors + told)] = Move(heading, shown, own)
        start = anchors[-1] + 1
    pieces: list[tuple[str, Any]] = []
    for index, (paragraph, text) in enumerate(lines):
        if index in at:
            pieces.append(("move", at[index]))
        if index in taken:
            continue
        kind = "item" if _BULLET.match(text) else "line"
        pieces.append((kind, (paragraph, _BULLET.sub("", text) if kind == "item" else text)))
    return Laid(tuple(pieces), tuple(unplaced))


def story_html(pieces: Sequence[tuple[str, Any]], links: Mapping[str, str] | None = None) -> Markup:
    """The HTML of laid-out story pieces: paragraphs (a single line break a `<br>`), lists,
    and each move in a box of its own; every text escaped.  `links`: line -> address, a big
    game's line that stands for a list (:func:`unlisted_links`): a line or item holding it
    has that address made a link."""
    out: list[str] = []

    def shown(text: str) -> str:
        if not links:  # (most mails: no line stands for a list)
            return escaped(text)
        url = next((url for line, url in links.items() if line in text), "")
        return str(linked(text, url)) if url else escaped(text)

    run: list[str] = []
    items: list[str] = []
    current: int | None = None

    def flush() -> None:
        if run:
            out.append(f'<p style="{P_STYLE}">' + "<br>\n".join(run) + "</p>")
            run.clear()
        if items:
            out.append(f'<ul style="{UL_STYLE}">\n' + "\n".join(items) + "\n</ul>")
            items.clear()

    for kind, value in pieces:
        if kind == "move":
            flush()
            out.append(str(move_html(value)))
            continue
        paragraph, text = value
        if paragraph != current:
            flush()
            current = paragraph
        if kind == "item":
            if run:
                flush()
            items.append(f"<li>{shown(text)}</li>")
        else:
            if items:
                flush()
            run.append(shown(text))
    flush()
    return Markup("\n".join(out))


_MOVE_BOX = Markup(
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" '
    'style="border-collapse:collapse; margin:0 0 6px 0; background-color:#fff3d1; '
    'color:#1c1c1c; border:2px solid #8a5300;">\n<tr>\n<td class="move" style="padding:3px 8px; '
    "background-color:#fff3d1; color:#1c1c1c; font-family:Arial, Helvetica, sans-serif; "
    'font-size:14px; line-height:1.3;">\n<div style="margin:0; color:#1c1c1c;">'
    '<h3 style="display:inline; margin:0 6px 0 0; font-size:15px; line-height:1.3; '
    'color:#5c3700;">{heading}</h3>{choices}</div>\n{rest}</td>\n</tr>\n</table>'
)
_MOVE_LINE = Markup('<p style="margin:2px 0 0 0; color:#1c1c1c;">{}</p>\n')
_MOVE_CHOICES = Markup(' <span class="choices" style="color:#1c1c1c;">{}</span>')
#: The end of a sentence: a move's next line runs on after it in the same paragraph.
_SENTENCE_END = re.compile(r"[.!?…»)]$")


def _running(lines: Sequence[str]) -> list[str]:
    """A move's lines as the box's paragraphs: a line after a whole sentence runs on in the
    same paragraph (a phone's screen is narrow: one paragraph wraps shorter than two); a line
    after a label ("Je keuzes:") keeps its own."""
    paragraphs: list[str] = []
    for line in lines:
        if paragraphs and _SENTENCE_END.search(paragraphs[-1]):
            paragraphs[-1] += " " + line
        else:
            paragraphs.append(line)
    return paragraphs


def move_html(move: Move) -> Markup:
    """One move's box: its heading, its choices in one wrapping line, its lines."""
    choices = _MOVE_CHOICES.format(move.choices) if move.choices else Markup("")
    rest = Markup("").join(_MOVE_LINE.format(line) for line in _running(move.lines))
    heading = f"{move.heading}:" if move.choices else move.heading
    return _MOVE_BOX.format(heading=heading, choices=choices, rest=rest)


def _generated_lines(action: Action, words: Words, ctx: Mapping[str, Any]) -> list[str]:
    """The layout's own lines about a move: how many names, blanco, the keyword."""
    label = words.mail
    lines = [_how_many(action, words, ctx)]
    if action.blanco and action.max > 0 and words.blanco:
        lines.append(fill(label.blanco, word=words.blanco[0]))
    if action.keyword:
        spelt = words.keywords.get(action.keyword, (action.keyword,))
        lines.append(fill(label.keyword, word=spelt[0]))
    return [line for line in lines if line]


def signature_at(pieces: Sequence[tuple[str, Any]]) -> int:
    """Where the story's signature begins (its last paragraph, when it has more than one):
    the box with the deadline goes before it, so a phone shows it first."""
    paragraphs = [v[0] for k, v in pieces if k != "move"]
    if len(set(paragraphs)) < 2:
        return len(pieces)
    last = paragraphs[-1]
    return next(i for i, (k, v) in enumerate(pieces) if k != "move" and v[0] == last)


def role_card(ctx: Mapping[str, Any], words: Words, body: str) -> dict[str, Any] | None:
    """The role mail's card: his role, his team, the players he knows and the words his
    moves are written with (those the story quotes; else "a name")."""
    role = ctx.get("role")
    if not role:
        return None
    label = words.mail
    names = ctx["names"]
    facts = ctx.get("facts") or {}
    ids = str(role).split("+")
    negative = facts.get("negative")  # Mafia: a black's night role behind his peaceful one
    if isinstance(negative, str) and negative not in ids:
        ids.append(negative)
    parts = [words.roles[r].name if r in words.roles else r for r in ids]
    team = ctx.get("team")
    folded = body.casefold()
    found: dict[str, int] = {}
    for forms in words.keywords.values():
        spots = [folded.find(q + forms[0].casefold()) for q in _QUOTES] if forms else []
        spots = [spot for spot in spots if spot >= 0]
        if spots:
            found[forms[0]] = min(spots)
    taught = sorted(found, key=found.__getitem__)
    before, _, after = label.move.partition("{word}")
    open_mark, close_mark = before[-1:], after[:1]
    rows = [(label.kind_role, names(parts))]
    if team and team in words.teams:
        rows.append((label.team, ucfirst(words.teams[team])))
    mates = [str(m) for m in ctx.get("mates") or facts.get("partners") or ()]
    if mates:
        rows.append((label.mates, names(mates)))
    written = ", ".join(f"{open_mark}{w}{close_mark}" for w in taught)
    rows.append((label.write, written or label.move_name))
    return {"rows": rows}


def unlisted_links(mail: str, ctx: Mapping[str, Any], game_link: str | None) -> dict[str, str]:
    """The lines a big game's role or error mail writes instead of a list (``unlisted``: its
    summed-up players, its choices), each with the address it gives (the game's page, the
    reader's own): its HTML makes that address a link.  Empty for a small game's."""
    unlisted = ctx.get("unlisted")
    if unlisted is None:
        return {}
    if mail == "role" and game_link:
        line, url = unlisted(ctx["players"]), game_link
    elif mail == "error" and ctx.get("choices") and ctx.get("page_link"):
        line, url = unlisted(ctx["choices"]), ctx["page_link"]
    else:
        return {}
    return {line: url} if line else {}


def deaths_of(ctx: Mapping[str, Any]) -> list[str]:
    """Who died in a story mail's events, in the order told."""
    dead: list[str] = []
    for event in ctx.get("events") or ():
        player = event.get("player") if event.get("type") in DEATH_EVENTS else None
        if player and str(player) not in dead:
            dead.append(str(player))
    return dead


def help_subject(game: Game | None, words: Words) -> str:
    """The subject of a Help mail about `game`: "Help WW5" (the language's first Help word)."""
    word = ucfirst(words.help[0])
    return f"{word} {game.name}" if game is not None else word


def compile_layout() -> Template:
    """The compiled mail layout (autoescaped, strict): compiled by each Renderer
    (:class:`stories.render.Renderer`) at its first HTML mail, or before when asked
    (:meth:`~stories.render.Renderer.compile_layout`), which passes it to :func:`mail_html`."""
    env = Environment(
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    return env.from_string(LAYOUT_FILE.read_text(encoding="utf-8"))


def _render(layout: Template, **values: Any) -> str:
    """``layout.render(**values)``, its context made from one dict (see
    :func:`stories.sandbox.with_globals`)."""
    context = layout.new_context(with_globals(layout, values), shared=True)
    return "".join(layout.root_render_func(context))


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
    body: str,
    roster: Roster | None,
    layout: Template,
    game_link: str | None = None,
) -> str:
    """The HTML part of a rendered mail, laid out by `layout` (:func:`compile_layout`'s): a
    header (what kind of mail, game, moment; who died, in a story), the story `body` (the
    normalised text, escaped here) with each move of an action mail set apart where the story
    asks for it, the action box before the story's signature, the role card of a role mail,
    the roster and a footer (how to vote, how to ask for help).  Every value is escaped;
    the game's page (`game_link`) and the reader's are links where a big game's line gives
    them."""
    game: Game | None = ctx.get("game")
    label = words.mail
    laid = lay_out(body, _actions_asked(mail, ctx), words, ctx)
    pieces = list(laid.pieces)
    action = action_box(mail, ctx, words, laid.unplaced)
    split = signature_at(pieces) if action is not None else len(pieces)
    if action is not None and action["deadline"]:
        # The story's own line with the deadline (and its zone) goes in the box, in place of
        # the box's: the deadline is told once, in the story's words.
        told = [
            i
            for i, (kind, value) in enumerate(pieces[:split])
            if kind == "line" and action["deadline"] in value[1]
        ]
        if told:
            action["told"] = pieces.pop(told[-1])[1][1]
            split -= 1
    footer: list[str] = []
    if mail not in ADMIN_MAILS:
        # A step mail's own line with the deadline tells how to reply (every pack's does):
        # the layout's recipe is not said a second time below it.
        if action is not None and not (mail in MOVE_MAILS and action["told"]):
            footer.append(label.reply)
        if ctx.get("code") not in NO_HELP_ERRORS:
            footer.append(fill(label.help, subject=help_subject(game, words)))
    shown = roster if mail in HTML_ROSTER_MAILS else None
    link: str | None = ctx.get("page_link")
    personal = None
    if link is not None:
        before, _, after = label.page_link.partition("{url}")
        personal = {"before": before, "url": link, "after": after, "private": label.page_private}
    kind = KINDS.get(mail)
    header = dict.fromkeys(("game", "moment", "kind", "background", "colour"), "")
    if game is not None:
        header.update(game=game.name, moment=ctx.get("moment", ""))
    if kind is not None:
        header.update(kind=getattr(label, kind[0]), background=kind[1], colour=kind[2])
    dead = deaths_of(ctx) if mail in STORY_MAILS else []
    links = unlisted_links(mail, ctx, game_link)
    return _render(
        layout,
        lang=language,
        title=subject,
        header=header if header["game"] or header["kind"] else None,
        deaths=None if not dead else {"label": label.died, "names": ctx["names"](dead)},
        card=role_card(ctx, words, body) if mail == "role" else None,
        story=story_html(pieces[:split], links),
        signature=story_html(pieces[split:], links),
        action=action,
        personal=personal,
        roster=None
        if shown is None
        else {
            "heading": label.roster,
            "alive_label": shown.alive_label,
            "alive": shown.alive,
            "dead_label": shown.dead_label,
            "dead": shown.dead,
            "exiled_label": shown.exiled_label,
            "exiled": shown.exiled,
            "summary": [linked(line, shown.link) for line in shown.summary],
        },
        footer=footer,
    )
