"""The words of a ruleset in one language: `stories/<ruleset>/<lang>/words.toml`, loaded, checked.

One file per ruleset and language, shared by that language's themes: role, team, cause, phase and
step words for the story helpers, the wording of every error code, and the written words the
parser accepts (keywords, blanco, genders, help, stop words).  The format is in docs/stories.md.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.lists import format_list

from rules.core.registry import UnknownRuleset, get_ruleset, ruleset_ids

WORDS_FILE = "words.toml"
GENDERS = ("man", "vrouw")
#: The story mails a step's story may be told in.
STORY_MAILS = ("night_result", "day_result")

_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)(?::(or))?\}")  # {name}, or {name:or} for alternatives


class WordsError(ValueError):
    """A words.toml file that is missing, malformed, or lacks words its ruleset needs."""


@dataclass(frozen=True)
class RoleWords:
    """How one role is named: bare, with articles, and in the plural."""

    name: str
    definite: str
    indefinite: str
    plural: str
    definite_plural: str


@dataclass(frozen=True)
class StepWords:
    """A step's name; `moment` and `mail` override its phase's moment and story mail;
    `always`: its story mail goes to every reader, even one with nothing visible to read."""

    name: str
    moment: str | None = None
    mail: str | None = None
    always: bool = False


@dataclass(frozen=True)
class MailWords:
    """The labels of the mail layout (words.toml ``[mail]``): the HTML part's header, action
    box, roster and footer, and the running roster of the text part.  ``{name}``s are filled
    by :mod:`stories.layout` (see docs/stories.md, "words.toml")."""

    roster: str  # heading of the roster
    alive: str  # {count}: "Nog in leven ({count})"
    dead: str  # {count}
    with_role: str  # {name} {role}: "{name} ({role})"
    action: str  # heading of the action box
    choices: str  # "Je keuzes"
    names_exact: str  # {count}: "Noem {count}." (count: "twee namen")
    names_most: str  # {max}
    names_range: str  # {min} {max}
    name_forms: tuple[str, ...]  # the noun counted: ["naam", "namen"] (CLDR plural forms)
    blanco: str  # {word}: the language's blank vote
    keyword: str  # {word}: a keyword the vote must contain
    deadline: str  # the label of the deadline
    reply: str  # how to answer: reply with the name(s) in the body
    help: str  # {subject}: how to ask the admins for help


@dataclass(frozen=True)
class WebWords:
    """The labels of the game pages (words.toml ``[web]``, docs/web.md): the list of games and
    the public page of a game.  ``{name}``s are filled by the narrator's web pages."""

    games: str  # heading of the list of games
    open: str  # games open for signup
    running: str
    paused: str
    ended: str
    no_games: str
    signed_up: str  # {count}
    sign_up: str  # {address} {game}: how to sign up by mail
    now: str  # the label of the current step
    story: str  # heading of the story so far
    votes: str  # heading of a vote's tally
    blank: str  # a blank vote in a tally
    abstain: str  # a voter without a keyword in a tally of keyword votes
    epilogue: str
    winners: str
    roles: str  # heading of every role, after the end
    back: str  # the link to the list of games
    personal: str  # a player's own page: not to be forwarded
    role: str  # the labels of his role card
    team: str
    mates: str
    news: str  # heading of his private news
    your_votes: str  # heading of his votes of this step
    nothing_asked: str
    send: str  # the button of the vote form
    sent: str  # after a vote on the page: it goes the way of a mail


#: The placeholders each [web] label must contain.
WEB_PLACEHOLDERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"signed_up": ("count",), "sign_up": ("address", "game")}
)

#: The placeholders each [mail] label must contain.
MAIL_PLACEHOLDERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "alive": ("count",),
        "dead": ("count",),
        "with_role": ("name", "role"),
        "names_exact": ("count",),
        "names_most": ("max",),
        "names_range": ("min", "max"),
        "blanco": ("word",),
        "keyword": ("word",),
        "help": ("subject",),
    }
)


ParamValue = str | int | float | tuple[str, ...] | list[str]


@dataclass(frozen=True)
class Words:
    """Every word of one ruleset in one language (see :func:`load_words`)."""

    ruleset: str
    language: str
    origin: str
    locale: str
    when: str
    numbers: tuple[str, ...]
    nobody: str
    error_fallback: str
    roles: Mapping[str, RoleWords]
    teams: Mapping[str, str]
    causes: Mapping[str, str]
    phases: Mapping[str, str]
    steps: Mapping[str, StepWords]
    errors: Mapping[str, str]
    pronouns: Mapping[str, tuple[str, str]]
    keywords: Mapping[str, tuple[str, ...]]
    blanco: tuple[str, ...]
    genders: Mapping[str, tuple[str, ...]]
    help: tuple[str, ...]
    stop_words: tuple[str, ...]
    mail: MailWords
    #: theme -> the narrator's name in that theme (the From name of its mails); optional.
    narrators: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The labels of the game pages; None where the file has no ``[web]`` (a pack written
    #: before the pages: the pages then use the ruleset's English words).
    web: WebWords | None = None

    def narrator(self, theme: str) -> str | None:
        """The name the narrator goes by in `theme` (else in the ruleset's main theme), or
        None when the words do not say."""
        return self.narrators.get(theme) or self.narrators.get(self.ruleset)

    def error_text(self, code: str, params: Mapping[str, ParamValue] | None = None) -> str:
        """The sentence for error `code`, its `{param}`s filled from `params`.

        A list is joined with ", ", or as alternatives in the language's words when written
        ``{name:or}`` ("Anna of Anne").  A part of the text in `[brackets]` is left out when one
        of its parameters is missing (or an empty list); the fallback text names an unknown code.
        """
        given = dict(params or {})
        values = {key: _param(value) for key, value in given.items()}
        values = {key: value for key, value in values.items() if value != ""}
        template = self.errors.get(code)
        if template is None:
            return self.error_fallback.replace("{code}", code)

        def optional(match: re.Match[str]) -> str:
            part = match.group(1)
            needed = [name for name, _style in _PLACEHOLDER.findall(part)]
            return part if all(name in values for name in needed) else ""

        def fill(match: re.Match[str]) -> str:
            name, style = match.group(1), match.group(2)
            value = given.get(name)
            if style and isinstance(value, tuple | list) and value:
                return format_list([str(item) for item in value], style="or", locale=self.locale)
            return values.get(name, "-")

        text = _OPTIONAL.sub(optional, template)
        return _PLACEHOLDER.sub(fill, text)

    def moment_pattern(self, phase: str | None, step: str | None) -> str:
        """The moment's wording ("Nacht {night}"): the step's own, else its phase's ("" if none)."""
        own = self.steps.get(step) if step is not None else None
        if own is not None and own.moment is not None:
            return own.moment
        return self.phases.get(phase or "", "")

    def keyword_of(self) -> Mapping[str, str]:
        """Written word (lower case) -> keyword id, for the parser."""
        return MappingProxyType(
            {word: keyword for keyword, words in self.keywords.items() for word in words}
        )


def _param(value: ParamValue) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(str(item) for item in value)
    return str(value)


def words_path(ruleset: str, language: str, root: Path | None = None) -> Path:
    """Where the words of `ruleset` in `language` live."""
    base = root if root is not None else Path(__file__).resolve().parent
    return base / ruleset / language / WORDS_FILE


def languages_of(ruleset: str, root: Path | None = None) -> tuple[str, ...]:
    """The languages that have a words.toml for `ruleset`, sorted."""
    base = root if root is not None else Path(__file__).resolve().parent
    return tuple(sorted(p.parent.name for p in (base / ruleset).glob(f"*/{WORDS_FILE}")))


@cache
def load_words(ruleset: str, language: str) -> Words:
    """The shipped words of `ruleset` in `language` (read once per process).

    Raises WordsError, naming the file and key, when the file is missing or malformed, or lacks
    a word for a role, team, cause, step or keyword of the ruleset.
    """
    return read_words(words_path(ruleset, language), ruleset, language)


def read_words(path: Path, ruleset: str, language: str) -> Words:
    """Read and check one words.toml (see :func:`load_words`); raises WordsError."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WordsError(f"{path}: no words for ruleset {ruleset!r} in {language!r}") from None
    except tomllib.TOMLDecodeError as error:
        raise WordsError(f"{path}: {error}") from None
    reader = _Reader(str(path), data)
    words = reader.words(ruleset, language)
    reader.check_complete(words)
    return words


class _Reader:
    """Typed access to one parsed file, with errors that name the file and key."""

    def __init__(self, origin: str, data: Mapping[str, Any]) -> None:
        self.origin = origin
        self.data = data

    def fail(self, key: str, problem: str) -> WordsError:
        return WordsError(f"{self.origin}: {key}: {problem}")

    def string(
        self, table: Mapping[str, Any], key: str, where: str, *, required: bool = True
    ) -> str:
        value = table.get(key)
        if value is None and not required:
            return ""
        if not isinstance(value, str) or not value:
            raise self.fail(f"{where}{key}", "must be a non-empty string")
        return value

    def strings(self, table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = table.get(key)
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(item, str) and item for item in value)
        ):
            raise self.fail(f"{where}{key}", "must be a non-empty list of strings")
        return tuple(value)

    def table(self, key: str) -> Mapping[str, Any]:
        value = self.data.get(key)
        if not isinstance(value, dict):
            raise self.fail(f"[{key}]", "missing table")
        return value

    def string_table(self, key: str) -> Mapping[str, str]:
        table = self.table(key)
        return MappingProxyType({name: self.string(table, name, f"[{key}] ") for name in table})

    def list_table(self, key: str) -> Mapping[str, tuple[str, ...]]:
        table = self.table(key)
        return MappingProxyType({name: self.strings(table, name, f"[{key}] ") for name in table})

    def words(self, ruleset: str, language: str) -> Words:
        data = self.data
        locale = self.string(data, "locale", "")
        try:
            Locale.parse(locale)
        except (UnknownLocaleError, ValueError):
            raise self.fail("locale", f"{locale!r} is not a Babel (CLDR) locale") from None
        roles = {}
        for role, table in self.table("roles").items():
            if not isinstance(table, dict):
                raise self.fail(f"[roles.{role}]", "must be a table")
            fields = ("name", "definite", "indefinite", "plural", "definite_plural")
            unknown = sorted(set(table) - set(fields))
            if unknown:
                raise self.fail(f"[roles.{role}]", f"unknown key(s) {', '.join(unknown)}")
            roles[role] = RoleWords(*(self.string(table, f, f"[roles.{role}] ") for f in fields))
        steps = {}
        for step, table in self.table("steps").items():
            if not isinstance(table, dict):
                raise self.fail(f"[steps.{step}]", "must be a table")
            where = f"[steps.{step}] "
            mail = self.string(table, "mail", where, required=False) or None
            if mail is not None and mail not in STORY_MAILS:
                raise self.fail(f"{where}mail", f"must be one of {', '.join(STORY_MAILS)}")
            always = table.get("always", False)
            if not isinstance(always, bool):
                raise self.fail(f"{where}always", "must be true or false")
            steps[step] = StepWords(
                self.string(table, "name", where),
                self.string(table, "moment", where, required=False) or None,
                mail,
                always,
            )
        pronouns = {}
        for helper, forms in self.list_table("pronouns").items():
            if len(forms) != len(GENDERS) or not helper.isidentifier() or helper.startswith("_"):
                raise self.fail(f"[pronouns] {helper}", "must be a helper name -> [man, vrouw]")
            pronouns[helper] = (forms[0], forms[1])
        genders = self.list_table("genders")
        if set(genders) != set(GENDERS):
            raise self.fail("[genders]", f"must have exactly {', '.join(GENDERS)}")
        numbers = self.strings(data, "numbers", "")
        return Words(
            ruleset=ruleset,
            language=language,
            origin=self.origin,
            locale=locale,
            when=self.string(data, "when", ""),
            numbers=numbers,
            nobody=self.string(data, "nobody", ""),
            error_fallback=self.string(data, "error_fallback", ""),
            roles=MappingProxyType(roles),
            teams=self.string_table("teams"),
            causes=self.string_table("causes"),
            phases=self.string_table("phases"),
            steps=MappingProxyType(steps),
            errors=self.string_table("errors"),
            pronouns=MappingProxyType(pronouns),
            keywords=self.list_table("keywords"),
            blanco=self.strings(data, "blanco", ""),
            genders=genders,
            help=self.strings(data, "help", ""),
            stop_words=self.strings(data, "stop_words", ""),
            mail=self.mail_words(),
            narrators=self.string_table("narrators")
            if "narrators" in data
            else MappingProxyType({}),
            web=self.web_words() if "web" in data else None,
        )

    def web_words(self) -> WebWords:
        """The ``[web]`` table: every label, each with the placeholders it must fill."""
        table = self.table("web")
        known = {f.name for f in dataclasses.fields(WebWords)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise self.fail("[web]", f"unknown key(s) {', '.join(unknown)}")
        values: dict[str, str] = {}
        for name in known:
            text = self.string(table, name, "[web] ")
            for placeholder in WEB_PLACEHOLDERS.get(name, ()):
                if "{" + placeholder + "}" not in text:
                    raise self.fail(f"[web] {name}", f"must contain {{{placeholder}}}")
            values[name] = text
        return WebWords(**values)

    def mail_words(self) -> MailWords:
        """The ``[mail]`` table: every label, each with the placeholders it must fill."""
        table = self.table("mail")
        known = {f.name for f in dataclasses.fields(MailWords)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise self.fail("[mail]", f"unknown key(s) {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name in known:
            if name == "name_forms":
                values[name] = self.strings(table, name, "[mail] ")
                continue
            text = self.string(table, name, "[mail] ")
            for placeholder in MAIL_PLACEHOLDERS.get(name, ()):
                if "{" + placeholder + "}" not in text:
                    raise self.fail(f"[mail] {name}", f"must contain {{{placeholder}}}")
            values[name] = text
        return MailWords(**values)

    def check_complete(self, words: Words) -> None:
        """Every id of the ruleset has its words (a registered ruleset only)."""
        if words.ruleset not in ruleset_ids():
            return
        try:
            ruleset = get_ruleset(words.ruleset)
        except UnknownRuleset:  # pragma: no cover - ruleset_ids() said it exists
            return
        for table, have, need in (
            ("roles", words.roles, tuple(ruleset.roles)),
            ("teams", words.teams, ruleset.teams),
            ("causes", words.causes, ruleset.causes),
            ("steps", words.steps, ruleset.steps),
            ("keywords", words.keywords, ruleset.keywords),
        ):
            missing = [name for name in need if name not in have]
            if missing:
                raise self.fail(f"[{table}]", f"no words for {', '.join(missing)}")


def shipped_languages() -> tuple[str, ...]:
    """Every language some registered ruleset has a words.toml for, sorted."""
    return tuple(sorted({lang for rid in ruleset_ids() for lang in languages_of(rid)}))
