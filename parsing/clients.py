"""The quote headers mail clients write above a quoted or forwarded mail: one table per client.

A ruling: these are mail clients' formats, not game words, so they live here in ``parsing/``
and not in the story packs (a pack's ``words.toml`` says what players write; this says what
their mail programs add).  Each :class:`Client` lists, per language the narrator's games are
played in (``en``, ``nl``, ``it``, ``de``, ``ru``):

- ``attributions``: the line above a quote ("On … wrote:"), as a template: literal text with
  ``{date}`` (any text with a digit), ``{time}`` (``10:00``, ``10.00``, ``10:00 AM``),
  ``{name}`` (any text) and ``{address}`` (an e-mail address).  Case, spacing and the space
  before a colon do not matter.
- ``separators``: a line of its own above a forwarded or original mail, written as the client
  writes it; runs of dashes match any number of dashes, a run of underscores twenty or more.
- ``blocks``: the labels of a header block (Outlook's "От: … / Отправлено: … / Кому: … /
  Тема: …"), in the client's order; a block is read from its first label (see
  :data:`SENDER_LABELS`).

:mod:`parsing.quotes` compiles these tables and cuts what they mark; tests/mail holds a real
sample of each client in each language it is used in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Client:
    """What one mail client writes above a quote, per language (see the module docstring)."""

    name: str
    attributions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    separators: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    blocks: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)


OUTLOOK = Client(
    "Outlook (Windows, Mac, web, iOS, Android)",
    separators={
        "en": ("-----Original Message-----", "________________________________"),
        "nl": (
            "-----Oorspronkelijk bericht-----",
            "-----Origineel bericht-----",
            "-----Oorspronkelijk e-mailbericht-----",
        ),
        "it": ("-----Messaggio originale-----",),
        "de": ("-----Ursprüngliche Nachricht-----",),
        "ru": ("-----Исходное сообщение-----",),
    },
    blocks={
        # The classic block, and the new Outlook's (web, Windows, mobile: "Date" for "Sent").
        "en": (("From", "Sent", "To", "Cc", "Subject"), ("From", "Date", "To", "Cc", "Subject")),
        "nl": (
            ("Van", "Verzonden", "Aan", "CC", "Onderwerp"),
            ("Van", "Datum", "Aan", "CC", "Onderwerp"),
        ),
        "it": (("Da", "Inviato", "A", "Cc", "Oggetto"), ("Da", "Data", "A", "Cc", "Oggetto")),
        "de": (("Von", "Gesendet", "An", "Cc", "Betreff"), ("Von", "Datum", "An", "Cc", "Betreff")),
        "ru": (
            ("От", "Отправлено", "Кому", "Копия", "Тема"),
            ("От", "Дата", "Кому", "Копия", "Тема"),
        ),
    },
)

GMAIL = Client(
    "Gmail (web, Android, iOS)",
    attributions={
        "en": ("On {date} {name} wrote:",),
        "nl": ("Op {date} schreef {name}:",),
        "it": ("Il giorno {date} {name} ha scritto:", "Il {date} {name} ha scritto:"),
        "de": ("Am {date} schrieb {name}:",),
        "ru": ("{date} в {time}, {name} <{address}>:", "{date}, {name} <{address}>:"),
    },
    separators={
        "en": ("---------- Forwarded message ---------",),
        "nl": ("---------- Doorgestuurd bericht ---------",),
        "it": ("---------- Messaggio inoltrato ---------",),
        "de": ("---------- Weitergeleitete Nachricht ---------",),
        "ru": ("---------- Пересылаемое сообщение ---------",),
    },
    blocks={
        # A forward's block: only the sender's label is translated.
        "en": (("From", "Date", "Subject", "To"),),
        "nl": (("Van", "Date", "Subject", "To"),),
        "it": (("Da", "Date", "Subject", "To"), ("Da", "Data", "Oggetto", "A")),
        "de": (("Von", "Date", "Subject", "To"),),
        "ru": (("От", "Date", "Subject", "To"),),
    },
)

APPLE_MAIL = Client(
    "Apple Mail (Mac, iPhone, iPad)",
    attributions={
        "en": ("On {date}, at {time}, {name} wrote:", "On {date} {name} wrote:"),
        "nl": ("Op {date} heeft {name} het volgende geschreven:",),
        "it": ("Il giorno {date}, alle ore {time}, {name} ha scritto:",),
        "de": ("Am {date} um {time} schrieb {name}:",),
        "ru": ("{date}, в {time}, {name} написал(а):",),
    },
    separators={
        "en": ("Begin forwarded message:",),
        "nl": ("Begin doorgestuurd bericht:",),
        "it": ("Inizio messaggio inoltrato:",),
        "de": ("Anfang der weitergeleiteten Nachricht:", "Anfang der weitergeleiteten E-Mail:"),
        "ru": ("Начало переадресованного сообщения:",),
    },
)

THUNDERBIRD = Client(
    "Thunderbird (and Betterbird)",
    attributions={
        "en": ("On {date} {time}, {name} wrote:", "{name} wrote:"),
        "nl": ("Op {date} om {time} schreef {name}:", "{name} schreef:"),
        "it": ("Il {date} {time}, {name} ha scritto:", "{name} ha scritto:"),
        "de": ("Am {date} um {time} schrieb {name}:", "{name} schrieb:"),
        "ru": ("{date} {time}, {name} пишет:", "{name} пишет:"),
    },
    separators={
        "en": ("-------- Original Message --------", "-------- Forwarded Message --------"),
        "nl": ("-------- Origineel bericht --------", "-------- Doorgestuurd bericht --------"),
        "it": ("-------- Messaggio originale --------", "-------- Messaggio Inoltrato --------"),
        "de": (
            "-------- Originalnachricht --------",
            "-------- Weitergeleitete Nachricht --------",
        ),
        "ru": (
            "-------- Исходное сообщение --------",
            "-------- Перенаправленное сообщение --------",
        ),
    },
    blocks={
        # A forward's table, below its separator.
        "en": (("Subject", "Date", "From", "To"),),
        "nl": (("Onderwerp", "Datum", "Van", "Aan"),),
        "it": (("Oggetto", "Data", "Mittente", "A"),),
        "de": (("Betreff", "Datum", "Von", "An"),),
        "ru": (("Тема", "Дата", "От", "Кому"),),
    },
)

YANDEX_MAIL = Client(
    "Yandex Mail (web, apps)",
    attributions={
        "ru": ("{date}, {time}, {name} <{address}>:",),
        "en": ("{date}, {time}, {name} <{address}>:",),
    },
    separators={
        "ru": (
            "-------- Пересылаемое сообщение --------",
            "-------- Конец пересылаемого сообщения --------",
        ),
        "en": ("-------- Forwarded message --------", "-------- End of forwarded message --------"),
    },
)

MAIL_RU = Client(
    "Mail.ru (web, apps)",
    attributions={
        # The name alone where the address was dropped: "… 17:30 +03:00 от Рассказчик :".
        "ru": ("{date} от {name} <{address}>:", "{date} от {address}:", "{date} от {name}:"),
        "en": ("{date} from {name} <{address}>:", "{date} from {address}:", "{date} from {name}:"),
    },
    separators={
        "ru": ("-------- Пересылаемое сообщение --------",),
        "en": ("-------- Forwarded message --------",),
    },
    blocks={
        "ru": (("От кого", "Кому", "Дата", "Тема"),),
        "en": (("From", "To", "Date", "Subject"),),
    },
)

LIBERO_VIRGILIO = Client(
    "Libero Mail and Virgilio Mail (Italiaonline)",
    attributions={"it": ("Il {date} {time}, {name} ha scritto:",)},
    separators={"it": ("----Messaggio originale----", "----Messaggio inoltrato----")},
    blocks={"it": (("Da", "Data", "A", "Cc", "Oggetto"),)},
)

WEB_DE_GMX = Client(
    "WEB.DE and GMX (1&1 Mail & Media)",
    attributions={"de": ("Am {date} um {time} schrieb {name}:",)},
    separators={
        "de": (
            "-------- Original-Nachricht --------",
            "-------- Weitergeleitete Nachricht --------",
        ),
        "en": ("-------- Original Message --------", "-------- Forwarded Message --------"),
    },
    blocks={
        # The date first: "Gesendet: Freitag, 27. November 2026 um 10:00 Uhr / Von: …".
        "de": (("Gesendet", "Von", "An", "Cc", "Betreff"),),
        "en": (("Sent", "From", "To", "Cc", "Subject"),),
    },
)

PROTON_MAIL = Client(
    "Proton Mail (web, Bridge, apps)",
    attributions={"en": ("On {date}, {name} <{address}> wrote:",)},
    # Not translated: a Proton reply in any language carries these.
    separators={"en": ("------- Original Message -------", "------- Forwarded Message -------")},
    blocks={"en": (("From", "Date", "Subject", "To"),)},
)

OTHER_LANGUAGES = Client(
    "Any client in French, Spanish, Portuguese, Danish or Norwegian",
    attributions={
        "fr": ("Le {date} {name} a écrit:", "Le {date} {name} a ecrit:"),
        "es": ("El {date} {name} escribió:", "El {date} {name} escribio:"),
        "pt": ("Em {date} {name} escreveu:",),
        "da": ("Den {date} skrev {name}:",),
    },
    separators={
        "fr": (
            "-----Message d'origine-----",
            "-----Message transféré-----",
            "Début du message réexpédié:",
        ),
        "es": ("-----Mensaje original-----",),
    },
    blocks={
        "fr": (("De", "Envoyé", "À", "Cc", "Objet"), ("De", "Date", "À", "Objet")),
        "es": (("De", "Enviado", "Para", "CC", "Asunto"),),
    },
)

CLIENTS: tuple[Client, ...] = (
    OUTLOOK,
    GMAIL,
    APPLE_MAIL,
    THUNDERBIRD,
    YANDEX_MAIL,
    MAIL_RU,
    LIBERO_VIRGILIO,
    WEB_DE_GMX,
    PROTON_MAIL,
    OTHER_LANGUAGES,
)

#: The labels that name the sender in a header block: a block that starts with one needs two
#: labelled lines, any other (GMX's "Gesendet:", Thunderbird's "Subject:") three.
SENDER_LABELS = frozenset({"From", "Van", "Da", "Mittente", "Von", "От", "От кого", "De"})

#: Weekday names and abbreviations a date written first may begin with (Gmail's "пт, 27 нояб.",
#: Mail.ru's "Пятница, 27 ноября"): a line beginning with one, or with a digit, may be the first
#: half of an attribution its client wrapped over two lines.
WEEKDAYS = frozenset(
    """
    mon tue wed thu fri sat sun monday tuesday wednesday thursday friday saturday sunday
    ma di wo do vr za zo maandag dinsdag woensdag donderdag vrijdag zaterdag zondag
    lun mar mer gio ven sab dom lunedì martedì mercoledì giovedì venerdì sabato domenica
    mo mi fr sa so montag dienstag mittwoch donnerstag freitag samstag sonntag
    пн вт ср чт пт сб вс понедельник вторник среда четверг пятница суббота воскресенье
    """.split()  # noqa: SIM905 (a word list reads best as text)
)
