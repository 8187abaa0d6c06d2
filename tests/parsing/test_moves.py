"""Several moves in one mail (``parsing/moves.py``): one a line, or after a comma when the next
starts with its keyword; each read as a mail of it alone; one-move mails read as before.

This replaces the old contract that two actions in one mail are one (refused) vote: a player
with two moves or more (``MailContext.moves``) may write them all in one mail.
"""

from __future__ import annotations

import pytest

from parsing import (
    ErrorCode,
    GameInfo,
    MailContext,
    Moves,
    ParsedMail,
    ParseError,
    Vote,
    command_to_dict,
    read_command,
)
from stories.lexicon import lexicon_for

PLAYERS = ("Alan", "Dora", "Emma", "Frank", "Gina")
GAME = GameInfo(name="MF1", players=PLAYERS)

# A Mafioso who is the Doctor too: the heal (his primary move, no keyword), the Family's kill
# and its insurance (one move group), his suicide.
DOCTOR = MailContext(
    lexicon=lexicon_for("mafia", "en"),
    sender_player="Gina",
    name_counts={"": (1, 2), "kill": (1, 1), "insure": (0, 1), "suicide": (0, 0)},
    moves={"": "heal", "kill": "kill", "insure": "kill", "suicide": "suicide"},
)
# The same player as the parser saw him before: no moves known, a mail is one vote.
ONE_VOTE = MailContext(
    lexicon=DOCTOR.lexicon, sender_player="Gina", name_counts=dict(DOCTOR.name_counts)
)


def _read(body: str, context: MailContext = DOCTOR, subject: str = "MF1") -> object:
    mail = ParsedMail(sender="gina@example.org", subject=subject, body=body)
    return read_command(mail, GAME, context)


def _moves(body: str, **kwargs: object) -> list[tuple[str, object]]:
    """(written, targets and keywords or the error code) of each move of a mail of several."""
    read = _read(body, **kwargs)  # type: ignore[arg-type]
    assert isinstance(read, Moves), read
    return [
        (
            move.written,
            (move.read.targets, move.read.keywords)
            if isinstance(move.read, Vote)
            else move.read.code,
        )
        for move in read.moves
    ]


@pytest.mark.parametrize(
    "body",
    [
        "heal Alan\nkill Dora",
        "Alan\nkill Dora",
        "heal Alan, kill Dora",
        "Alan; kill Dora",
        "Hello narrator,\n\nheal Alan\nkill Dora\n\nThanks!",
        "heal Alan\n\nkill Dora\nGina",  # his own name last: a signature
    ],
)
def test_two_moves_in_one_mail_are_read_each_on_its_own(body: str) -> None:
    moves = _moves(body)
    assert [read for _, read in moves][1] == (("Dora",), ("kill",))
    assert moves[0][1][0] == ("Alan",)  # type: ignore[index]
    assert len(moves) == 2


def test_the_same_mail_was_one_refused_vote_before() -> None:
    """Without the sender's moves (the old contract), both lines are one vote, refused."""
    read = _read("heal Alan\nkill Dora", ONE_VOTE)
    assert isinstance(read, ParseError) and read.code is ErrorCode.TOO_MANY_NAMES


def test_a_move_that_does_not_read_costs_the_others_nothing() -> None:
    moves = _moves("kill Zorro\nheal Alan")
    assert moves == [("kill Zorro", ErrorCode.NO_NAME), ("heal Alan", (("Alan",), ("heal",)))]
    moves = _moves("Alan Dora Emma\nkill Frank")
    assert moves[0] == ("Alan Dora Emma", ErrorCode.TOO_MANY_NAMES)
    assert moves[1] == ("kill Frank", (("Frank",), ("kill",)))


def test_a_bare_keyword_takes_its_names_from_the_lines_below() -> None:
    moves = _moves("Alan\nkill\nDora")
    assert moves == [("Alan", (("Alan",), ())), ("kill / Dora", (("Dora",), ("kill",)))]


def test_a_keyword_only_move_stands_alone() -> None:
    moves = _moves("heal Alan\nsuicide")
    assert moves[1] == ("suicide", ((), ("suicide",)))


@pytest.mark.parametrize(
    "body",
    [
        "Alan",  # one line
        "heal Alan\nDora",  # the only keyword first, then names: the Doctor's two names
        "kill\nDora",  # a keyword, then its name
        "Alan\nDora",  # no keyword: one plain vote
        "kill Dora\ninsure Alan",  # one move group: one vote, as ever
        "kill Dora, Alan",  # a comma not followed by a keyword: one vote
        "Hi!\nkill Dora\nThanks",  # greetings are no moves
    ],
)
def test_a_mail_of_one_move_reads_as_before(body: str) -> None:
    assert _read(body) == _read(body, ONE_VOTE)
    assert not isinstance(_read(body), Moves)


def test_a_keyword_in_the_subject_makes_the_mail_one_vote() -> None:
    assert _read("Alan\nkill Dora", subject="MF1 kill") == _read(
        "Alan\nkill Dora", ONE_VOTE, subject="MF1 kill"
    )


def test_a_player_with_one_move_writes_one_vote() -> None:
    one = MailContext(
        lexicon=DOCTOR.lexicon, name_counts={"": (1, 1)}, moves={}, sender_player="Gina"
    )
    read = _read("Alan\nDora", one)
    assert isinstance(read, ParseError) and read.code is ErrorCode.TOO_MANY_NAMES


def test_narrator_parse_shows_each_move() -> None:
    mail = ParsedMail(sender="gina@example.org", subject="MF1", body="heal Alan, kill Zorro")
    read = read_command(mail, GAME, DOCTOR)
    shown = command_to_dict(read, mail)
    assert shown["kind"] == "vote" and shown["targets"] == ["Alan"]
    assert [m["written"] for m in shown["moves"]] == ["heal Alan", "kill Zorro"]
    assert shown["moves"][0]["kind"] == "vote" and shown["moves"][1]["code"] == "no-name"
    assert "sender" not in shown["moves"][0]


def test_narrator_parse_prints_each_move(capsys: pytest.CaptureFixture[str]) -> None:
    from narrator.commands.parse import _print_readable

    mail = ParsedMail(sender="gina@example.org", subject="MF1", body="heal Alan, kill Zorro")
    _print_readable(command_to_dict(read_command(mail, GAME, DOCTOR), mail), mail)
    out = capsys.readouterr().out
    assert "2 moves in MF1:" in out
    assert "'heal Alan': Alan [heal]" in out and "'kill Zorro': error no-name" in out
