"""The automatic narrator: daemon, CLI, storage and mail for play-by-mail Werewolf games."""

__version__ = "0.1.0"
