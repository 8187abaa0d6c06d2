"""The Italian story pack of La Notte dei Vampiri (`stories/vampiri/it/`, theme `vampiri`): the
checks of its own (every event with two variants at least, the keywords of the spec, what the
step mail says of an approval, the private events told at night and by day, the mail at every
nightfall, the hunters' companions, every scenario's events told, the parser on the mails'
Italian).  What every vampiri pack must do, this one included (stories check, every sample
renders, the words to write, subjects, greeting and signature, secrets and revealed roles), is
test_vampiri_packs.py's."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from pathlib import Path

import pytest

from rules.scenario import run_scenario
from stories import FileStore, Game, Player, Renderer, StoryKey, load_words
from stories.keys import events_of, keys_of
from stories.lexicon import lexicon_for
from stories.samples import mail_samples, sample_players

RULESET, LANGUAGE, THEME = "vampiri", "it", "vampiri"
WORDS = load_words(RULESET, LANGUAGE)
PUBLIC_EVENTS = ("execution", "tie", "verdict", "death", "win")
_TOLD = re.compile(r"«([^»]*)»")
_WORD = re.compile(r"\w+")


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@pytest.fixture(scope="module")
def store() -> FileStore:
    return FileStore()


@pytest.fixture(scope="module")
def renderer(store: FileStore) -> Renderer:
    return Renderer(store)


def test_every_key_has_a_story_and_public_events_two(store: FileStore) -> None:
    missing = [
        event
        for event in (*keys_of(RULESET), "epilogue")  # optional, but required of this pack
        if not store.variants(StoryKey(RULESET, LANGUAGE, THEME, event))
        and not store.variants(StoryKey(RULESET, LANGUAGE, "_base", event))
    ]
    assert missing == []
    few = [
        event
        for event in events_of(RULESET)
        if len(store.variants(StoryKey(RULESET, LANGUAGE, THEME, event))) < 2
    ]
    assert few == []


def test_the_keywords_blank_words_and_signup_words_are_the_spec_s() -> None:
    assert {k: WORDS.keywords[k][0] for k in WORDS.keywords} == {
        k: k for k in ("caccia", "visita", "ospita", "agguato", "condanna", "risparmia")
    }
    assert {"nessuno", "astengo"} <= set(WORDS.blanco)
    assert "uomo" in WORDS.genders["man"] and "donna" in WORDS.genders["vrouw"]
    assert {"aiuto", "help"} <= set(WORDS.help)
    reserved = {fold(w) for ws in WORDS.keywords.values() for w in ws} | set(WORDS.blanco)
    assert not reserved & {fold(w) for w in WORDS.stop_words}
    assert len(WORDS.stop_words) > 200


def test_step_mails_say_what_to_write(store: FileStore, renderer: Renderer) -> None:
    key = StoryKey(RULESET, LANGUAGE, THEME, "step")
    for number, context in enumerate(mail_samples(key)):
        text = renderer.render_mail(key, context, number).text
        for action in context["actions"]:
            if action.keyword:
                assert f"«{action.keyword}»" in text, (action.kind, text)
            if action.blanco and (action.max > 0 or action.keyword is None):
                assert "«nessuno»" in text, (action.kind, text)
            if action.extra.get("approval"):
                assert "tutti quelli che sospetti" in text
            for name in action.choices:
                assert name in text
        assert "entro " in text and "Il Narratore" in text


PRIVATE = {
    "blocked": ({"player": "Anna"}, ["Anna"]),
    "investigation": ({"player": "Anna", "target": "Carla", "category": "lupo_mannaro"}, ["Anna"]),
    "silenced": ({"player": "Anna"}, ["Anna"]),
    "hunters": ({"player": "Anna", "players": ["Anna", "Frank"]}, ["Anna"]),
    "inactive": ({"player": "Anna", "missed": 1}, ["Anna"]),
    "rejected": ({"player": "Anna", "reason": "required"}, ["Anna"]),
    "hunt": ({"target": "Carla", "hunters": ["Anna", "Frank"]}, ["Anna", "Frank"]),
}


@pytest.mark.parametrize("event_type", sorted(PRIVATE))
@pytest.mark.parametrize("step", ["votazione", "giorno"])
def test_private_events_reach_their_audience_only(
    renderer: Renderer, event_type: str, step: str
) -> None:
    fields, audience = PRIVATE[event_type]
    secret = {"type": event_type, "audience": audience, **fields}
    public = {"type": "death", "audience": "public", "player": "Bram", "cause": "ucciso"}
    key = StoryKey(RULESET, LANGUAGE, THEME, "night_result")
    game = {
        "name": "VN5",
        "ruleset": RULESET,
        "language": LANGUAGE,
        "theme": THEME,
        "step": step,
        "phase": "day" if step == "giorno" else "night",
        "night": 2,
        "day": 2,
    }
    players = sample_players(RULESET)
    for seed in range(6):
        for reader in ("Anna", "Carla", "Frank", None):
            context = {"game": game, "players": players, "recipient": reader}
            with_secret = renderer.render_story(key, context, [public, secret], seed)
            without = renderer.render_story(key, context, [public], seed)
            assert with_secret is not None and without is not None
            if reader in audience:
                assert with_secret.text != without.text, (event_type, reader)
            else:
                assert with_secret.text == without.text, (event_type, reader)


READING = [
    # (what the player writes, the names his vote allows by keyword, who writes, the vote read)
    (
        "Sospetto Lea, Vera e Dina.\n\nCiao a tutti,\nBruno",
        {"": (1, 5)},
        "Bruno",
        (("Lea", "Vera", "Dina"), False, ()),
    ),
    (
        "Voto per Lea e Vera, ma forse anche Ezio",
        {"": (1, 5)},
        "Bruno",
        (("Lea", "Vera", "Ezio"), False, ()),
    ),
    ("nessuno", {"": (1, 5)}, "Bruno", ((), True, ())),
    ("Mi astengo", {"": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)}, "Bruno", ((), True, ())),
    (
        "condanna",
        {"": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)},
        "Bruno",
        ((), False, ("condanna",)),
    ),
    (
        "Risparmia!",
        {"": (0, 0), "condanna": (0, 0), "risparmia": (0, 0)},
        "Bruno",
        ((), False, ("risparmia",)),
    ),
    ("visita Vera", {"visita": (1, 1), "ospita": (1, 1)}, "Carlo", (("Vera",), False, ("visita",))),
    ("Ospita Lea", {"visita": (1, 1), "ospita": (1, 1)}, "Carlo", (("Lea",), False, ("ospita",))),
    ("agguato", {"": (1, 1), "agguato": (0, 0)}, "Carlo", ((), False, ("agguato",))),
    ("caccia Vera", {"": (1, 1), "caccia": (1, 1)}, "Bruno", (("Vera",), False, ("caccia",))),
    ("caccia nessuno", {"": (1, 1), "caccia": (1, 1)}, "Bruno", ((), True, ("caccia",))),
    ("Ezio", {"": (1, 1), "caccia": (1, 1)}, "Bruno", (("Ezio",), False, ())),
]


@pytest.mark.parametrize(("body", "counts", "sender", "expected"), READING)
def test_the_parser_reads_what_the_mails_tell_to_write(
    body: str, counts: dict, sender: str, expected: tuple
) -> None:
    from parsing import GameInfo, parse_mail, read_command
    from parsing.model import MailContext
    from stories.lexicon import explainer_for

    info = GameInfo(name="Notte", players=("Lea", "Vera", "Carlo", "Dina", "Ezio", "Bruno"))
    raw = (
        "From: Bruno <bruno@example.org>\r\nTo: n@example.org\r\nSubject: Re: Notte\r\n"
        f"Message-ID: <a@example.org>\r\n\r\n{body}\r\n"
    ).encode()
    context = MailContext(
        lexicon=lexicon_for(RULESET, LANGUAGE),
        sender_player=sender,
        name_counts=counts,
        usable_keywords=frozenset(k for k in counts if k),
        explain=explainer_for(RULESET, LANGUAGE),
    )
    vote = read_command(parse_mail(raw), info, context)
    assert (vote.targets, vote.blanco, tuple(vote.keywords)) == expected, vote


def test_the_nightfall_mail_goes_to_everybody_even_when_nobody_died(renderer: Renderer) -> None:
    """words.toml: [steps.giorno] always = true; the night steps' stories need an event."""
    key = StoryKey(RULESET, LANGUAGE, THEME, "night_result")
    hunt = {"type": "hunt", "audience": ["Anna", "Frank"], "target": None, "hunters": ["Anna"]}
    players = sample_players(RULESET)
    for step, phase, told in (("giorno", "day", True), ("votazione", "night", False)):
        game = {"name": "VN5", "ruleset": RULESET, "language": LANGUAGE, "theme": THEME}
        game |= {"step": step, "phase": phase, "night": 2, "day": 2}
        context = {"game": game, "players": players, "recipient": "Carla"}
        mail = renderer.render_story(key, context, [hunt], "seed")
        assert (mail is not None) == told
        if mail is not None:
            assert "nessuno è caduto" in mail.text and "cacciatori hanno colpito" in mail.text
            assert mail.key.event == "day_result"


def test_the_hunters_step_mail_names_the_companions_not_the_reader(renderer: Renderer) -> None:
    key = StoryKey(RULESET, LANGUAGE, THEME, "step")
    game = {"name": "VN5", "ruleset": RULESET, "language": LANGUAGE, "theme": THEME}
    game |= {"step": "giorno", "phase": "day", "night": 1, "day": 1}
    hunt = {"kind": "caccia", "choices": ["Carla"], "blanco": True, "keyword": "caccia"}
    for group, companions in ((["Bram"], None), (["Anna", "Bram", "Frank"], "Anna e Frank")):
        action = {**hunt, "extra": {"slot": "caccia", "group": group}}
        context = {"game": game, "players": sample_players(RULESET), "recipient": "Bram"}
        context |= {"player": "Bram", "actions": [action]}
        text = renderer.render_mail(key, context, 0).text
        if companions:
            assert f"con te cacciano {companions}," in text
        else:
            assert "non hai compagni" in text


# --- the scenarios' games, every event told ---------------------------------------------------

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / RULESET
PHASES = {"votazione": "night", "spareggio": "night", "decisione": "night", "giorno": "day"}


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_event_of_the_scenarios_is_told(renderer: Renderer, path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = run_scenario(data, until_end=True).lines
    genders = {
        n: (v.split(",")[1].strip() if "," in v else "man") for n, v in data["players"].items()
    }
    players = [
        Player(name, "vrouw" if g in ("vrouw", "donna") else "man") for name, g in genders.items()
    ]
    key = StoryKey(RULESET, LANGUAGE, THEME, "night_result")
    told = 0
    for number, line in enumerate(lines[:-1]):
        step = line["step"]
        game = Game(
            name="VN2",
            ruleset=RULESET,
            language=LANGUAGE,
            theme=THEME,
            step=step,
            phase=PHASES[step],
            night=line.get("night", 1),
            day=line.get("day", 0),
        )
        for event in line["events"]:
            subjects = [event["player"]] if isinstance(event.get("player"), str) else []
            subjects += list(event.get("hunters") or ())
            for recipient in (None, *subjects):
                context = {"game": game, "players": players, "recipient": recipient}
                assert renderer.render_event(key, context, event, number).strip(), event
                told += 1
        for reader in (None, players[0].name):
            context = {"game": game, "players": players, "recipient": reader}
            mail = renderer.render_story(key, context, line["events"], number, send_empty=True)
            assert mail is not None and mail.text.partition("\n-- \n")[0].rstrip().endswith(
                "Il Narratore"
            )
    assert lines[-1]["end"] in (True, False) and told >= 1
