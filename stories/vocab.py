"""Words the story helpers need per language: role, team and step names, numbers, dates."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

LANGUAGES: Final = ("nl", "en")


@dataclass(frozen=True)
class RoleWords:
    """How one role is named in one language: bare, with articles, and in the plural."""

    name: str
    definite: str
    indefinite: str
    plural: str
    definite_plural: str


def _nl(name: str, plural: str, article: str = "de", indefinite: str | None = None) -> RoleWords:
    return RoleWords(
        name=name,
        definite=f"{article} {name}",
        indefinite=f"een {indefinite or name}",
        plural=plural,
        definite_plural=f"de {plural}",
    )


def _en(name: str, plural: str, article: str = "a") -> RoleWords:
    return RoleWords(
        name=name,
        definite=f"the {name}",
        indefinite=f"{article} {name}",
        plural=plural,
        definite_plural=f"the {plural}",
    )


ROLE_WORDS: Final = MappingProxyType(
    {
        "nl": MappingProxyType(
            {
                "burger": _nl("Burger", "Burgers"),
                "cupido": _nl("Cupido", "Cupido's"),
                "dief": _nl("Dief", "Dieven"),
                "dorpsgek": _nl("Dorpsgek", "Dorpsgekken"),
                "dorpsoudste": _nl("Dorpsoudste", "Dorpsoudsten"),
                "dwaas": _nl("Dwaas", "Dwazen"),
                "fluitspeler": _nl("Fluitspeler", "Fluitspelers"),
                "genezer": _nl("Genezer", "Genezers"),
                "goochelaar": _nl("Goochelaar", "Goochelaars"),
                "grafrover": _nl("Grafrover", "Grafrovers"),
                "heks": _nl("Heks", "Heksen"),
                "jager": _nl("Jager", "Jagers"),
                "klaas_vaak": _nl("Klaas Vaak", "Klaas Vaaks"),
                "onschuldige_meisje": _nl(
                    "Onschuldige Meisje", "Onschuldige Meisjes", "het", "Onschuldig Meisje"
                ),
                "opdrachtgever": _nl("Opdrachtgever", "Opdrachtgevers"),
                "priester": _nl("Priester", "Priesters"),
                "psychopaat": _nl("Psychopaat", "Psychopaten"),
                "raaf": _nl("Raaf", "Raven"),
                "schout": _nl("Schout", "Schouten"),
                "slet": _nl("Slet", "Sletten"),
                "vampier": _nl("Vampier", "Vampiers"),
                "verleidster": _nl("Verleidster", "Verleidsters"),
                "waarschuwer": _nl("Waarschuwer", "Waarschuwers"),
                "weerwolf": _nl("Weerwolf", "Weerwolven"),
                "welp": _nl("Welp", "Welpen"),
                "witte_weerwolf": _nl("Witte Weerwolf", "Witte Weerwolven"),
                "ziener": _nl("Ziener", "Zieners"),
                "zondebok": _nl("Zondebok", "Zondebokken"),
                "burgemeester": _nl("Burgemeester", "Burgemeesters"),
                "geliefde": _nl("Geliefde", "Geliefden"),
                "lijfwacht": _nl("Lijfwacht", "Lijfwachten"),
            }
        ),
        "en": MappingProxyType(
            {
                "burger": _en("Villager", "Villagers"),
                "cupido": _en("Cupid", "Cupids"),
                "dief": _en("Thief", "Thieves"),
                "dorpsgek": _en("Village Idiot", "Village Idiots"),
                "dorpsoudste": _en("Village Elder", "Village Elders"),
                "dwaas": _en("Fool", "Fools"),
                "fluitspeler": _en("Piper", "Pipers"),
                "genezer": _en("Healer", "Healers"),
                "goochelaar": _en("Magician", "Magicians"),
                "grafrover": _en("Grave Robber", "Grave Robbers"),
                "heks": _en("Witch", "Witches"),
                "jager": _en("Hunter", "Hunters"),
                "klaas_vaak": _en("Sandman", "Sandmen"),
                "onschuldige_meisje": _en("Little Girl", "Little Girls"),
                "opdrachtgever": _en("Patron", "Patrons"),
                "priester": _en("Priest", "Priests"),
                "psychopaat": _en("Psychopath", "Psychopaths"),
                "raaf": _en("Raven", "Ravens"),
                "schout": _en("Sheriff", "Sheriffs"),
                "slet": _en("Harlot", "Harlots"),
                "vampier": _en("Vampire", "Vampires"),
                "verleidster": _en("Seductress", "Seductresses"),
                "waarschuwer": _en("Herald", "Heralds"),
                "weerwolf": _en("Werewolf", "Werewolves"),
                "welp": _en("Wolf Cub", "Wolf Cubs"),
                "witte_weerwolf": _en("White Werewolf", "White Werewolves"),
                "ziener": _en("Seer", "Seers"),
                "zondebok": _en("Scapegoat", "Scapegoats"),
                "burgemeester": _en("Mayor", "Mayors"),
                "geliefde": _en("Lover", "Lovers"),
                "lijfwacht": _en("Bodyguard", "Bodyguards"),
            }
        ),
    }
)

#: The 28 playable roles of the wakkerdam ruleset (statuses such as burgemeester excluded).
ROLES: Final = (
    "burger",
    "cupido",
    "dief",
    "dorpsgek",
    "dorpsoudste",
    "dwaas",
    "fluitspeler",
    "genezer",
    "goochelaar",
    "grafrover",
    "heks",
    "jager",
    "klaas_vaak",
    "onschuldige_meisje",
    "opdrachtgever",
    "priester",
    "psychopaat",
    "raaf",
    "schout",
    "slet",
    "vampier",
    "verleidster",
    "waarschuwer",
    "weerwolf",
    "welp",
    "witte_weerwolf",
    "ziener",
    "zondebok",
)

#: role -> team, as in the ruleset's spec (section 1).
ROLE_TEAMS: Final = MappingProxyType(
    {
        role: (
            "weerwolven"
            if role in ("weerwolf", "welp")
            else "vampiers"
            if role == "vampier"
            else "fluitspelers"
            if role == "fluitspeler"
            else "eigen"
            if role in ("psychopaat", "witte_weerwolf")
            else "burgers"
        )
        for role in ROLES
    }
)

TEAM_WORDS: Final = MappingProxyType(
    {
        "nl": MappingProxyType(
            {
                "burgers": "de Burgers",
                "weerwolven": "de Weerwolven",
                "vampiers": "de Vampiers",
                "fluitspelers": "de Fluitspelers",
                "eigen": "een team van één",
                "lovers": "de Geliefden",
                "bodyguard": "de Lijfwacht en de Opdrachtgever",
            }
        ),
        "en": MappingProxyType(
            {
                "burgers": "the Villagers",
                "weerwolven": "the Werewolves",
                "vampiers": "the Vampires",
                "fluitspelers": "the Pipers",
                "eigen": "a team of one",
                "lovers": "the Lovers",
                "bodyguard": "the Bodyguard and the Patron",
            }
        ),
    }
)

STEPS: Final = (
    "dief",
    "cupido",
    "opdrachtgever",
    "grafrover",
    "klaas_vaak",
    "nacht",
    "heks",
    "ochtend",
    "doden",
    "burgemeesterverkiezing",
    "brandstapel",
    "na_brandstapel",
)
START_STEPS: Final = frozenset({"dief", "cupido", "opdrachtgever"})
#: Steps whose story is a day mail (`day_result`); every other step's story is a night mail.
DAY_STEPS: Final = frozenset({"burgemeesterverkiezing", "brandstapel", "na_brandstapel"})

CAUSES: Final = (
    "weerwolven",
    "vampiers",
    "psychopaat",
    "witte_weerwolf",
    "gif",
    "jager",
    "brandstapel",
    "liefdesverdriet",
    "lijfwacht",
    "inactiviteit",
)

GENDERS: Final = ("man", "vrouw")

PRONOUNS: Final = MappingProxyType(
    {
        # helper name -> (man, vrouw)
        "hij": ("hij", "zij"),
        "hem": ("hem", "haar"),
        "zijn": ("zijn", "haar"),
        "he": ("he", "she"),
        "him": ("him", "her"),
        "his": ("his", "her"),
        "himself": ("himself", "herself"),
    }
)

NUMBER_WORDS: Final = MappingProxyType(
    {
        "nl": (
            "nul",
            "één",
            "twee",
            "drie",
            "vier",
            "vijf",
            "zes",
            "zeven",
            "acht",
            "negen",
            "tien",
            "elf",
            "twaalf",
        ),
        "en": (
            "no",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ),
    }
)

AND_WORDS: Final = MappingProxyType({"nl": "en", "en": "and"})
OR_WORDS: Final = MappingProxyType({"nl": "of", "en": "or"})
NOBODY_WORDS: Final = MappingProxyType({"nl": "niemand", "en": "nobody"})

WEEKDAYS: Final = MappingProxyType(
    {
        "nl": ("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"),
        "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    }
)
MONTHS: Final = MappingProxyType(
    {
        "nl": (
            "januari",
            "februari",
            "maart",
            "april",
            "mei",
            "juni",
            "juli",
            "augustus",
            "september",
            "oktober",
            "november",
            "december",
        ),
        "en": (
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
    }
)
AT_WORDS: Final = MappingProxyType({"nl": "om", "en": "at"})

#: unit -> (seconds, nl singular, nl plural, en singular, en plural)
DURATION_UNITS: Final = (
    ("d", 86400, "dag", "dagen", "day", "days"),
    ("h", 3600, "uur", "uur", "hour", "hours"),
    ("m", 60, "minuut", "minuten", "minute", "minutes"),
    ("s", 1, "seconde", "seconden", "second", "seconds"),
)

MOMENT_WORDS: Final = MappingProxyType(
    {
        "nl": MappingProxyType({"start": "Het begin", "night": "Nacht", "day": "Dag"}),
        "en": MappingProxyType({"start": "The beginning", "night": "Night", "day": "Day"}),
    }
)
