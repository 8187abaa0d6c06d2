"""Every quote header of every client table (parsing/clients.py) is recognised, and no vote is."""

from __future__ import annotations

import pytest

from parsing import strip_quotes
from parsing.clients import CLIENTS

SAMPLE = {"date": "27.11.2026", "time": "10:00", "name": "Verteller", "address": "v@example.org"}
QUOTED = "Anna, Bram, Carla\nblanco"

ATTRIBUTIONS = [
    (client.name, language, template.format(**SAMPLE))
    for client in CLIENTS
    for language, templates in client.attributions.items()
    for template in templates
]
SEPARATORS = [
    (client.name, language, separator)
    for client in CLIENTS
    for language, separators in client.separators.items()
    for separator in separators
]
BLOCKS = [
    (client.name, language, "\n".join(f"{label}: Verteller 27.11.2026 10:00" for label in block))
    for client in CLIENTS
    for language, blocks in client.blocks.items()
    for block in blocks
]


def test_the_clients_players_use_each_have_a_table_in_every_language_they_are_used_in() -> None:
    names = " ".join(client.name for client in CLIENTS)
    for client in ("Outlook", "Gmail", "Apple Mail", "Thunderbird", "Yandex", "Mail.ru"):
        assert client in names
    for client in ("Libero", "Virgilio", "WEB.DE", "GMX", "Proton"):
        assert client in names
    languages = {language for client in CLIENTS[:3] for language in client.attributions}
    languages |= {language for client in CLIENTS[:1] for language in client.blocks}
    assert {"en", "nl", "it", "de", "ru"} <= languages


@pytest.mark.parametrize(("client", "language", "header"), ATTRIBUTIONS)
def test_an_attribution_is_dropped_with_its_quote_or_cuts_the_original(
    client: str, language: str, header: str
) -> None:
    quoted = "\n".join(f"> {line}" for line in QUOTED.split("\n"))
    assert strip_quotes(f"Dirk\n\n{header}\n{quoted}\n") == "Dirk", (client, language)
    assert strip_quotes(f"Dirk\n\n{header}\n\n{QUOTED}\n") == "Dirk", (client, language)
    assert strip_quotes(f"{quoted}\n\n{header.upper()}\n> x\n\nDirk") == "Dirk"


@pytest.mark.parametrize(("client", "language", "separator"), SEPARATORS)
def test_a_separator_cuts_what_follows(client: str, language: str, separator: str) -> None:
    assert strip_quotes(f"Dirk\n\n{separator}\n{QUOTED}\n") == "Dirk", (client, language)


@pytest.mark.parametrize(("client", "language", "block"), BLOCKS)
def test_a_header_block_cuts_what_follows(client: str, language: str, block: str) -> None:
    assert strip_quotes(f"Dirk\n\n{block}\n\n{QUOTED}\n") == "Dirk", (client, language)
    bold = "\n".join(f"**{line.replace(':', ':**', 1)}" for line in block.split("\n"))
    assert strip_quotes(f"Dirk\n\n{bold}\n\n{QUOTED}\n") == "Dirk", (client, language)


@pytest.mark.parametrize(
    "text",
    [
        "Ik stem op:\nBram",
        "Bram\nOnderwerp: de stemming, want Anna liegt",
        "Тема: голосование\nКому: Кирилл",  # no sender: a block that starts so needs three
        "Da: Marco\nsono sicuro",
        "Кирилл\nпишет Анна: не он",
        "Marco, Luca\nIl giorno dopo ha scritto: niente",
    ],
)
def test_a_player_s_own_lines_are_kept(text: str) -> None:
    assert strip_quotes(text) == text


def test_a_wrapped_attribution_never_takes_the_vote_above_it() -> None:
    header = '27.11.2026, 10:00, "Рассказчик" <narrator@example.org>:'
    assert strip_quotes(f"Кирилл\n{header}\n> Анна, пропуск\n") == "Кирилл"
    wrapped = "пт, 27 нояб. 2026 г. в 10:00, Рассказчик <\nnarrator@example.org>:"
    assert strip_quotes(f"Кирилл\n{wrapped}\n> Анна, пропуск\n") == "Кирилл"


def test_a_line_above_a_name_only_attribution_is_never_its_first_half() -> None:
    # "Do" is a weekday (German, Dutch), and "… wrote:" may follow any name: still two lines.
    assert strip_quotes("Do it: Bram\nAnna wrote:\n> Carla\n") == "Do it: Bram"
    assert strip_quotes("Ma Bram\nAnna schreef:\n> Carla\n") == "Ma Bram"
