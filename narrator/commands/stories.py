"""`narrator stories add|list|check|preview|remove`: story templates in the database.

Also the database template store the daemon renders from (:class:`DatabaseStore`, layered over
the shipped packs by :func:`runtime_store`) and :func:`load_defaults`, which loads the shipped
packs into the stories table (`narrator stories add --defaults`).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.cli import CommandError, Subparsers

if TYPE_CHECKING:
    from stories import (
        Renderer,
        StoryKey,
        StorySource,
        TemplateStore,
    )


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator stories add|list|check|preview|remove`."""
    parser = subparsers.add_parser(
        "stories", parents=[common], help="story templates (add, list, check, preview, remove)"
    )
    commands = parser.add_subparsers(title="stories commands", metavar="COMMAND", required=True)

    add = commands.add_parser(
        "add",
        parents=[common],
        help="validate and store templates",
        description="Validate template files and store them in the database. The key comes "
        "from the path …/<ruleset>/<lang>/<theme>/<event>[.N].j2 or from the options.",
    )
    add.add_argument("files", metavar="FILE", nargs="*", type=Path)
    _key_options(add)
    add.add_argument("--event", help="event or mail name (default: from the file name)")
    add.add_argument("--variant", type=int, help="variant number (default: from the file name)")
    add.add_argument("--append", action="store_true", help="store as a new variant")
    add.add_argument("--replace", action="store_true", help="replace an existing variant")
    add.add_argument(
        "--defaults", action="store_true", help="load the shipped packs (keeps existing variants)"
    )
    add.set_defaults(func=_add)

    listing = commands.add_parser("list", parents=[common], help="list stored templates")
    _key_options(listing)
    listing.add_argument("--event")
    listing.add_argument("--files", action="store_true", help="list the shipped packs instead")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(func=_list)

    check = commands.add_parser(
        "check",
        parents=[common],
        help="render every template with sample data; fail on any problem",
    )
    check.add_argument(
        "--files", action="store_true", help="check only the shipped packs (no database)"
    )
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=_check)

    preview = commands.add_parser(
        "preview", parents=[common], help="render an event or mail with sample data"
    )
    preview.add_argument("event", metavar="EVENT", help="event or mail name, or a .j2 file")
    _key_options(preview)
    preview.add_argument("--variant", type=int, help="only this variant")
    preview.add_argument("--sample", type=int, default=0, help="which sample context (0, 1, …)")
    preview.add_argument("--files", action="store_true", help="from the shipped packs")
    preview.add_argument("--html", action="store_true", help="print the HTML alternative too")
    preview.set_defaults(func=_preview)

    remove = commands.add_parser("remove", parents=[common], help="remove stored templates")
    remove.add_argument("event", metavar="EVENT")
    _key_options(remove)
    remove.add_argument("--variant", type=int, help="remove this variant only")
    remove.add_argument("--all", action="store_true", help="remove every variant of the key")
    remove.set_defaults(func=_remove)


def _key_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ruleset", help="ruleset (default: wakkerdam, or from the path)")
    parser.add_argument("--lang", help="language (default: nl, or from the path)")
    parser.add_argument("--theme", help="theme (default: wakkerdam, or from the path)")


def _key(args: argparse.Namespace, event: str) -> StoryKey:
    from stories import StoryKey, StoryKeyError

    try:
        return StoryKey(
            args.ruleset or "wakkerdam", args.lang or "nl", args.theme or "wakkerdam", event
        ).checked()
    except StoryKeyError as error:
        raise CommandError(str(error)) from None


def source_from_file(path: Path, args: argparse.Namespace) -> StorySource:
    """The StorySource of a template file: key from the path, overridden by the options."""
    from stories import StoryKey, StoryKeyError, StorySource, key_from_path

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"cannot read {path}: {error}") from None
    try:
        key, variant = key_from_path(path.resolve())
    except StoryKeyError:
        if not (getattr(args, "event", None) or path.name.endswith(".j2")):
            raise CommandError(f"{path}: name the event with --event") from None
        stem = path.name.split(".")[0]
        key, variant = _key(args, getattr(args, "event", None) or stem), 1
    try:
        key = StoryKey(
            args.ruleset or key.ruleset,
            args.lang or key.language,
            args.theme or key.theme,
            getattr(args, "event", None) or key.event,
        ).checked()
    except StoryKeyError as error:
        raise CommandError(f"{path}: {error}") from None
    variant = getattr(args, "variant", None) or variant
    return StorySource(key, variant, text, str(path))


def _problems_line(problems: list[str]) -> str:
    shown = "; ".join(problems[:3])
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return (shown + more).replace("\n", " ")


def _add(args: argparse.Namespace) -> None:
    from narrator.changes import announce_change
    from narrator.commands.db import config_from_args, database_session
    from narrator.storystore import DatabaseStore, load_defaults
    from stories import StorySource, validate_source

    if not args.files and not args.defaults:
        raise CommandError("give template FILEs, or --defaults for the shipped packs")
    sources = [source_from_file(path, args) for path in args.files]
    for source in sources:
        report = validate_source(source)
        if not report.ok:
            raise CommandError(f"{source.origin}: not stored: {_problems_line(report.problems)}")
    with database_session(config_from_args(args)) as session:
        if args.defaults:
            counts = load_defaults(session, replace=args.replace)
            print(
                f"shipped packs: {counts['added']} added, {counts['replaced']} replaced, "
                f"{counts['kept']} kept"
            )
        store = DatabaseStore(session)
        for source in sources:
            if args.append:
                source = StorySource(
                    source.key, store.next_variant(source.key), source.source, source.origin
                )
            outcome = store.put(source, replace=args.replace)
            if outcome == "exists":
                raise CommandError(
                    f"{source.key} variant {source.variant} exists; use --replace to "
                    "replace it or --append to add a new variant"
                )
            print(f"{outcome} {source.key} variant {source.variant}")
        announce_change(session)  # a running daemon re-reads the stories at once


def _matches(source: StorySource, args: argparse.Namespace) -> bool:
    key = source.key
    return (
        (args.ruleset is None or key.ruleset == args.ruleset)
        and (args.lang is None or key.language == args.lang)
        and (args.theme is None or key.theme == args.theme)
        and (args.event is None or key.event == args.event)
    )


def _list(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.storystore import DatabaseStore
    from stories import FileStore

    if args.files:
        sources = list(FileStore().all())
    else:
        with database_session(config_from_args(args)) as session:
            sources = list(DatabaseStore(session).all())
    for source in sources:
        if not _matches(source, args):
            continue
        key = source.key
        row = {
            "ruleset": key.ruleset,
            "language": key.language,
            "theme": key.theme,
            "event": key.event,
            "variant": source.variant,
        }
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{key} {source.variant}")


def _check(args: argparse.Namespace) -> int | None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.storystore import DatabaseStore, LayeredStore
    from stories import FileStore, check_store

    shipped = FileStore()
    if args.files:
        report = check_store(shipped)
        label = "shipped packs"
    else:
        with database_session(config_from_args(args)) as session:
            report = check_store(LayeredStore(DatabaseStore(session), shipped))
        label = "database (over the shipped packs)"
    if args.json:
        print(json.dumps({"ok": report.ok, "problems": report.problems, "notes": report.notes}))
    else:
        for problem in report.problems:
            print(f"problem: {problem}")
        for note in report.notes:
            print(f"note: {note}")
        print(
            f"{label}: {report.templates} templates, {report.renders} sample renders, "
            f"{len(report.problems)} problems"
        )
    if not report.ok:
        raise CommandError(f"stories check failed: {len(report.problems)} problem(s)")
    return None


def _preview(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.storystore import runtime_store
    from stories import FileStore, Renderer, all_keys
    from stories.store import over_shipped

    if args.event.endswith(".j2"):
        options = argparse.Namespace(**{**vars(args), "event": None, "variant": None})
        source = source_from_file(Path(args.event), options)
        store: TemplateStore = over_shipped(source)
        _print_preview(Renderer(store), [source], args)
        return
    known = all_keys()
    if args.event not in known:
        raise CommandError(f"unknown event or mail {args.event!r} (one of {', '.join(known)})")
    key = _key(args, args.event)
    if args.files:
        renderer = Renderer(FileStore())
        _print_preview(renderer, list(renderer.variants(key)), args)
        return
    with database_session(config_from_args(args)) as session:
        renderer = Renderer(runtime_store(session))
        _print_preview(renderer, list(renderer.variants(key)), args)


def preview_texts(
    renderer: Renderer,
    sources: Sequence[StorySource],
    *,
    variant: int | None = None,
    sample: int = 0,
    html: bool = False,
) -> list[tuple[str, str]]:
    """Each variant of `sources` (only `variant`, if given) rendered with sample context
    number `sample`: a heading and its text (a mail's subject and text, and its HTML with
    `html`).  The admin panel shows the same.  Raises CommandError for a template that fails."""
    from stories import Event, StoryError
    from stories.samples import event_samples, mail_samples

    previews = []
    for source in sources:
        if variant is not None and source.variant != variant:
            continue
        key = source.key
        heading = f"=== {key} variant {source.variant}"
        rng = random.Random(sample)
        try:
            if key.is_mail:
                samples = list(mail_samples(key))
                mail = renderer.render_source_mail(source, samples[sample % len(samples)], rng)
                text = f"Subject: {mail.subject}\n\n{mail.text}"
                if html:
                    text += f"\n{mail.html}"
            else:
                pairs = list(event_samples(key))
                context, event = pairs[sample % len(pairs)]
                event_value = Event.from_dict(event, key.ruleset)
                told = renderer.render_source_event(source, context, event_value, rng)
                text = f"[event: {event}; recipient: {context['recipient']}]\n{told}"
        except StoryError as error:
            raise CommandError(str(error)) from None
        previews.append((heading, text))
    return previews


def _print_preview(
    renderer: Renderer, sources: Sequence[StorySource], args: argparse.Namespace
) -> None:
    for heading, text in preview_texts(
        renderer, sources, variant=args.variant, sample=args.sample, html=args.html
    ):
        print(heading)
        print(text)


def _remove(args: argparse.Namespace) -> None:
    from narrator.changes import announce_change
    from narrator.commands.db import config_from_args, database_session
    from narrator.storystore import DatabaseStore

    if args.variant is None and not args.all:
        raise CommandError("say which: --variant N, or --all for every variant of the key")
    key = _key(args, args.event)
    with database_session(config_from_args(args)) as session:
        removed = DatabaseStore(session).remove(key, args.variant)
        announce_change(session)
    if removed == 0:
        which = "any variant" if args.variant is None else f"variant {args.variant}"
        raise CommandError(f"{key} has no stored {which}")
    print(f"removed {removed} variant(s) of {key}")
