"""Unit tests of the parsing layers: subjects, quotes, HTML, names, loops, signups, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from narrator.cli import main
from parsing import (
    ErrorCode,
    GameInfo,
    Gender,
    Ignore,
    IgnoreReason,
    MailContext,
    NameMatcher,
    ParseError,
    Signup,
    Vote,
    classify_ignore,
    find_game,
    fold,
    html_to_text,
    is_help_subject,
    parse_mail,
    read_signup,
    strip_quotes,
    strip_subject_prefixes,
)
from parsing.mime import unflow
from stories.lexicon import help_words, language_lexicon
from tests.parsing.reading import read_mail, wakkerdam

MAIL_DIR = Path(__file__).resolve().parent.parent / "mail"
#: The stop words of Dutch (the story layer's): the parser knows none of its own.
DUTCH_STOP_WORDS = language_lexicon("nl").stop_words


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("Re: WW5", "WW5"),
        ("RE: RE: re: WW5", "WW5"),
        ("AW: WG: WW5", "WW5"),
        ("Antw: Doorst: WW5", "WW5"),
        ("Fwd: Fw: WW5", "WW5"),
        ("R: I: TR: SV: WW5", "WW5"),
        ("Re[3]: WW5", "WW5"),
        ("[Fwd: WW5]", "WW5"),
        ("[WW5]", "WW5"),
        ("Re:   WW5  witte", "WW5 witte"),
        ("Reactie op WW5", "Reactie op WW5"),
        ("Internet", "Internet"),
    ],
)
def test_subject_prefixes(subject: str, expected: str) -> None:
    assert strip_subject_prefixes(subject) == expected


def test_find_game_is_case_insensitive_and_prefers_the_longest_name() -> None:
    games = ["WW5", "WW", "Wakkerdam Zomer"]
    assert find_game("ww5", games) == "WW5"
    assert find_game("WW5 - Nacht 2: wie gaat er dood?", games) == "WW5"
    assert find_game("wakkerdam   zomer", games) == "Wakkerdam Zomer"
    assert find_game("WW55", games) is None
    assert find_game("Hallo", games) is None


def test_help_subject() -> None:
    words = help_words()
    assert is_help_subject("Help", words)
    assert is_help_subject("HULP: stemmen", words)
    assert not is_help_subject("WW5 help", words)
    assert not is_help_subject("Help", frozenset())  # the parser knows no Help word itself


@pytest.mark.parametrize(
    "header",
    [
        "On Tue, Nov 18, 2025 at 9:02 AM Verteller <v@example.org> wrote:",
        "Op di 18 nov 2025 om 09:02 schreef Verteller <v@example.org>:",
        "Op 18 nov 2025, om 09:02 heeft Verteller <v@example.org> het volgende geschreven:",
        "Am 18.11.25 um 09:02 schrieb Verteller:",
        "Il giorno mar 18 nov 2025 alle ore 09:02 Verteller <v@example.org> ha scritto:",
        "Le mar. 18 nov. 2025 à 09:02, Verteller <v@example.org> a écrit :",
    ],
)
@pytest.mark.parametrize("posting", ["top", "bottom"])
def test_reply_headers_with_quotes_are_dropped(header: str, posting: str) -> None:
    quote = "> Kies uit: Anna, Bram, Carla\n> De Verteller"
    text = f"Bram\n\n{header}\n{quote}\n" if posting == "top" else f"{header}\n{quote}\n\nBram\n"
    assert strip_quotes(text) == "Bram"


def test_wrapped_gmail_attribution_is_dropped() -> None:
    text = (
        "Bram\n\nOn Tue, Nov 18, 2025 at 9:02 AM Verteller van het dorp <\n"
        "v@example.org> wrote:\n\n> Anna\n"
    )
    assert strip_quotes(text) == "Bram"


@pytest.mark.parametrize(
    "block",
    [
        "Van: Verteller <v@example.org>\nVerzonden: dinsdag 18 november 2025 09:02\nAan: Bob\n",
        "From: Verteller\nSent: Tuesday\nTo: Bob\nSubject: WW5\n",
        "*From:* Verteller\n*Sent:* Tuesday\n",
        "-----Original Message-----\nFrom: x\n",
        "-------- Oorspronkelijk bericht --------\nVan: x\n",
        "---------- Forwarded message ---------\nFrom: x\n",
        "Begin forwarded message:\n\nFrom: x\n",
        "________________________________\nVan: x\n",
    ],
)
def test_unquoted_originals_are_cut(block: str) -> None:
    assert strip_quotes(f"Carla\n\n{block}\nAnna Bram Dirk\n") == "Carla"


@pytest.mark.parametrize(
    "marker",
    [  # markers of quotequail's list that parsing/clients.py's tables do not have
        "Vidarebefordrat meddelande:",
        "2026/1/2 Anna <anna@example.org>",
        "--- Mensaje reenviado ---",
        "Inicio del mensaje reenviado:",
        "Пересылаемое сообщение:",
        "El lunes, Anna escribió:",
    ],
)
def test_quotequail_s_markers_cut_an_unquoted_original(marker: str) -> None:
    assert strip_quotes(f"Carla\n\n{marker}\nAnna Bram Dirk\n") == "Carla"
    assert strip_quotes(f"Carla\n{marker}   \n\nAnna\n") == "Carla"


def test_every_quotequail_marker_ends_a_line_as_the_quick_check_expects() -> None:
    # parsing/quotes.py asks quotequail only when a line ends as one of its markers can:
    # a newer quotequail with another kind of marker must widen that check
    from quotequail import _patterns

    from parsing.quotes import QUOTEQUAIL_MARKER_ENDS

    patterns = [p.pattern for p in _patterns.COMPILED_PATTERNS]
    assert len(patterns) > 20
    for pattern in patterns:
        assert pattern.endswith("$"), pattern
        body = pattern[:-1].removesuffix(")")
        ends = {body[-1]} if not body.endswith("+") else {body[-2]}
        assert ends <= set(QUOTEQUAIL_MARKER_ENDS), pattern


@pytest.mark.parametrize(
    "text", ["Bram", "Bram\n\nGroet, Anna", "ik stem op Bram :-)\n", "a\nb\nc"]
)
def test_a_text_without_a_marker_ending_is_what_quotequail_leaves_whole(text: str) -> None:
    import quotequail

    from parsing.quotes import _may_hold_quotequail_marker

    lines = text.split("\n")
    assert not _may_hold_quotequail_marker(lines)
    assert quotequail.quote(text, limit=5000, quote_intro_line=True) == [(True, text)]


@pytest.mark.parametrize(
    "footer",
    [
        "-- \nBob Jansen\nBram's grootste fan",
        "Verstuurd vanaf mijn iPhone",
        "Sent from my iPhone",
        "Von meinem iPhone gesendet",
        "Outlook voor iOS downloaden<https://aka.ms/o0ukef>",
        "Get Outlook for Android",
        "Verzonden vanaf mijn Galaxy",
        "Groetjes,\nAnna",
        "Met vriendelijke groet,\nPiet de Boer\nAfdeling Inkoop",
        "Cheers, Anna",
    ],
)
def test_signatures_and_mobile_footers_are_cut(footer: str) -> None:
    assert strip_quotes(f"Carla\n\n{footer}\n") == "Carla"


def test_a_closing_word_inside_the_vote_is_kept() -> None:
    assert strip_quotes(
        "Ik twijfel.\nDank je voor de uitleg, het wordt Carla en niet Anna omdat"
    ) != ("Ik twijfel.")
    assert strip_quotes("Groetjes aan iedereen") == "Groetjes aan iedereen"


def test_format_flowed_is_unwrapped() -> None:
    assert unflow("Ik stem op \nBram.\n> quoted \n> more\n") == "Ik stem op Bram.\n> quoted more\n"
    assert unflow("a \nb", delsp=True) == "ab"


def test_html_gmail_quote_and_signature() -> None:
    html = (
        '<div dir="ltr">Bram<div class="gmail_signature">Anna Jansen</div></div>'
        '<div class="gmail_quote"><div class="gmail_attr">On Tue wrote:</div>'
        "<blockquote>Carla<br>Dirk</blockquote></div>"
    )
    text = html_to_text(html)
    assert "> Carla" in text and "Anna" not in text
    assert strip_quotes(text) == "Bram"


def test_html_outlook_desktop_reply_block_and_everything_after_it_is_removed() -> None:
    html = (
        '<html><body><div class="WordSection1"><p class="MsoNormal">Eva<o:p></o:p></p>'
        '<div><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
        "<p><b>Van:</b> Verteller</p></div></div><p>Anna Bram Carla</p></div></body></html>"
    )
    assert html_to_text(html) == "Eva"


def test_html_outlook_web_reply_block_is_removed() -> None:
    html = (
        "<div>Dirk</div><div id='appendonsend'></div><hr><div id='divRplyFwdMsg'>"
        "<b>From:</b> V</div><div>Anna Bram</div>"
    )
    assert html_to_text(html) == "Dirk"


def test_html_blocks_and_breaks_make_lines_and_scripts_vanish() -> None:
    html = "<style>p{}</style><script>Anna</script><p>Bram</p><p>Car<b>la</b><br>Dirk</p>"
    assert html_to_text(html) == "Bram\n\nCarla\nDirk"
    assert html_to_text("<div>Anna</div><div><br></div><div>Bram</div>") == "Anna\n\nBram"


def test_fold_drops_accents_and_case() -> None:
    assert fold("Zoë") == fold("ZOE") == "zoe"
    assert fold("Ørjan") == "orjan"
    assert fold("Straße") == "strasse"


def test_name_matching() -> None:
    matcher = NameMatcher(["Jan", "Bram", "Marieke", "Marco", "Marko", "Ben", "Zoë"])

    def players(text: str) -> list[str | None]:
        return [hit.player for hit in matcher.find(text.split(), DUTCH_STOP_WORDS)]

    assert players("van harte Bram") == ["Bram"]  # 'van' is not 'Jan'
    assert players("ik ben voor Jan") == ["Jan"]  # the verb 'ben' is not Ben
    assert players("Ben") == ["Ben"]
    assert players("zoe ZOË") == ["Zoë", "Zoë"]
    assert players("Mariek") == ["Marieke"]
    assert players("Marcko") == [None]  # could be Marco or Marko
    assert players("Brma") == ["Bram"]  # transposition
    assert players("Jaan") == []  # names under four letters are never fuzzy
    assert players("want stem") == []


def test_a_name_that_fits_several_players_is_ambiguous_never_picked() -> None:
    matcher = NameMatcher(["Anna", "Anne", "Annabel", "Jan", "Janneke", "Alexander", "Alexandra"])

    def found(text: str) -> list[tuple[str | None, tuple[str, ...]]]:
        return [(hit.player, hit.candidates) for hit in matcher.find(text.split())]

    assert found("Ann") == [(None, ("Anna", "Annabel", "Anne"))]  # the start of three names
    assert found("anna") == [("Anna", ("Anna",))]  # a whole name is that player
    assert found("Jann") == []  # the start of one name alone is not taken for it
    assert found("Annab") == [(None, ("Anna", "Annabel"))]  # Anna misspelt, or Annabel begun
    assert found("Jan") == [("Jan", ("Jan",))]
    assert found("Alexandar") == [(None, ("Alexander", "Alexandra"))]  # unequal distances
    assert found("Bram Ann")[0] == (None, ("Anna", "Annabel", "Anne"))  # no clear name
    assert found("Anne of Ann") == [("Anne", ("Anne",))]  # a clear name: a stray start is no vote


def test_name_matching_scales_to_a_thousand_players() -> None:
    names = [f"Speler{chr(97 + index % 26)}{chr(97 + index // 26 % 26)}" for index in range(1000)]
    matcher = NameMatcher(names)
    assert [hit.player for hit in matcher.find(["Spelerab"])] == ["Spelerab"]


def _read(raw: bytes, players: tuple[str, ...], language: str = "nl") -> object:
    return read_mail(parse_mail(raw), (GameInfo("WW5", players=players),), language=language)


def _mail(body: str, subject: str = "WW5", extra: str = "", sender: str = "p@example.org") -> bytes:
    return f"From: P <{sender}>\nSubject: {subject}\n{extra}\n{body}\n".encode()


def test_vote_keywords_in_any_case_and_order() -> None:
    command = _read(_mail("BURGEMEESTER: Anna", subject="Re: WW5 Witte"), ("Anna", "Bram"))
    assert command == Vote("WW5", ("Anna",), False, ("witte", "burgemeester"), ())


def test_the_same_name_twice_is_one_target() -> None:
    command = _read(_mail("Bram. Ja, echt Bram."), ("Bram",))
    assert isinstance(command, Vote) and command.targets == ("Bram",)


def test_errors_carry_the_choices_in_both_languages() -> None:
    for language, phrase in (("nl", "Je kunt kiezen uit"), ("en", "You can choose from")):
        command = _read(_mail("niemand"), ("Anna", "Bram"), language)
        assert isinstance(command, ParseError) and command.code is ErrorCode.NO_NAME
        assert phrase in command.message and "Anna, Bram" in command.message
        assert command.params["choices"] == ("Anna", "Bram")


@pytest.mark.parametrize(
    ("extra", "sender", "reason"),
    [
        ("Auto-Submitted: auto-generated\n", "p@example.org", IgnoreReason.AUTO_REPLY),
        ("X-Autorespond: yes\n", "p@example.org", IgnoreReason.AUTO_REPLY),
        ("Precedence: junk\n", "p@example.org", IgnoreReason.LIST),
        ("List-Id: <x.example.org>\n", "p@example.org", IgnoreReason.LIST),
        ("Return-Path: <>\n", "p@example.org", IgnoreReason.BOUNCE),
        ("", "MAILER-DAEMON@example.org", IgnoreReason.BOUNCE),
        ("", "Verteller@Example.org", IgnoreReason.LOOP),
    ],
)
def test_never_answered(extra: str, sender: str, reason: IgnoreReason) -> None:
    parsed = parse_mail(_mail("Anna", extra=extra, sender=sender))
    assert classify_ignore(parsed, ["verteller@example.org"]) == Ignore(reason)


def test_ordinary_mail_is_answered() -> None:
    parsed = parse_mail(_mail("Anna", extra="Auto-Submitted: no\nPrecedence: normal\n"))
    assert classify_ignore(parsed, ["verteller@example.org"]) is None


def test_signup_forms() -> None:
    game = GameInfo("WW5", signup_open=True, players=("Anna",))
    context = MailContext(lexicon=wakkerdam())
    assert read_signup("bob , MAN", game, context) == Signup("WW5", "Bob", Gender.MAN)
    assert read_signup("Zoë - f", game, context) == Signup("WW5", "Zoë", Gender.VROUW)
    assert read_signup("Chloé (vrouw)", game, context) == Signup("WW5", "Chloé", Gender.VROUW)
    assert read_signup(
        "ANNA, vrouw", game, MailContext(lexicon=wakkerdam(), sender_player="Anna")
    ) == Signup("WW5", "Anna", Gender.VROUW)
    codes = {
        "ANNA, vrouw": ErrorCode.NAME_TAKEN,
        "Anne-Marie, vrouw": ErrorCode.BAD_NAME,
        "Witte, man": ErrorCode.BAD_NAME,
        "Bob, misschien": ErrorCode.BAD_GENDER,
        "": ErrorCode.BAD_SIGNUP,
    }
    for body, code in codes.items():
        command = read_signup(body, game, context)
        assert isinstance(command, ParseError) and command.code is code, body


def test_parse_mail_headers() -> None:
    raw = (
        b"From: =?utf-8?b?Wm/DqyBkZSBWcmllcw==?= <Zoe@Example.ORG>\n"
        b"Reply-To: other@example.org\nMessage-ID: <m1@x>\nIn-Reply-To: <n1@x>\n"
        b"References: <a@x> <n1@x>\nSubject: =?utf-8?q?Re=3A_WW5?=\n\nBram\n"
    )
    parsed = parse_mail(raw)
    assert (parsed.sender, parsed.sender_name, parsed.reply_to) == (
        "zoe@example.org",
        "Zoë de Vries",
        "other@example.org",
    )
    assert (parsed.message_id, parsed.in_reply_to, parsed.references) == (
        "<m1@x>",
        "<n1@x>",
        ("<a@x>", "<n1@x>"),
    )
    assert (parsed.subject, parsed.raw_subject, parsed.body) == ("WW5", "Re: WW5", "Bram")


def test_sender_falls_back_to_sender_then_reply_to() -> None:
    assert parse_mail(b"Sender: s@example.org\nSubject: x\n\nBram").sender == "s@example.org"
    assert parse_mail(b"Reply-To: r@example.org\nSubject: x\n\nBram").sender == "r@example.org"


def test_cli_parse_json_with_players(capsys: pytest.CaptureFixture[str]) -> None:
    path = MAIL_DIR / "gmail_vote_misspelled.eml"
    assert main(["parse", str(path), "--players", "Anna,Bram,Marieke", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {
        "kind": "vote",
        "game": "WW5",
        "sender": "eva@gmail.com",
        "targets": ["Marieke"],
        "blanco": False,
        "keywords": [],
        "corrections": [{"written": "Marike", "understood": "Marieke"}],
    }


@pytest.mark.parametrize(
    ("language", "question"),
    [("nl", "Bedoel je Anna of Anne?"), ("en", "Do you mean Anna or Anne?")],
)
def test_cli_parse_reports_a_start_of_two_names_as_ambiguous(
    capsys: pytest.CaptureFixture[str], language: str, question: str
) -> None:
    path = MAIL_DIR / "ambiguous_prefix_ann.eml"
    players = ["--players", "Anna,Anne,Bram", "--lang", language, "--json"]
    assert main(["parse", str(path), "--game", "WW5", *players]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["kind"], result["code"]) == ("error", "ambiguous-name")
    assert result["params"]["candidates"] == ["Anna", "Anne"]
    assert question in result["message"]


def test_cli_parse_error_and_signup(capsys: pytest.CaptureFixture[str]) -> None:
    path = MAIL_DIR / "gmail_vote_too_many.eml"
    assert main(["parse", str(path), "--game", "WW5", "--players", "Bram,Carla", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["kind"], result["code"]) == ("error", "too-many-names")
    assert "Bram, Carla" in result["message"]
    path = MAIL_DIR / "signup_plain.eml"
    assert main(["parse", str(path), "--players", "Anna", "--signup", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {
        "kind": "signup",
        "game": "WW5",
        "sender": "bob@gmail.com",
        "name": "Bob",
        "gender": "man",
    }


def test_cli_parse_readable_and_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(MAIL_DIR / "vacation_auto_submitted.eml")]) == 0
    assert "ignored (auto-reply)" in capsys.readouterr().out
    assert main(["parse", str(MAIL_DIR / "nope.eml")]) == 2
    assert main(["parse", str(MAIL_DIR / "signup_plain.eml"), "--count", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "cannot read" in err


def test_a_text_at_quotequail_s_line_limit_is_cut_there_as_before() -> None:
    # quotequail takes the line at its limit for the start of the quoted rest
    assert strip_quotes("Bram\n" * 6000).split("\n") == ["Bram"] * 4999
    assert strip_quotes("Bram\n" * 4998).split("\n") == ["Bram"] * 4998
