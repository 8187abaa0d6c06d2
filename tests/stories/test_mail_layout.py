"""The mail layout as players see it: the HTML part (header, action box, roster, footer) tells
the same facts as the text, the text of story and step mails ends with the running roster, and
no role shows that the village may not know."""

from __future__ import annotations

import datetime as dt
import html as html_lib
import itertools
import re
from dataclasses import replace
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from stories import (
    Action,
    Cast,
    FileStore,
    Game,
    MemoryStore,
    Player,
    Renderer,
    StoryKey,
    StorySource,
    WordsError,
)
from stories.keys import BASE_THEME
from stories.layout import BIG_GAME, HTML_ROSTER_MAILS, ROSTER_MAILS, ROSTER_SEPARATOR
from stories.samples import big_mail_samples, mail_samples
from stories.words import load_shared, load_words, read_words, words_path
from tests.support.packs import pack_helpers
from tests.support.shipped import SHIPPED_RENDERER

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
DEADLINE = dt.datetime(2026, 11, 18, 10, 0, tzinfo=AMSTERDAM)
PLAYERS = (
    Player("Anna", "vrouw"),
    Player("Bram", "man"),
    Player("Carla", "vrouw"),
    Player("Dirk", "man", role="weerwolf", alive=False),
    Player("Eva", "vrouw", alive=False),
)
SEER = Action("ziener", choices=("Anna", "Bram", "Carla"), blanco=False)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


def _game(language: str = "nl", **changes: object) -> Game:
    fields: dict = {
        "name": "WW5",
        "language": language,
        "step": "nacht",
        "phase": "night",
        "night": 3,
        "day": 2,
        "deadline": DEADLINE,
        "timezone": "Europe/Amsterdam",
    }
    fields.update(changes)
    return Game(**fields)


def _step(renderer: Renderer, players: object = PLAYERS, recipient: str = "Carla", **game: object):  # type: ignore[no-untyped-def]
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "step")
    context = {
        "game": _game(**game),
        "players": players,
        "recipient": recipient,
        "player": recipient,
        "actions": [SEER],
    }
    return renderer.render_mail(key, context, "seed")


def visible(page: str) -> str:
    """The text a reader sees in an HTML page: no head, no tags, entities decoded, spaces one."""
    body = re.sub(r"<head>.*?</head>", " ", page, flags=re.DOTALL)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def flat(text: str) -> str:
    """A plain text as `visible` gives its HTML: list dashes gone, spaces one."""
    return " ".join(re.sub(r"(?m)^[-*]\s+", "", text).split())


def roster_of(text: str) -> str:
    """The running roster at the end of a text part ("" when it has none)."""
    _story, separator, roster = text.partition(f"\n{ROSTER_SEPARATOR}\n")
    return roster.strip() if separator else ""


#: The parts of the layout, in their order on the page (their element ids).
PARTS = ("header", "deaths", "role-card", "story", "action", "signature", "roster", "footer")


def section(page: str, part: str) -> str:
    """The visible text of one part of the layout (`PARTS`); "" when the mail has none."""
    marker = f'id="{part}"'
    if marker not in page:
        return ""
    start = page.index(marker)
    later = [page.find(f'id="{other}"', start) for other in PARTS[PARTS.index(part) + 1 :]]
    end = min([at for at in later if at >= 0] or [len(page)])
    return visible(page[start : page.rfind("<", start, end)].partition(">")[2])


# --- what a player sees ---------------------------------------------------------------------


def test_a_step_mail_has_header_action_box_roster_and_footer(renderer: Renderer) -> None:
    mail = _step(renderer)
    page = mail.html
    assert page.startswith("<!DOCTYPE html>") and '<html lang="nl">' in page
    assert re.search(r"<h1[^>]*>WW5<span[^>]*> · Nacht 3</span></h1>", page)  # the header
    assert section(page, "header").startswith("Jouw beurt WW5")  # the kind of mail first
    # The move is set apart in the story, where it asks for it: its heading, its choices once.
    story = section(page, "story")
    assert "Ziener — schrijf een naam: Anna · Bram · Carla" in story
    assert all(story.count(name) == 1 for name in ("Anna", "Bram"))  # Carla: "Beste Carla"
    assert "<ul" not in page.split('id="story"')[1].split('id="action"')[0]
    # The story's own line with the deadline is in the action box (the deadline told once).
    action = section(page, "action")
    assert action.startswith("Stuur je stem in een mail met WW5 als onderwerp. Je hebt tot ")
    assert "woensdag 18 november om 10:00 (Europe/Amsterdam)" in action
    assert "Europe/Amsterdam" not in story
    assert page.index('id="action"') < page.index('id="signature"')  # before the signature
    roster = section(page, "roster")
    assert "Nog in leven (3): Anna, Bram en Carla" in roster
    assert "Dood (2): Dirk (Weerwolf) en Eva" in roster
    # The footer offers Help; how to reply the story's own line told (in the action box).
    footer = visible(page[page.rindex("border-top:1px solid #cfc8b8") :])
    assert '"Help WW5"' in footer and "antwoorden" not in footer
    # The text part tells the same: the choices, the deadline in the zone, the roster.
    assert all(f"- {name}" in mail.text for name in ("Anna", "Bram", "Carla"))
    assert "woensdag 18 november om 10:00 (Europe/Amsterdam)" in mail.text
    assert (
        roster_of(mail.text)
        == "Nog in leven (3): Anna, Bram en Carla\nDood (2): Dirk (Weerwolf) en Eva"
    )


def test_the_deadline_is_written_in_the_games_zone(renderer: Renderer) -> None:
    utc = _step(renderer, deadline=DEADLINE.astimezone(dt.UTC), timezone="UTC")
    assert "woensdag 18 november om 09:00 (UTC)" in section(utc.html, "action")
    assert "woensdag 18 november om 09:00 (UTC)" in utc.text


def test_an_english_game_is_laid_out_in_english(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "en", "wakkerdam", "step")
    context = {
        "game": _game("en"),
        "players": PLAYERS,
        "recipient": "Anna",
        "player": "Anna",
        "actions": [replace(SEER, blanco=True, min=0, max=2)],
    }
    mail = renderer.render_mail(key, context, 1)
    assert '<html lang="en">' in mail.html
    assert section(mail.html, "header").startswith("Your turn WW5")
    assert "Seer — write a name: Anna · Bram · Carla" in section(mail.html, "story")
    action = section(mail.html, "action")
    assert "You have until Wednesday 18 November at 10:00 (Europe/Amsterdam)" in action
    assert "Still alive (3): Anna, Bram and Carla" in mail.text
    assert "Dead (2): Dirk (Werewolf) and Eva" in mail.text


def test_a_role_shows_in_the_roster_only_where_the_game_revealed_it(renderer: Renderer) -> None:
    hidden = tuple(replace(p, role=None) for p in PLAYERS)
    for mail in (_step(renderer, hidden), renderer.render_mail(*_story(hidden, "Bram"))):
        assert "Dirk (" not in mail.html and "Dirk (" not in mail.text
        assert "Dood (2): Dirk en Eva" in roster_of(mail.text)
        assert "Dood (2): Dirk en Eva" in visible(mail.html)


def test_nobody_reads_his_own_secret_role_in_the_roster(renderer: Renderer) -> None:
    """A recipient's copy of the cast carries his own role (to write his mail); the roster is
    the village's: neither a living reader's role nor a dead one's unrevealed role is in it."""
    shared = Cast(replace(p, role=None) for p in PLAYERS)
    carla = shared.with_player(replace(shared[2], role="ziener"))
    mail = _step(renderer, carla, "Carla")
    assert "Carla (" not in roster_of(mail.text) and "Carla (" not in section(mail.html, "roster")
    dirk = shared.with_player(replace(shared[3], role="weerwolf"))
    story = renderer.render_mail(*_story(dirk, "Dirk"))
    assert "Dirk (" not in roster_of(story.text) and "Dirk (" not in section(story.html, "roster")
    # A cast that holds a living role by mistake does not show it either.
    leaky = (replace(PLAYERS[0], role="heks"), *PLAYERS[1:])
    assert "Anna (" not in _step(renderer, leaky).html


def test_at_the_end_every_role_is_in_the_roster(renderer: Renderer) -> None:
    roles = {
        "Anna": "heks",
        "Bram": "burger",
        "Carla": "ziener",
        "Dirk": "weerwolf",
        "Eva": "jager",
    }
    everyone = tuple(replace(p, role=roles[p.name]) for p in PLAYERS)
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "game_over")
    context = {
        "game": _game(),
        "players": everyone,
        "recipient": "Anna",
        "winners": ["Anna", "Bram", "Carla"],
        "teams": ["burgers"],
        "roles": roles,
        "alive": ["Anna", "Bram", "Carla"],
    }
    mail = renderer.render_mail(key, context, 1)
    roster = section(mail.html, "roster")
    assert "Anna (Heks), Bram (Burger) en Carla (Ziener)" in roster
    assert "Dirk (Weerwolf) en Eva (Jager)" in roster


def _story(players: object, recipient: str) -> tuple[StoryKey, dict, str]:  # type: ignore[type-arg]
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    context = {
        "game": _game(),
        "players": players,
        "recipient": recipient,
        "stories": ["Het was een rustige nacht."],
        "events": [],
    }
    return key, context, "seed"


def test_a_story_mail_ends_with_the_running_roster(renderer: Renderer) -> None:
    mail = renderer.render_mail(*_story(PLAYERS, "Bram"))
    story, separator, roster = mail.text.partition(f"\n{ROSTER_SEPARATOR}\n")
    assert separator and "Het was een rustige nacht." in story
    assert roster == "Nog in leven (3): Anna, Bram en Carla\nDood (2): Dirk (Weerwolf) en Eva\n"
    assert 'id="action"' not in mail.html  # a story asks nothing: no action box
    assert section(mail.html, "header").startswith("Verhaal WW5")
    # Nobody dead yet: only the living.
    living = tuple(replace(p, alive=True, role=None) for p in PLAYERS)
    assert roster_of(renderer.render_mail(*_story(living, "Bram")).text) == (
        "Nog in leven (5): Anna, Bram, Carla, Dirk en Eva"
    )


def test_a_private_event_stays_out_of_the_other_readers_html(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    seen = {
        "type": "seen",
        "audience": "Carla",
        "player": "Carla",
        "target": "Anna",
        "role": "heks",
    }
    death = {"type": "death", "audience": "public", "player": "Eva", "cause": "weerwolven"}
    hidden = tuple(replace(p, role=None) for p in PLAYERS)
    told = {}
    for reader in ("Carla", "Bram", "Anna"):
        context = {"game": _game(), "players": hidden, "recipient": reader}
        mail = renderer.render_story(key, context, [seen, death], "s")
        assert mail is not None
        told[reader] = mail
    vision = renderer.render_event(key, {**context, "recipient": "Carla"}, seen, "s|0")
    assert flat(vision) in visible(told["Carla"].html)
    for reader in ("Bram", "Anna"):
        assert flat(vision) not in visible(told[reader].html)
        assert "Heks" not in told[reader].html and "Heks" not in told[reader].text


def test_names_and_game_names_are_escaped_everywhere(renderer: Renderer) -> None:
    evil = (Player("<b>Zoë & Co</b>", "vrouw"), *PLAYERS[1:])
    action = Action("ziener", choices=("<b>Zoë & Co</b>", "Bram"))
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "step")
    context = {
        "game": _game(name="<i>WW5</i>"),
        "players": evil,
        "recipient": "Bram",
        "player": "Bram",
        "actions": [action],
    }
    mail = renderer.render_mail(key, context, 1)
    assert "<b>" not in mail.html and "<i>" not in mail.html
    assert "&lt;b&gt;Zoë &amp; Co&lt;/b&gt;" in section(mail.html, "roster") or (
        "<b>Zoë & Co</b>" in section(mail.html, "roster")  # (section() decodes entities)
    )
    assert mail.html.count("&lt;b&gt;Zoë &amp; Co&lt;/b&gt;") >= 2  # the move's choices, roster
    assert "&lt;i&gt;WW5&lt;/i&gt;" in mail.html


# --- every pack, every mail -----------------------------------------------------------------


def _packs() -> list[tuple[str, str, str]]:
    keys = {(s.key.ruleset, s.key.language, s.key.theme) for s in FileStore().all()}
    return sorted(k for k in keys if k[2] != BASE_THEME)


MAILS = ("step", "reminder", "error", "night_result", "day_result", "game_over", "receipt")
SAMPLES_PER_MAIL = 6


def _samples(ruleset: str, language: str, theme: str) -> list[tuple[StoryKey, dict]]:  # type: ignore[type-arg]
    out = []
    for mail in MAILS:
        key = StoryKey(ruleset, language, theme, mail)
        samples = list(mail_samples(key))
        step = max(1, len(samples) // SAMPLES_PER_MAIL)
        out += [(key, sample) for sample in samples[::step][:SAMPLES_PER_MAIL]]
        # and a big game's, summed up and linked (two action kinds)
        out += [(key, sample) for sample in itertools.islice(big_mail_samples(key), 2)]
    return out


_STYLE = re.compile(r'style="([^"]*)"')


def told_in_html(story: str, seen: str, where: object) -> None:
    """Every line of a mail's text is in its HTML; a list of a move's choices (its label line
    and items, or one "Label: A, B" line) is there as the move's choices, names only."""
    for line in story.splitlines():
        text = flat(line)
        if not text or text in seen:
            continue
        _label, colon, listed = text.rpartition(":")
        if re.match(r"^[-*]\s", line):
            assert text in seen, (line, where)  # an item: the name among the move's choices
        elif colon and not listed.strip():
            continue  # the label above a list of choices ("Je keuzes:")
        else:
            assert colon and all(n.strip() in seen for n in listed.split(",")), (line, where)


@pytest.mark.parametrize(("ruleset", "language", "theme"), _packs())
def test_every_mail_of_every_pack_tells_the_same_facts_in_html(
    renderer: Renderer, ruleset: str, language: str, theme: str
) -> None:
    words = load_words(ruleset, language)
    choice_of = pack_helpers(ruleset, language).choice
    for key, context in _samples(ruleset, language, theme):
        mail = renderer.render_mail(key, context, 7)
        page, seen = mail.html, visible(mail.html)
        where = (key, context.get("recipient"))
        # Self-contained and inline-styled: nothing a mail client strips or fetches.
        assert f'<html lang="{language}">' in page, where
        # (A big game's mails link the reader's page and the game's: links, nothing fetched.)
        unlinked = page
        for link in {context.get("page_link"), context.get("game_link")} - {None}:
            anchor = rf'<a href="{re.escape(link)}"[^>]*>{re.escape(link)}</a>'
            unlinked = re.sub(anchor, "", unlinked)
        for banned in ("<style", "<link", "<img", "<script", "src=", "url(", "http:", "https:"):
            assert banned not in unlinked.lower(), (banned, where)
        for style in _STYLE.findall(page):  # a background always comes with its text colour
            if "background-color" in style:
                assert re.search(r"(^|;\s*)color:", style), (style, where)
        # The story itself, then the facts of the boxes, in both parts.
        story, _, roster = mail.text.partition(f"\n{ROSTER_SEPARATOR}\n")
        told_in_html(story, seen, where)
        game = context.get("game")
        if game is not None:
            assert Game.from_any(game).name in seen, where
        if key.event in ROSTER_MAILS and context.get("players") and game is not None:
            assert roster, where
            for line in roster.strip().splitlines():
                assert line in seen, (line, where)
        elif key.event not in HTML_ROSTER_MAILS:
            assert not roster and words.mail.roster not in page, where
        if key.event in ("step", "reminder"):
            for action in context["actions"]:
                if len(Action.from_any(action).choices) > BIG_GAME and context.get("page_link"):
                    continue  # a big game's: on his page (test_a_big_games_step_mail_*)
                for choice in Action.from_any(action).choices:
                    name = choice_of(choice)  # a role or a team by its name
                    assert name in story and name in section(page, "story"), where
        if key.event == "error" and game is not None and Game.from_any(game).deadline:
            # The docs promise it: an error mail's action box has the deadline (the text
            # may leave it out).
            zone = Game.from_any(game).timezone
            assert f"({zone})" in section(page, "action"), where
        if key.event in ("step", "reminder") and 'id="action"' in page:
            box = section(page, "action")
            # (up to the zone: his page's lines may follow in the box)
            deadline = re.search(rf"{re.escape(words.mail.deadline)}: (.*?\([^)]*\))", box)
            if deadline:  # the deadline and its zone, as the text writes it
                assert flat(deadline.group(1)) in flat(story), (deadline.group(1), where)


def test_every_shipped_words_file_has_the_layout_words() -> None:
    for ruleset, language, _theme in _packs():
        label = load_words(ruleset, language).mail
        assert "{count}" in label.alive and label.name_forms, (ruleset, language)


def test_a_words_file_without_the_layout_words_is_refused(tmp_path: Path) -> None:
    # The labels are the language's shared words (stories/_lang/nl/); a pack may override one.
    source = words_path("wakkerdam", "nl").read_text(encoding="utf-8")
    shared = load_shared("nl")
    path = tmp_path / "words.toml"
    path.write_text(source, encoding="utf-8")
    without = {key: value for key, value in shared.items() if key != "mail"}
    with pytest.raises(WordsError, match=r"\[mail\]: missing table"):
        read_words(path, "wakkerdam", "nl", without)
    broken = tmp_path / "broken.toml"
    broken.write_text(source + '\n[mail]\nalive = "Levend"\n', encoding="utf-8")
    with pytest.raises(WordsError, match=r"\[mail\] alive: must contain \{count\}"):
        read_words(broken, "wakkerdam", "nl")


def test_a_batch_works_out_the_roster_once() -> None:
    """Every mail of a step shares the cast: its roster lines are joined once, not per mail."""
    from stories.layout import roster_of as layout_roster

    shared = Cast(PLAYERS)
    words = load_words("wakkerdam", "nl")
    calls = itertools.count()

    def names(items: object, conjunction: str = "and") -> str:
        next(calls)
        return ", ".join(map(str, items))  # type: ignore[call-overload]

    first = layout_roster(shared, words, names)
    for player in PLAYERS:
        copy = shared.with_player(replace(player, role="burger"))
        assert layout_roster(copy, words, names) is first
    assert next(calls) == 2  # the living and the dead, once


def test_a_mail_saying_help_reaches_nobody_does_not_offer_help(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "error")
    base = {"game": None, "players": (), "recipient": None, "player": None}
    no_admin = renderer.render_mail(key, {**base, "code": "no-admin"}, 1)
    assert '"Help"' not in visible(no_admin.html)
    other = renderer.render_mail(key, {**base, "code": "no-name"}, 1)
    assert 'met als onderwerp "Help"' in visible(other.html)


@pytest.mark.parametrize("client", ["gmail", "outlook", "plain"])
def test_a_reply_quoting_the_mail_reads_only_what_the_player_wrote(
    renderer: Renderer, client: str
) -> None:
    """The reply recipe works: the quoted action box and roster are not read as votes."""
    from email.message import EmailMessage

    from parsing import parse_mail

    mail = _step(renderer)
    inner = mail.html.split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]
    reply = EmailMessage()
    reply["From"], reply["To"] = "carla@example.org", "verteller@example.org"
    reply["Subject"], reply["Message-ID"] = "Re: WW5 — Nacht 3", "<r1@example.org>"
    if client == "plain":
        quoted = "\n".join("> " + line for line in mail.text.splitlines())
        reply.set_content(f"Bram\n\nOp 17 november schreef De Verteller:\n{quoted}\n")
    elif client == "gmail":
        reply.set_content(
            '<div dir="ltr">Bram</div><br><div class="gmail_quote"><div class="gmail_attr">'
            "Op di 17 nov schreef De Verteller:<br></div>"
            f'<blockquote class="gmail_quote">{inner}</blockquote></div>',
            subtype="html",
        )
    else:
        reply.set_content(
            '<html><body><div class="WordSection1"><p class="MsoNormal">Bram</p>'
            '<div style="border:none;border-top:solid #E1E1E1 1.0pt">'
            '<p class="MsoNormal"><b>Van:</b> De Verteller<br><b>Verzonden:</b> dinsdag<br>'
            f"<b>Aan:</b> Carla<br><b>Onderwerp:</b> WW5</p></div>{inner}</div></body></html>",
            subtype="html",
        )
    assert parse_mail(bytes(reply)).body.strip() == "Bram"


@pytest.mark.parametrize(("ruleset", "language", "theme"), _packs())
def test_a_mail_with_a_page_link_carries_it_in_text_and_html(
    renderer: Renderer, ruleset: str, language: str, theme: str
) -> None:
    words = load_words(ruleset, language).mail
    link = "https://wolves.example.org/p/3.17.0." + "A" * 43
    line = words.page_link.replace("{url}", link)
    for mail in ("role", "step"):
        key = StoryKey(ruleset, language, theme, mail)
        for context in list(mail_samples(key))[:3]:
            plain = renderer.render_mail(key, context, 7)
            none = renderer.render_mail(key, {**context, "page_link": None}, 7)
            assert (none.text, none.html) == (plain.text, plain.html)
            assert words.page_private not in plain.text + plain.html and link not in plain.html
            linked = renderer.render_mail(key, {**context, "page_link": link}, 7)
            assert linked.text.count(line) == 1 and words.page_private in linked.text
            assert linked.text.startswith(plain.text.split(f"\n\n{ROSTER_SEPARATOR}\n")[0])
            if ROSTER_SEPARATOR + "\n" in linked.text:  # above the running roster
                assert linked.text.index(line) < linked.text.index(f"\n{ROSTER_SEPARATOR}\n")
            assert linked.html.count(f'href="{link}"') == 1, (key, mail)
            assert words.page_private in html_lib.unescape(linked.html)


# --- the moves, the role card, the deaths ---------------------------------------------------


def test_a_move_the_story_gives_no_place_goes_in_the_action_box(renderer: Renderer) -> None:
    """A story that lists no choices: the move's box, with the layout's own lines, stands in
    the action box before the signature; the story is left whole."""
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "step")
    source = StorySource(
        key,
        1,
        "{% block subject %}x{% endblock %}{% block body %}Hallo.\n\nDe Verteller{% endblock %}",
    )
    mail = Renderer(MemoryStore([source])).render_mail(
        key,
        {
            "game": _game(),
            "players": PLAYERS,
            "recipient": "Carla",
            "player": "Carla",
            "actions": [SEER],
        },
        1,
    )
    action = section(mail.html, "action")
    assert action.startswith("Jouw beurt Ziener — schrijf een naam: Anna · Bram · Carla")
    assert "Noem één naam." in action and "Stemmen kan tot:" in action
    assert section(mail.html, "story") == "Hallo." and section(mail.html, "signature") == (
        "De Verteller"
    )


def test_choices_on_one_line_become_the_moves_choices(renderer: Renderer) -> None:
    """Mafia's English packs write "Choose from: A, B": that line is the move's choices, the
    move's heading names its keyword, and its lines go in its box."""
    key = StoryKey("mafia", "en", "mafia", "step")
    kill = Action("kill", choices=("Anna", "Bram"), keyword="kill")
    context = {
        "game": _game("en", step="night", night=1, day=1),
        "players": PLAYERS,
        "recipient": "Carla",
        "player": "Carla",
        "actions": [kill],
    }
    mail = renderer.render_mail(key, context, 1)
    assert re.search(r"(?m)^Choose from: Anna, Bram$", mail.text), mail.text
    page = mail.html
    story = section(page, "story")
    assert re.search(r"write “kill”: Anna · Bram", story, re.IGNORECASE), story
    assert "Choose from" not in story and story.count("Anna · Bram") == 1
    moves = re.findall(r'<td class="move".*?</td>', page, flags=re.DOTALL)
    assert len(moves) == 1 and "«kill Anna»" in visible(moves[0])


def test_the_role_card_says_role_team_mates_and_what_to_write(renderer: Renderer) -> None:
    key = StoryKey("mafia", "ru", "mafia", "role")
    context = {
        "game": _game("ru", step="election", phase="day", night=0, day=1),
        "players": PLAYERS,
        "recipient": "Carla",
        "player": "Carla",
        "role": "blocker",
        "team": "black",
        "facts": {"negative": "mafia", "partners": ["Anna"]},
    }
    mail = renderer.render_mail(key, context, 1)
    card = section(mail.html, "role-card")
    assert card.startswith("Ваша роль Блокер и Мафия"), card
    assert "Команда: Чёрные" in card and "Кого вы знаете: Anna" in card
    assert "Что писать: «арест», «защита», «убить»" in card
    assert mail.html.index('id="role-card"') < mail.html.index('id="story"')
    assert section(mail.html, "header").startswith("Ваша роль")


def test_who_died_stands_under_the_header_of_a_story(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
    death = {"type": "death", "audience": "public", "player": "Eva", "cause": "weerwolven"}
    context = {"game": _game(), "players": PLAYERS, "recipient": None}
    mail = renderer.render_story(key, context, [death], "s")
    assert mail is not None
    assert section(mail.html, "header").startswith("Verhaal WW5")
    assert section(mail.html, "deaths") == "Gestorven: Eva"
    assert mail.html.index('id="deaths"') < mail.html.index('id="story"')
    quiet = renderer.render_mail(*_story(PLAYERS, "Bram"))
    assert 'id="deaths"' not in quiet.html
