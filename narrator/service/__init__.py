"""The game service: what the daemon does with games, mail and deadlines (in transactions)."""
