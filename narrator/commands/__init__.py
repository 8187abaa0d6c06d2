"""CLI subcommands: each module defines `register(subparsers, common)`; narrator.cli lists them."""
