"""The game pages served by the daemon: public pages of every game (docs/web.md)."""
