"""TEMPORARY: the parser's words and error wording for Wakkerdam's nl/en games, in ONE place.

Everything here is what the story packs' ``stories/<ruleset>/<lang>/words.toml`` will give
(``[keywords]``, ``blanco``, ``[genders]``, ``help``, ``stop_words``, ``[errors]``): replace
:func:`lexicon_for` and :func:`explainer_for` by loading that file, and delete this module.
Until then the words and texts are exactly the parser's former built-in ones (they were
``parsing/names.py``, ``parsing/interpret.py`` and ``parsing/messages.py``), so games read and
answer mail as before.  The inbox and ``narrator parse`` get their lexicon and explainer here.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from parsing import ErrorCode, ErrorParams, Explain, Lexicon, ParamTexts
from rules.core.registry import UnknownRuleset, get_ruleset

#: The one ruleset whose words are written here (its keyword ids come from the ruleset).
_WORDS_OF: Mapping[str, Mapping[str, object]] = {
    "wakkerdam": {
        "blanco": ["blanco", "abstain"],
        "genders": {
            "man": ["m", "male", "jongen", "heer"],
            "vrouw": ["v", "f", "w", "female", "woman", "meisje", "dame"],
        },
        # Game words that are never a misspelt name (one text: these are words of the
        # language here, not the ruleset's ids).
        "stop_words": "weerwolf weerwolven brandstapel".split(),  # noqa: SIM905
    },
}

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
            "Ik weet niet wie je bedoelt met '{written}': dat kan {candidates} zijn. Schrijf de "
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
            "I don't know whom you mean by '{written}': it could be {candidates}. Write the name "
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


@functools.cache
def lexicon_for(ruleset: str, language: str) -> Lexicon:
    """The parser's words for games of ``ruleset`` in ``language`` (the same for nl and en, as
    before): the ruleset's keyword ids as written, plus the words above.  Built once per pair
    (a lexicon is immutable)."""
    try:
        keyword_ids = get_ruleset(ruleset).keywords
    except UnknownRuleset:
        keyword_ids = ()
    return Lexicon.from_words(_WORDS_OF.get(ruleset, {}), keyword_ids)


def explainer_for(language: str) -> Explain:
    """The wording of the parser's errors in ``language`` (``nl`` unless ``en``)."""
    templates = _MESSAGES.get(language, _MESSAGES["nl"])

    def explain(code: str, params: ErrorParams) -> str:
        return templates[ErrorCode(code)].format_map(ParamTexts(params))

    return explain
