"""The text the player wrote: quoted replies, reply headers, forwards and signatures removed.

Works on plain text (HTML is first rendered to text with blockquotes as ``>`` lines):

1. ``>``-quoted lines are dropped wherever they are, so both top- and bottom-posted answers
   survive; a reply header ("On … wrote:", "Op … schreef …:", "Am … schrieb …:", "Il giorno
   … ha scritto:", "пт, 27 нояб. 2026 г. в 10:00, Рассказчик <…>:", "27.11.2026 10:00,
   Рассказчик пишет:", …) right above a quoted block is dropped with it, also when its client
   wrapped it over two lines.
2. The first reply header, separator ("-----Original Message-----", "----Messaggio
   originale----", "-------- Пересылаемое сообщение --------", …) or header block ("От: … /
   Отправлено: … / Кому: … / Тема: …", GMX's "Gesendet: … / Von: …") that is *not* followed by
   ``>`` quotes starts an unquoted original (Outlook-style top posting): everything from there
   on is cut.  Which lines these are is data, one table per mail client and language, in
   :mod:`parsing.clients`; quotequail (maintained by Close) is asked last, for the markers of
   clients and languages those tables do not list.
3. Signatures are cut: the ``-- `` delimiter, mobile footers ("Sent from my iPhone",
   "Verstuurd vanaf mijn iPhone", "Отправлено из мобильной Почты Mail.ru", "Outlook voor iOS
   downloaden", …) and a closing greeting
   ("Groetjes, Anna", "Met vriendelijke groet", "Cheers") followed by at most a few short lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import quotequail  # type: ignore[import-untyped]

from parsing.clients import CLIENTS, SENDER_LABELS, WEEKDAYS

MAX_LINES = 5000

_INVISIBLE = str.maketrans({"\u200b": None, "\ufeff": None, "\u00a0": " ", "\u200e": None})

#: What each placeholder of an attribution template matches (parsing/clients.py).  Free text
#: is one lazy run: two free placeholders with only spaces or punctuation between them are
#: read as one run, so that no line costs more than a few passes (a date needs a digit ahead).
_FREE = r"[^\n]+?"
_FREE_BEFORE_ADDRESS = r"[^\n<]+?"  # a name ends at its "<address>"
_DIGIT_AHEAD = r"(?=[^\n]*?\d)"
_PLACEHOLDERS = {
    "time": r"\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:\s*[ap]\.?\s?m\.?)?",
    "address": r"\s*[^<>\s]+@[^<>\s]+\s*",  # spaces: a wrapped line joined inside <…>
}


def _literal(text: str) -> str:
    """A regular expression for literal ``text``: any spacing, a space allowed before a colon,
    a run of dashes for any number of dashes, of underscores for twenty or more."""
    text = re.sub(r"\s*(-{2,})\s*", r"\1", text)
    pieces = []
    for token in re.split(r"(-{2,}|_{2,}|\s+|:)", text):
        if not token:
            continue
        if token.startswith("--"):
            pieces.append(r"\s*-{2,}\s*")
        elif token.startswith("__"):
            pieces.append(r"_{20,}")
        elif token.isspace():
            pieces.append(r"\s+")
        elif token == ":":
            pieces.append(r"\s*:")
        else:
            pieces.append(re.escape(token))
    return "".join(pieces)


def _template(template: str) -> str:
    parts = re.split(r"\{(\w+)\}", template)
    pieces = [_literal(parts[0])]
    free = ""  # the free placeholders run together so far: "", "name" or "date"
    for index in range(1, len(parts), 2):
        placeholder, after = parts[index], parts[index + 1]
        if placeholder in _PLACEHOLDERS:
            pieces.append(_PLACEHOLDERS[placeholder] + _literal(after))
            continue
        free = "date" if "date" in (free, placeholder) else "name"
        following = parts[index + 2] if index + 2 < len(parts) else ""
        if following in ("date", "name") and not re.search(r"[\w<>@]", after):
            continue  # "{date}, {name}": one run
        run = _FREE_BEFORE_ADDRESS if after.lstrip().startswith("<") else _FREE
        if free == "date":
            run = _DIGIT_AHEAD + run
        pieces.append(run + _literal(after))
        free = ""
    return "".join(pieces)


def _whole_lines(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile(r"^\s*(?:" + "|".join(patterns) + r")\s*$", re.IGNORECASE)


_ATTRIBUTIONS = [
    template
    for client in CLIENTS
    for templates in client.attributions.values()
    for template in templates
]


def _compact(text: str) -> str:
    return "".join(text.casefold().split())


@dataclass(frozen=True)
class _Attribution:
    """One attribution template compiled, with the literal text every line it matches begins
    and ends with and the words it contains: cheap tests that spare most lines the pattern."""

    pattern: re.Pattern[str]
    head: str
    tail: str
    words: tuple[str, ...]

    @classmethod
    def from_template(cls, template: str) -> _Attribution:
        parts = re.split(r"\{\w+\}", template)
        words = tuple(word.casefold() for part in parts[1:-1] for word in _WORD.findall(part))
        return cls(
            _whole_lines([_template(template)]), _compact(parts[0]), _compact(parts[-1]), words
        )

    def matches(self, line: str, compact: str) -> bool:
        """Whether ``line`` (``compact``: folded, without spaces) is this attribution."""
        return (
            compact.startswith(self.head)
            and compact.endswith(self.tail)
            and all(word in compact for word in self.words)
            and self.pattern.match(line) is not None
        )


_WORD = re.compile(r"[^\W\d_]{2,}")
_REPLY_HEADERS = tuple(
    _Attribution.from_template(template) for template in dict.fromkeys(_ATTRIBUTIONS)
)
_WRAPPABLE_HEADERS = tuple(
    _Attribution.from_template(template)
    for template in dict.fromkeys(_ATTRIBUTIONS)
    if not template.startswith("{name}")
)
# A wrapped attribution's first line begins as a template does: its first word, or a date
# (a digit or a weekday).
_OPENING_WORDS = {
    template.split()[0] for template in _ATTRIBUTIONS if not template.startswith("{")
} | WEEKDAYS
_WRAPPED_HEADER_START = re.compile(
    r"^\s*(?:\d|(?:"
    + "|".join(re.escape(word) for word in sorted(_OPENING_WORDS, key=len, reverse=True))
    + r")(?![^\W\d_]))",
    re.IGNORECASE,
)
_FORWARD_MARKER = _whole_lines(
    dict.fromkeys(
        _literal(separator)
        for client in CLIENTS
        for separators in client.separators.values()
        for separator in separators
    )
)


def _label_key(label: str) -> str:
    return " ".join(label.casefold().split())


_BLOCKS = [block for client in CLIENTS for blocks in client.blocks.values() for block in blocks]
_FIELD = re.compile(
    r"^\s*\**\s*(?P<label>"
    + "|".join(
        _literal(label)
        for label in sorted({label for block in _BLOCKS for label in block}, key=len, reverse=True)
    )
    + r")\s*\**\s*:",
    re.IGNORECASE,
)
_BLOCK_STARTS = frozenset(_label_key(block[0]) for block in _BLOCKS)
_SENDERS = frozenset(map(_label_key, SENDER_LABELS))
_SIGNATURE_DELIMITER = re.compile(r"^--\s*$|^—\s*$")
_MOBILE_FOOTER = re.compile(
    r"^\s*(?:(?:sent|send|verzonden|verstuurd|gestuurd|gesendet|envoy[ée]|inviato|enviado|"
    r"skickat|wys[łl]ane)\s+(?:from|vanaf|van|via|met|with|using|by|von|de|da|dal|desde|fr[åa]n|"
    r"z)\b.{0,80}|von meinem .{1,40} gesendet.{0,40}|(?:get|download|ontvang|haal)\s+"
    r"outlook\b.{0,60}|outlook voor (?:ios|android)(?: downloaden)?.{0,40}|"
    r"sent with proton mail.{0,60}|verzonden met .{1,40}|отправлено\s+(?:с|из|через)\s.{1,60})\s*$",
    re.IGNORECASE,
)
_CLOSING = re.compile(
    r"^\s*(?:groet(?:en|jes)?|gr[.,]|grtz|grts|mvg|m\.v\.g\.?|(?:met )?vriendelijke groet(?:en)?|"
    r"(?:met )?hartelijke groet(?:en)?|(?:veel )?liefs|doei|cheers|regards|"
    r"(?:best|kind|warm) regards|best wishes|thanks|thank you|thx|bedankt|"
    r"dank(?: je| u)?(?: wel)?|tot (?:ziens|later|straks)|xx+|greetings|take care|ciao|"
    r"mfg|mit freundlichen gr[üu](?:ß|ss)en|viele gr[üu](?:ß|ss)e|saludos|"
    r"cordialement|saluti)(?:\b|(?<=[.,]))[\s,.!]*(?P<rest>.*)$",
    re.IGNORECASE,
)
_MAX_CLOSING_LINES = 3
_MAX_CLOSING_WORDS = 4


def strip_quotes(text: str) -> str:
    """Return only what the sender wrote in ``text`` (see the module docstring)."""
    lines = text.translate(_INVISIBLE).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [line.rstrip() for line in lines[:MAX_LINES]]
    lines = _drop_quoted(lines)
    lines = _cut_unquoted_original(lines)
    lines = _cut_signature(lines)
    lines = [line for line in lines if not _MOBILE_FOOTER.match(line)]
    lines = _cut_closing(lines)
    return "\n".join(lines).strip()


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _next_content(lines: list[str], start: int) -> int:
    index = start
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index


def _header_span(lines: list[str], index: int) -> int:
    """Number of lines (1 or 2, for wrapped headers) forming a reply header at ``index``."""
    line = lines[index]
    if len(line) > _MAX_HEADER_LENGTH:
        return 0
    # Every attribution ends with a colon: a cheap test first.
    if line.endswith(":") and _is_attribution(line):
        return 1
    if (
        index + 1 < len(lines)
        and lines[index + 1].endswith(":")
        and not _is_quoted(lines[index + 1])
        and _WRAPPED_HEADER_START.match(line)
    ):
        joined = f"{line} {lines[index + 1].strip()}"
        if len(joined) <= _MAX_HEADER_LENGTH and _is_attribution(joined, wrapped=True):
            return 2
    return 0


_MAX_HEADER_LENGTH = 250  # the longest real attribution, wrapped and joined, is about half


def _is_attribution(line: str, wrapped: bool = False) -> bool:
    """Whether ``line`` is an attribution; ``wrapped``: two lines joined, which only a template
    that opens with a word or a date may match ("{name} wrote:" would take any line above)."""
    compact = _compact(line)
    headers = _WRAPPABLE_HEADERS if wrapped else _REPLY_HEADERS
    return any(header.matches(line, compact) for header in headers)


def _drop_quoted(lines: list[str]) -> list[str]:
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _is_quoted(line):
            index += 1
            continue
        span = _header_span(lines, index) if line.strip() else 0
        if span:
            after = _next_content(lines, index + span)
            if after >= len(lines) or _is_quoted(lines[after]):
                index = after
                continue
        kept.append(line)
        index += 1
    return kept


def _cut_unquoted_original(lines: list[str]) -> list[str]:
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if _FORWARD_MARKER.match(line) or _header_span(lines, index):
            return lines[:index]
        if _is_header_block(lines, index):
            return lines[:index]
    # quotequail knows more reply and forward markers than the patterns above.
    if not _may_hold_quotequail_marker(lines):
        return lines
    text = "\n".join(lines)
    own = _quotequail_own(text)
    return lines if own is None else own.split("\n")


#: The last character of every line quotequail takes for a reply header or a forward marker
#: ("On … wrote:", "… <address>", "---- Original Message ----", a line of underscores): its
#: patterns all end so (tests/parsing/test_units.py checks them).
QUOTEQUAIL_MARKER_ENDS = (":", ">", "-", "_")


def _may_hold_quotequail_marker(lines: list[str]) -> bool:
    """Whether quotequail may find a quoted original in ``lines``: a line ends as a marker of
    its does, or there are so many lines that its limit cuts them (a mail of one line "Bram"
    is not scanned with its forty patterns)."""
    return len(lines) >= MAX_LINES or any(
        line.rstrip().endswith(QUOTEQUAIL_MARKER_ENDS) for line in lines
    )


def _quotequail_own(text: str) -> str | None:
    """What precedes the first quoted original quotequail recognises, or None (none found)."""
    try:
        parts = quotequail.quote(text, limit=MAX_LINES, quote_intro_line=True)
    except (ValueError, IndexError, RecursionError):
        return None
    if parts and parts[0][0] and len(parts) > 1:
        return str(parts[0][1])
    return None


def _is_header_block(lines: list[str], index: int) -> bool:
    """Whether a header block of a client (parsing/clients.py) starts at ``index``: a line
    with a block's first label, and more labelled lines below (two in all when it names the
    sender, else three), blank lines between them allowed."""
    start = _FIELD.match(lines[index])
    if start is None or _label_key(start.group("label")) not in _BLOCK_STARTS:
        return False
    needed = 2 if _label_key(start.group("label")) in _SENDERS else 3
    fields = 0
    for line in lines[index : index + 6]:
        if _FIELD.match(line):
            fields += 1
        elif line.strip():
            break
    return fields >= needed


def _cut_signature(lines: list[str]) -> list[str]:
    for index, line in enumerate(lines):
        if _SIGNATURE_DELIMITER.match(line):
            return lines[:index]
    return lines


def _cut_closing(lines: list[str]) -> list[str]:
    content = [index for index, line in enumerate(lines) if line.strip()]
    if len(content) < 2:
        return lines
    tail = content[-(_MAX_CLOSING_LINES + 1) :]
    for position, index in enumerate(tail):
        if index == content[0]:
            continue
        match = _CLOSING.match(lines[index])
        if match is None:
            continue
        after = [lines[i] for i in tail[position + 1 :]]
        short = [match.group("rest"), *after]
        if all(len(piece.split()) <= _MAX_CLOSING_WORDS for piece in short):
            return lines[:index]
    return lines
