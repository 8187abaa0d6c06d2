"""The canonical ids of the Lupus ruleset (docs/rules/lupus.md "Ids"): steps, factions, causes."""

from __future__ import annotations

NOTTE = "notte"
GIORNO = "giorno"
STEPS = (NOTTE, GIORNO)
"""The step ids in table order (§4: night n precedes day n)."""

POPOLANI = "popolani"
LUPI = "lupi"
NEGROMANTI = "negromanti"
FACTIONS = (POPOLANI, LUPI, NEGROMANTI)
"""The factions, which are also the teams a win may name."""

BIANCA = "bianca"
NERA = "nera"

ALIVE = "alive"
DEAD = "dead"
EXILED = "exiled"
"""A player's three states (§8.4: exiled is neither alive nor dead)."""

NIGHT_CAUSES = ("lupi", "assassino", "morte", "cacciatore")
"""The night's causes of death, in the order that picks the one a multiple victim dies of."""
CAUSES = (*NIGHT_CAUSES, "rogo")
EXILE_CAUSES = ("sconfitta", "inattivita", "squalifica")

SINDACO = "sindaco"
SUCCESSORE = "successore"
GHOST_POWERS = (
    "amnesia",
    "confusione",
    "corruzione",
    "illusione",
    "ipnosi",
    "morte",
    "occultamento",
    "visione",
)
"""The supernatural powers, which are also the Negromanti's power words (§12)."""
KEYWORDS = (SINDACO, SUCCESSORE, *GHOST_POWERS)
BLANK_WORD = "nessuno"
"""The word of a blank vote in Italian mails (§12); the parser maps it to a blank Vote."""

FANTASMA_POWERS = tuple(p for p in GHOST_POWERS if p not in ("corruzione", "morte"))
"""The powers a dying Fantasma may draw (§8.3: he is not mystic)."""
