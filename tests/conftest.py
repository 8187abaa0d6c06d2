"""Root fixtures: the shared database fixtures of `tests/narrator/fixtures.py` for every suite."""

pytest_plugins = ["tests.narrator.fixtures"]
