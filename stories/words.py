"""The words of a ruleset in one language: its language's shared words and its pack's, checked.

Two files make them.  `stories/_lang/<lang>/words.toml` holds what every ruleset shares in that
language, once: the locale, date pattern and number words, the pronouns and phases, the blank,
Help, gender and stop words the parser accepts, the wording of the errors, the mail labels and
the game pages' labels.
`stories/<ruleset>/<lang>/words.toml` (the pack, shared by that language's themes) holds the
ruleset's own words (roles, teams, causes, steps, keywords, narrators) and adds to or overrides
the shared ones: its word lists are added to the language's (``[without]`` takes a shared word
out), its tables and values replace the language's entry by entry.  The format is in
docs/stories.md, section 11.
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
#: The folder (beside the rulesets' packs) of each language's shared words.
LANGUAGE_DIR = "_lang"
#: The word lists a pack adds to its language's (its ``[without]`` takes shared words out).
ADDED_LISTS = ("blanco", "help", "stop_words")
#: The tables a pack overrides entry by entry (``[genders]`` lists are added to, like the lists).
MERGED_TABLES = ("pronouns", "phases", "errors", "mail", "web")
#: The values a pack overrides whole.
SHARED_VALUES = ("locale", "when", "numbers", "nobody", "error_fallback")
#: Every key a language's shared words.toml may hold.
SHARED_KEYS = (*SHARED_VALUES, *ADDED_LISTS, "genders", *MERGED_TABLES)
GENDERS = ("man", "vrouw")
#: The story mails a step's story may be told in.
STORY_MAILS = ("night_result", "day_result")

_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_PLACEHOLDER = re.compile(r"\{([a-z_]+)(?::(or))?\}")  # {name}, or {name:or} for alternatives


class WordsError(ValueError):
    """A words.toml file that is missing, malformed, or lacks words its ruleset needs."""


@dataclass(frozen=True)
class RoleWords:
    """How one role is named: bare, with articles, and in the plural; a language whose role
    names agree with a woman gives her forms (``feminine``, ``feminine_definite``,
    ``feminine_indefinite``: "Veggente", "la Veggente", "una Veggente"), else they are ""."""

    name: str
    definite: str
    indefinite: str
    plural: str
    definite_plural: str
    feminine: str = ""
    feminine_definite: str = ""
    feminine_indefinite: str = ""


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
    exiled: str  # {count}: "Esiliati ({count})", out of play but living (Lupus)
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
    page_link: str  # {url}: the recipient's personal page (role and action mails, docs/web.md)
    page_private: str  # the line saying not to forward that link
    kind_role: str  # the header's kind of mail: the role mail (and its role card's heading)
    kind_receipt: str  # a receipt
    kind_story: str  # a story mail (night, day, game over, epilogue)
    kind_error: str  # an error mail (a step or reminder says `action`: "Jouw beurt")
    team: str  # the role card: his team
    mates: str  # the role card: the players he knows
    write: str  # the role card: the words his moves are written with
    move: str  # {word}: a move's heading in a step mail, naming its keyword
    move_name: str  # a move's heading when it is written with names only
    died: str  # a story mail: who died in it
    # A big game (stories.layout.BIG_GAME): the roster summed up, the choices on the pages.
    roster_count: str  # {alive} {dead}: "987 in leven, 13 dood."
    roster_fallen: str  # {names}: who died in the step just told
    roster_link: str  # {url}: the public game page, where every name is
    choices_elsewhere: str  # {count} {url}: a long list of choices, on the reader's own page


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
        "exiled": ("count",),
        "with_role": ("name", "role"),
        "names_exact": ("count",),
        "names_most": ("max",),
        "names_range": ("min", "max"),
        "blanco": ("word",),
        "keyword": ("word",),
        "help": ("subject",),
        "page_link": ("url",),
        "move": ("word",),
        "roster_count": ("alive", "dead"),
        "roster_fallen": ("names",),
        "roster_link": ("url",),
        "choices_elsewhere": ("count", "url"),
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
    #: The labels of the game pages (the language's ``[web]``, a pack's entries over it).
    web: WebWords
    #: theme -> the narrator's name in that theme (the From name of its mails); optional.
    narrators: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The Babel locale of `locale`, parsed with the words (Babel parses an id again at each
    #: call it is given to: a deadline in every receipt).
    cldr: Locale = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cldr", Locale.parse(self.locale))

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


def language_path(language: str, root: Path | None = None) -> Path:
    """Where the shared words of `language` live (``stories/_lang/<language>/words.toml``)."""
    base = root if root is not None else Path(__file__).resolve().parent
    return base / LANGUAGE_DIR / language / WORDS_FILE


def spoken_languages(root: Path | None = None) -> tuple[str, ...]:
    """The languages that have shared words, sorted."""
    base = root if root is not None else Path(__file__).resolve().parent
    return tuple(sorted(p.parent.name for p in (base / LANGUAGE_DIR).glob(f"*/{WORDS_FILE}")))


@cache
def load_shared(language: str) -> Mapping[str, Any]:
    """The shipped shared words of `language` as read from its file (read once per process;
    empty when the language has none).  Raises WordsError for a malformed file or a key that
    is no language's (see ``SHARED_KEYS``)."""
    return read_shared(language_path(language))


def read_shared(path: Path) -> Mapping[str, Any]:
    """Read one language's shared words.toml (empty when there is none); raises WordsError."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return MappingProxyType({})
    except tomllib.TOMLDecodeError as error:
        raise WordsError(f"{path}: {error}") from None
    unknown = sorted(set(data) - set(SHARED_KEYS))
    if unknown:
        raise WordsError(f"{path}: {', '.join(unknown)}: a ruleset's words, not a language's")
    return MappingProxyType(data)


def merge_words(shared: Mapping[str, Any], pack: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """A pack's words over its language's shared ones (see the module's documentation).

    Raises WordsError (naming `origin`) for a ``[without]`` that is not a table of word lists
    of ``ADDED_LISTS``, or takes out a word the language does not have."""
    merged = {key: value for key, value in shared.items()}
    without = pack.get("without", {})
    if not isinstance(without, dict) or not set(without) <= set(ADDED_LISTS):
        raise WordsError(f"{origin}: [without]: only {', '.join(ADDED_LISTS)} (lists of words)")
    for key, value in pack.items():
        if key == "without":
            continue
        if key in ADDED_LISTS and isinstance(value, list):
            merged[key] = _added(shared.get(key, []), value)
        elif key == "genders" and isinstance(value, dict):
            table = dict(shared.get(key, {}))
            for gender, written in value.items():
                table[gender] = _added(table.get(gender, []), written)
            merged[key] = table
        elif key in MERGED_TABLES and isinstance(value, dict):
            merged[key] = {**shared.get(key, {}), **value}
        else:
            merged[key] = value
    for key, words in without.items():
        have = merged.get(key, [])
        if not isinstance(words, list) or not all(word in have for word in words):
            raise WordsError(f"{origin}: [without] {key}: not all words of the language's")
        merged[key] = [word for word in have if word not in words]
    return merged


def _added(shared: object, own: object) -> object:
    """The shared list with the pack's own words after it (each word once); a pack whose list
    starts with a word of the language's leads with it (the mails ask for the first blank and
    Help word).  A value that is not a list is left as the pack wrote it, for the reader to
    name."""
    if not isinstance(shared, list) or not isinstance(own, list):
        return own
    lead = own[:1] if own and own[0] in shared else []
    return list(dict.fromkeys([*lead, *shared, *own]))


def _with_stop_words_from(merged: dict[str, Any], origin: str) -> dict[str, Any]:
    """`merged` with the stop words of the languages its ``stop_words_from`` names added (a
    ruleset whose players write several languages); raises WordsError for a language that
    has no shared words."""
    others = merged.pop("stop_words_from", [])
    if not isinstance(others, list) or not all(isinstance(lang, str) for lang in others):
        raise WordsError(f"{origin}: stop_words_from: must be a list of languages")
    words = merged.get("stop_words", [])
    for other in others:
        shared = load_shared(other).get("stop_words")
        if not isinstance(shared, list) or not isinstance(words, list):
            raise WordsError(f"{origin}: stop_words_from: {other!r} has no shared stop words")
        words = list(dict.fromkeys([*words, *shared]))
    return {**merged, "stop_words": words}


def languages_of(ruleset: str, root: Path | None = None) -> tuple[str, ...]:
    """The languages that have a words.toml for `ruleset`, sorted."""
    base = root if root is not None else Path(__file__).resolve().parent
    return tuple(sorted(p.parent.name for p in (base / ruleset).glob(f"*/{WORDS_FILE}")))


@cache
def load_words(ruleset: str, language: str) -> Words:
    """The shipped words of `ruleset` in `language`: the pack's over the language's shared
    words (read once per process).

    Raises WordsError, naming the file and key, when a file is missing or malformed, or the
    words lack a word for a role, team, cause, step or keyword of the ruleset.
    """
    return read_words(words_path(ruleset, language), ruleset, language)


def read_words(
    path: Path, ruleset: str, language: str, shared: Mapping[str, Any] | None = None
) -> Words:
    """Read and check one pack's words.toml over `shared` (default: the shipped shared words
    of `language`, :func:`load_shared`); see :func:`load_words`.  Raises WordsError."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WordsError(f"{path}: no words for ruleset {ruleset!r} in {language!r}") from None
    except tomllib.TOMLDecodeError as error:
        raise WordsError(f"{path}: {error}") from None
    base = load_shared(language) if shared is None else shared
    origin = str(path)  # a problem of the shared file itself is named by read_shared
    reader = _Reader(origin, _with_stop_words_from(merge_words(base, data, origin), origin))
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
            feminine = ("feminine", "feminine_definite", "feminine_indefinite")
            unknown = sorted(set(table) - set(fields) - set(feminine))
            if unknown:
                raise self.fail(f"[roles.{role}]", f"unknown key(s) {', '.join(unknown)}")
            if any(f in table for f in feminine) and not all(f in table for f in feminine):
                raise self.fail(f"[roles.{role}]", f"give all of {', '.join(feminine)} or none")
            roles[role] = RoleWords(
                *(self.string(table, f, f"[roles.{role}] ") for f in fields),
                *(self.string(table, f, f"[roles.{role}] ", required=False) for f in feminine),
            )
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
            web=self.web_words(),
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
