"""The error replies a player receives, in Dutch and English, keyed by error code."""

from __future__ import annotations

from collections.abc import Mapping

from parsing.model import ErrorCode

_MESSAGES: Mapping[str, Mapping[ErrorCode, str]] = {
    "nl": {
        ErrorCode.NO_GAME: (
            "Ik weet niet voor welk spel je mail is. Zet de naam van het spel als onderwerp "
            "(of 'Help' voor een vraag aan de beheerders). Spellen: {games}."
        ),
        ErrorCode.NO_NAME: (
            "Ik heb geen naam van een speler gevonden in je mail. Zet de naam van je keuze in "
            "je mail, of 'blanco'. Je kunt kiezen uit: {choices}."
        ),
        ErrorCode.TOO_MANY_NAMES: (
            "Je mail noemt te veel spelers ({names}); ik verwacht er {expected}. Stuur alleen "
            "je keuze (sluit niet af met je eigen naam). Je kunt kiezen uit: {choices}."
        ),
        ErrorCode.TOO_FEW_NAMES: (
            "Je mail noemt te weinig spelers ({names}); ik verwacht er {expected}. "
            "Je kunt kiezen uit: {choices}."
        ),
        ErrorCode.BLANCO_AND_NAME: (
            "Je mail bevat zowel 'blanco' als een naam ({names}). Stuur een naam, of alleen "
            "het woord 'blanco'."
        ),
        ErrorCode.AMBIGUOUS_NAME: (
            "Ik weet niet wie je bedoelt met '{written}'. Bedoel je {candidates}? Schrijf de "
            "naam precies zoals in de lijst: {choices}."
        ),
        ErrorCode.BAD_SIGNUP: (
            "Ik kan je inschrijving niet lezen. Stuur als bericht alleen je naam, een komma en "
            "'man' of 'vrouw', bijvoorbeeld: Bob, man"
        ),
        ErrorCode.BAD_GENDER: (
            "Ik kan niet lezen of je een man of een vrouw bent ('{written}'). Stuur bijvoorbeeld: "
            "{name}, man   of   {name}, vrouw"
        ),
        ErrorCode.BAD_NAME: (
            "De naam '{written}' kan niet: een naam is één woord van alleen letters (accenten "
            "mogen), en geen woord dat het spel zelf gebruikt (blanco, witte, burgemeester, help)."
        ),
        ErrorCode.NAME_TAKEN: (
            "De naam '{written}' is in dit spel al gekozen door een andere speler ({taken}). "
            "Kies een andere naam."
        ),
    },
    "en": {
        ErrorCode.NO_GAME: (
            "I don't know which game your mail is for. Put the name of the game in the subject "
            "(or 'Help' for a question to the admins). Games: {games}."
        ),
        ErrorCode.NO_NAME: (
            "I found no player's name in your mail. Write the name of your choice, or 'blanco'. "
            "You can choose from: {choices}."
        ),
        ErrorCode.TOO_MANY_NAMES: (
            "Your mail names too many players ({names}); I expect {expected}. Send only your "
            "choice (don't sign with your own name). You can choose from: {choices}."
        ),
        ErrorCode.TOO_FEW_NAMES: (
            "Your mail names too few players ({names}); I expect {expected}. "
            "You can choose from: {choices}."
        ),
        ErrorCode.BLANCO_AND_NAME: (
            "Your mail has both 'blanco' and a name ({names}). Send a name, or only the word "
            "'blanco'."
        ),
        ErrorCode.AMBIGUOUS_NAME: (
            "I don't know whom you mean by '{written}'. Do you mean {candidates}? Write the name "
            "exactly as in the list: {choices}."
        ),
        ErrorCode.BAD_SIGNUP: (
            "I can't read your signup. Send only your name, a comma and 'man' or 'vrouw' "
            "(male/female), for example: Bob, man"
        ),
        ErrorCode.BAD_GENDER: (
            "I can't read whether you are a man or a woman ('{written}'). Send for example: "
            "{name}, man   or   {name}, vrouw"
        ),
        ErrorCode.BAD_NAME: (
            "The name '{written}' can't be used: a name is one word of letters only (accents are "
            "fine), and not a word the game uses itself (blanco, witte, burgemeester, help)."
        ),
        ErrorCode.NAME_TAKEN: (
            "The name '{written}' is already taken in this game ({taken}). Choose another name."
        ),
    },
}


#: The word joining the last two of a list of alternatives ("Anna of Anne").
_OR = {"nl": "of", "en": "or"}
#: Parameters that are alternatives (one of them is meant), not a list of several.
_ALTERNATIVES = frozenset({"candidates"})


def _one_of(names: tuple[str, ...], language: str) -> str:
    """``("Anna", "Anne", "Annie")`` -> ``"Anna, Anne of Annie"`` (``or`` in English)."""
    if len(names) < 2:
        return names[0] if names else "-"
    return f"{', '.join(names[:-1])} {_OR.get(language, _OR['nl'])} {names[-1]}"


class _Defaults(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "-"


def render_message(
    code: ErrorCode, language: str, params: Mapping[str, str | tuple[str, ...]]
) -> str:
    """The reply text for ``code`` in ``language`` (``nl`` unless ``en``), lists joined."""
    templates = _MESSAGES.get(language, _MESSAGES["nl"])
    values = _Defaults(
        {
            key: (
                value
                if not isinstance(value, tuple)
                else _one_of(value, language)
                if key in _ALTERNATIVES
                else ", ".join(value) or "-"
            )
            for key, value in params.items()
        }
    )
    return templates[code].format_map(values)
