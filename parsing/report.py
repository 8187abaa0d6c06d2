"""Commands as JSON-ready dicts: the ``narrator parse --json`` object (interfaces §6)."""

from __future__ import annotations

from typing import Any

from parsing.model import Command, Help, Ignore, Moves, ParsedMail, ParseError, Signup, Vote

JsonValue = Any  # str, bool, int, None, and lists and objects of them


def command_to_dict(command: Command, parsed: ParsedMail) -> dict[str, JsonValue]:
    """One JSON object describing how the mail is understood.

    Always ``kind`` and ``sender``; ``game`` when one was matched; then per kind: ``signup``
    adds ``name``, ``gender``; ``vote`` adds ``targets``, ``blanco``, ``keywords``,
    ``corrections`` (``[{"written", "understood"}]``); ``help`` adds ``text``; ``ignore`` adds
    ``reason``; ``error`` adds ``code``, ``message`` and ``params``.  A mail of several moves
    is a ``vote`` whose ``moves`` list each (its ``written`` words and, as a vote or an error
    object without ``sender`` and ``game``, how it reads); its ``targets``, ``keywords`` and
    ``corrections`` gather those of the moves read as votes (``blanco`` when all are blank).
    """
    result: dict[str, JsonValue] = {}
    if isinstance(command, Moves):
        moves = []
        for move in command.moves:
            read = command_to_dict(move.read, parsed)
            read.pop("sender", None)
            read.pop("game", None)
            moves.append({"written": move.written, **read})
        votes = [move.read for move in command.moves if isinstance(move.read, Vote)]
        result = {
            "kind": "vote",
            "game": command.game,
            "sender": parsed.sender,
            "targets": [target for vote in votes for target in vote.targets],
            "blanco": bool(votes) and all(vote.blanco for vote in votes),
            "keywords": list(dict.fromkeys(k for vote in votes for k in vote.keywords)),
            "corrections": [
                {"written": item.written, "understood": item.understood}
                for vote in votes
                for item in vote.corrections
            ],
            "moves": moves,
        }
    elif isinstance(command, Signup):
        result = {
            "kind": "signup",
            "game": command.game,
            "sender": parsed.sender,
            "name": command.name,
            "gender": command.gender.value,
        }
    elif isinstance(command, Vote):
        result = {
            "kind": "vote",
            "game": command.game,
            "sender": parsed.sender,
            "targets": list(command.targets),
            "blanco": command.blanco,
            "keywords": list(command.keywords),
            "corrections": [
                {"written": item.written, "understood": item.understood}
                for item in command.corrections
            ],
        }
    elif isinstance(command, Help):
        result = {"kind": "help", "game": None, "sender": parsed.sender, "text": command.text}
    elif isinstance(command, Ignore):
        result = {"kind": "ignore", "sender": parsed.sender, "reason": command.reason.value}
    elif isinstance(command, ParseError):
        result = {
            "kind": "error",
            "game": command.game,
            "sender": parsed.sender,
            "code": command.code.value,
            "message": command.message,
            "params": {
                key: list(value) if isinstance(value, tuple) else value
                for key, value in command.params.items()
            },
        }
    return result
