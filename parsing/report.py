"""Commands as JSON-ready dicts: the ``narrator parse --json`` object (interfaces §6)."""

from __future__ import annotations

from parsing.model import Command, Help, Ignore, ParsedMail, ParseError, Signup, Vote

JsonValue = str | bool | int | None | list[str] | list[dict[str, str]] | dict[str, str | list[str]]


def command_to_dict(command: Command, parsed: ParsedMail) -> dict[str, JsonValue]:
    """One JSON object describing how the mail is understood.

    Always ``kind`` and ``sender``; ``game`` when one was matched; then per kind: ``signup``
    adds ``name``, ``gender``; ``vote`` adds ``targets``, ``blanco``, ``keywords``,
    ``corrections`` (``[{"written", "understood"}]``); ``help`` adds ``text``; ``ignore`` adds
    ``reason``; ``error`` adds ``code``, ``message`` and ``params``.
    """
    result: dict[str, JsonValue] = {}
    if isinstance(command, Signup):
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
