"""The game pages served by the daemon: public, each player's own, the admin panel (docs/web.md)."""
