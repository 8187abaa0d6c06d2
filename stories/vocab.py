"""Language-generic wording built on Babel (CLDR): plurals, numbers, lists, dates, durations.

Nothing here knows a language or a ruleset: each function takes a Babel locale id (from the
pack's words.toml, `locale = "nl"`).  The words of a ruleset live in
`stories/<ruleset>/<lang>/words.toml` (:mod:`stories.words`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Literal

from babel import Locale
from babel.dates import format_datetime
from babel.numbers import format_decimal
from babel.units import format_unit

#: CLDR plural categories in the order a template gives the forms (`other` may be left out).
PLURAL_ORDER = ("zero", "one", "two", "few", "many", "other")

#: Duration units: the suffix of a duration ("2d") -> (seconds, CLDR unit), largest first.
DURATION_UNITS = (
    ("d", 86400, "duration-day"),
    ("h", 3600, "duration-hour"),
    ("m", 60, "duration-minute"),
    ("s", 1, "duration-second"),
)


def locale_of(locale: str | Locale) -> Locale:
    """The Babel locale for an id such as `nl`, `en_GB`, `ru` (ValueError when unknown); a
    Locale as it is (the words': :attr:`stories.words.Words.cldr`, parsed once with them)."""
    return Locale.parse(locale)


def plain_number(n: int | float) -> int | float:
    """An integral float as an int (1.0 is "1", and counts as one)."""
    return int(n) if isinstance(n, float) and n.is_integer() else n


def plural_category(n: int | float, locale: str | Locale) -> str:
    """The CLDR plural category of `n`: "one", "few", "many", "other", …"""
    return str(locale_of(locale).plural_form(plain_number(n)))


def plural_categories(locale: str | Locale) -> tuple[str, ...]:
    """The categories the locale distinguishes, in the order of a template's forms.

    `nl`, `en`: ("one", "other"); `ru`: ("one", "few", "many", "other").
    """
    tags = locale_of(locale).plural_form.tags
    return tuple(c for c in PLURAL_ORDER if c in tags or c == "other")


def plural(n: int | float, locale: str | Locale, forms: Sequence[str]) -> str:
    """The form of `forms` that goes with `n`, one form per category of the locale.

    `plural(2, "nl", ["stem", "stemmen"])` -> "stemmen"; Russian takes one, few, many:
    `plural(5, "ru", ["голос", "голоса", "голосов"])` -> "голосов".  A category without a form
    of its own (Russian fractions, `other`) takes the last form given.
    """
    if not forms:
        raise ValueError("plural() needs at least one form")
    categories = plural_categories(locale)
    index = categories.index(plural_category(n, locale))
    return forms[min(index, len(forms) - 1)]


def number(n: int | float, locale: str | Locale) -> str:
    """`n` in digits with the locale's decimal mark, without grouping: "1,5", "1.5", "1000"."""
    return str(format_decimal(plain_number(n), locale=locale, group_separator=False))


def _list_patterns(locale: str, style: str) -> Mapping[str, str]:
    return {key: str(value) for key, value in locale_of(locale).list_patterns[style].items()}


def join(items: Sequence[str], locale: str, style: Literal["standard", "or"] = "standard") -> str:
    """Items joined as the locale does: "Anna, Bram en Cas"; `style="or"`: "Anna of Bram".

    (CLDR's list patterns, applied as Babel's format_list does; Italian writes "ed" before a
    name that begins with an e: "Lea, Dina ed Ezio".)
    """
    if len(items) <= 1:
        return items[0] if items else ""
    patterns = _list_patterns(locale, style)
    last = patterns["2"] if len(items) == 2 else patterns["end"]
    if locale.split("_")[0] == "it" and items[-1][:1] in "eEèÈéÉ":
        last = last.replace("} e {", "} ed {")  # the d eufonica: "Dina ed Ezio"
    if len(items) == 2:
        return last.format(items[0], items[1])
    joined = last.format(items[-2], items[-1])
    middle = patterns["middle"]
    between = middle[3:-3] if middle.startswith("{0}") and middle.endswith("{1}") else None
    if between is not None and "{" not in between:
        # "{0}, {1}": the middle items joined at once (applying the pattern item by item
        # copies the growing list for each name: a thousand names cost half a million copies)
        joined = between.join([*items[1:-2], joined])
    else:
        for item in reversed(items[1:-2]):
            joined = middle.format(item, joined)
    return patterns["start"].format(items[0], joined)


def when(moment: dt.datetime, pattern: str, locale: str | Locale) -> str:
    """A moment with a CLDR date pattern: "EEEE d MMMM 'om' HH:mm" -> "woensdag 18 november om
    10:00" (the locale's weekday and month names), on the clock of the moment's own time zone
    (the narrator gives a deadline in the game's zone).  A naive moment is UTC.  `locale`: an
    id, or the Locale parsed from it (the words': :attr:`stories.words.Words.cldr`)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return str(format_datetime(moment, pattern, tzinfo=moment.tzinfo, locale=locale))


def duration_unit(amount: int, unit: str, locale: str | Locale, written: str | None = None) -> str:
    """`amount` of a CLDR duration unit: "2 dagen", "5 минут"; `written` replaces the digits
    (the number in words: "twee dagen")."""
    text = ""
    for length in ("long", "short"):  # some locales (nl days) have only the short pattern
        text = str(format_unit(amount, unit, length=length, locale=locale))
        if unit not in text:
            break
    if written is not None:
        text = text.replace(number(amount, locale), written, 1)
    return text


def split_duration(seconds: int) -> tuple[int, str]:
    """The largest whole unit of a duration: 172800 s -> (2, "duration-day")."""
    for _, size, unit in DURATION_UNITS:
        if seconds >= size and seconds % size == 0:
            return seconds // size, unit
    return seconds, DURATION_UNITS[-1][2]
