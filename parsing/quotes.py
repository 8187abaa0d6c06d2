"""The text the player wrote: quoted replies, reply headers, forwards and signatures removed.

Works on plain text (HTML is first rendered to text with blockquotes as ``>`` lines):

1. ``>``-quoted lines are dropped wherever they are, so both top- and bottom-posted answers
   survive; a reply header ("On … wrote:", "Op … schreef …:", "Op … heeft … het volgende
   geschreven:", "Am … schrieb …:", "Il giorno … ha scritto:", …) right above a quoted block is
   dropped with it.
2. The first reply header, forward marker or Outlook header block ("Van:/From: …" followed by
   "Verzonden:/Sent: …") that is *not* followed by ``>`` quotes starts an unquoted original
   (Outlook-style top posting): everything from there on is cut.  Forward and reply markers are
   recognised by quotequail (maintained by Close), extended with the Italian and Outlook forms.
3. Signatures are cut: the ``-- `` delimiter, mobile footers ("Sent from my iPhone",
   "Verstuurd vanaf mijn iPhone", "Outlook voor iOS downloaden", …) and a closing greeting
   ("Groetjes, Anna", "Met vriendelijke groet", "Cheers") followed by at most a few short lines.
"""

from __future__ import annotations

import functools
import re

import quotequail  # type: ignore[import-untyped]

MAX_LINES = 5000

_INVISIBLE = str.maketrans({"\u200b": None, "\ufeff": None, "\u00a0": " ", "\u200e": None})

_REPLY_HEADERS = [
    r"on\b.{0,200}\bwrote\s*:",
    r"op\b.{0,200}\bschreef\b.{0,200}:",
    r"op\b.{0,200}\bheeft\b.{0,200}\bgeschreven\s*:",
    r"am\b.{0,200}\bschrieb\b.{0,200}:",
    r"le\b.{0,200}\ba\s+[ée]crit\s*:",
    r"il giorno\b.{0,200}\bha scritto\s*:",
    r"il\b.{0,200}\bha scritto\s*:",
    r"el\b.{0,200}\bescribi[óo]\s*:",
    r"em\b.{0,200}\bescreveu\s*:",
    r"den\b.{0,200}\bskrev\b.{0,200}:",
    r".{0,200}<[^<>\s]+@[^<>\s]+>\s*(?:wrote|schreef|schrieb|ha scritto|a [ée]crit)\s*:",
    r".{1,100}\s(?:wrote|schreef|schrieb)\s*:",
]
_REPLY_HEADER = re.compile(r"^\s*(?:" + "|".join(_REPLY_HEADERS) + r")\s*$", re.IGNORECASE)
_WRAPPED_HEADER_START = re.compile(r"^\s*(?:on|op|am|le|il|el|em|den)\s", re.IGNORECASE)
_FORWARD_MARKER = re.compile(
    r"^\s*(?:-{2,}\s*(?:forwarded message|original message|doorgestuurd bericht|"
    r"oorspronkelijk bericht|origineel bericht|oorspronkelijk e-mailbericht|"
    r"urspr[üu]ngliche nachricht|weitergeleitete nachricht|messaggio (?:originale|inoltrato)|"
    r"message transf[ée]r[ée]|message d'origine|mensaje original)\s*-{2,}|"
    r"begin (?:forwarded message|doorgestuurd bericht)\s*:|"
    r"(?:anfang der weitergeleiteten e-mail|d[ée]but du message r[ée]exp[ée]di[ée])\s*:|"
    r"_{20,})\s*$",
    re.IGNORECASE,
)
_OUTLOOK_FIELD = re.compile(
    r"^\s*\**\s*(?:from|van|von|de|da|sent|verzonden|gesendet|envoy[ée]|inviato|date|datum|"
    r"data|to|aan|an|[àa]|a|subject|onderwerp|betreff|objet|oggetto|cc|bcc)\s*\**\s*:",
    re.IGNORECASE,
)
_OUTLOOK_FROM = re.compile(r"^\s*\**\s*(?:from|van|von|de|da)\s*\**\s*:", re.IGNORECASE)
_SIGNATURE_DELIMITER = re.compile(r"^--\s*$|^—\s*$")
_MOBILE_FOOTER = re.compile(
    r"^\s*(?:(?:sent|send|verzonden|verstuurd|gestuurd|gesendet|envoy[ée]|inviato|enviado|"
    r"skickat|wys[łl]ane)\s+(?:from|vanaf|van|via|met|with|using|by|von|de|da|dal|desde|fr[åa]n|"
    r"z)\b.{0,80}|von meinem .{1,40} gesendet.{0,40}|(?:get|download|ontvang|haal)\s+"
    r"outlook\b.{0,60}|outlook voor (?:ios|android)(?: downloaden)?.{0,40}|"
    r"sent with proton mail.{0,60}|verzonden met .{1,40})\s*$",
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
    if len(line) > 400:
        return 0
    if _REPLY_HEADER.match(line):
        return 1
    if (
        index + 1 < len(lines)
        and not _is_quoted(lines[index + 1])
        and _WRAPPED_HEADER_START.match(line)
    ):
        joined = f"{line} {lines[index + 1].strip()}"
        if len(joined) <= 400 and _REPLY_HEADER.match(joined):
            return 2
    return 0


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
        if _OUTLOOK_FROM.match(line) and _is_outlook_block(lines, index):
            return lines[:index]
    # quotequail knows more reply and forward markers than the patterns above.
    text = "\n".join(lines)
    own = _quotequail_own_part(text) if len(text) <= _SHORT_TEXT else _quotequail_own(text)
    return lines if own is None else own.split("\n")


#: Texts up to this length (a vote, a signup) have quotequail's verdict remembered: a game's
#: players send the same few short texts (names) over and over.
_SHORT_TEXT = 200


def _quotequail_own(text: str) -> str | None:
    """What precedes the first quoted original quotequail recognises, or None (none found)."""
    try:
        parts = quotequail.quote(text, limit=MAX_LINES, quote_intro_line=True)
    except (ValueError, IndexError, RecursionError):
        return None
    if parts and parts[0][0] and len(parts) > 1:
        return str(parts[0][1])
    return None


_quotequail_own_part = functools.lru_cache(maxsize=4096)(_quotequail_own)


def _is_outlook_block(lines: list[str], index: int) -> bool:
    fields = 0
    for line in lines[index : index + 6]:
        if _OUTLOOK_FIELD.match(line):
            fields += 1
        elif line.strip():
            break
    return fields >= 2


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
