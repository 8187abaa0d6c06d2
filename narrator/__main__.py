"""Allow `python -m narrator …` as an alias of the `narrator` console script."""

from narrator.cli import run

run()
