"""Validation of story templates: shape, sandbox, known variables and sample renders."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from jinja2 import TemplateNotFound

from rules.core.registry import get_ruleset, ruleset_ids
from stories.context import (
    COMMON_NAMES,
    EVENT_NAMES,
    MAIL_FIELDS,
    Action,
    ContextError,
    Event,
    event_schema,
    players_from,
)
from stories.helpers import Helpers, StoryError, helper_names
from stories.keys import BASE_THEME, MAIL_TYPES, OPTIONAL_MAILS, StoryKey, keys_of
from stories.layout import BIG_GAME, ROSTER_SEPARATOR, choices_elsewhere, is_big, link_lines
from stories.pack import PackError, load_pack
from stories.render import Renderer, main_theme
from stories.samples import (
    action_kinds,
    big_mail_samples,
    event_samples,
    has_event_samples,
    mail_samples,
    sample_action,
    sample_game,
    sample_players,
    sampled_kinds,
    step_of_action,
)
from stories.sandbox import story_variables
from stories.store import MemoryStore, StorySource, TemplateStore, over_shipped
from stories.words import Words, languages_of

#: Jinja2 globals a template may use besides the context (ImmutableSandboxedEnvironment's).
_JINJA_GLOBALS = frozenset({"range", "dict", "namespace"})
_MAX_PROBLEMS_PER_TEMPLATE = 3


def allowed_names(key: StoryKey, words: Words) -> frozenset[str]:
    """Every top-level name a template of `key` may use (with the helpers of `words`)."""
    names = COMMON_NAMES | helper_names(words) | _JINJA_GLOBALS
    if key.is_mail:
        return names | frozenset(MAIL_FIELDS[key.event])
    return names | EVENT_NAMES


@dataclass
class CheckReport:
    """What a check found: problems (each one line) and how many renders it ran."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    renders: int = 0
    templates: int = 0

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems


def _origin(source: StorySource) -> str:
    return source.origin or f"{source.key}#{source.variant}"


def validate_source(
    source: StorySource, renderer: Renderer | None = None, report: CheckReport | None = None
) -> CheckReport:
    """Check one template: syntax and shape, sandbox, includes, known variables, and a render
    with every sample context of its event (both genders, singular and plural, every role and
    action).  Without a `renderer`, what it includes is looked up in the shipped packs.

    Returns the report (problems empty when the template is fine).
    """
    renderer = renderer or Renderer(over_shipped(source))
    report = report or CheckReport()
    report.templates += 1
    origin = _origin(source)
    try:
        compiled = renderer.compile(source)
        words = renderer.words(source.key)
    except StoryError as error:
        report.problems.append(str(error))
        return report
    missing = []
    for name in (*compiled.includes, *((compiled.parent,) if compiled.parent else ())):
        try:
            renderer.compile_named(name)
        except TemplateNotFound:
            missing.append(name)
        except StoryError as error:
            report.problems.append(f"{origin}: in {name}: {error}")
    if missing:
        report.problems.append(f"{origin}: includes missing template(s): {', '.join(missing)}")
        return report
    if source.key.is_partial:
        return report  # checked where it is included: it sees its includer's names
    variables = story_variables(renderer.env, source.source, origin, source.key.template_name)
    unknown = sorted(variables - allowed_names(source.key, words))
    if unknown:
        report.problems.append(f"{origin}: unknown variable(s): {', '.join(unknown)}")
        return report
    problems: list[str] = []
    for problem in _render_errors(renderer, source, report):
        if problem not in problems:
            problems.append(problem)
        if len(problems) >= _MAX_PROBLEMS_PER_TEMPLATE:
            break
    report.problems.extend(problems)
    return report


def _render_errors(renderer: Renderer, source: StorySource, report: CheckReport) -> Iterable[str]:
    """Render `source` with every sample of its event; yield each problem found."""
    key = source.key
    if key.is_mail:
        for number, context in enumerate(itertools.chain(mail_samples(key), big_mail_samples(key))):
            report.renders += 1
            rng = random.Random(number)
            try:
                mail = renderer.render_source_mail(source, context, rng)
            except (StoryError, ContextError) as error:
                yield _with_sample(str(error), context)
                continue
            yield from _mail_content_problems(source, context, mail.subject, mail.text)
        if key.event == "step":
            yield from _unworded_kinds(renderer, source)
    else:
        schema = event_schema(key.ruleset)  # once for the samples of this source
        for number, (context, event) in enumerate(event_samples(key)):
            report.renders += 1
            rng = random.Random(number)
            try:
                renderer.render_source_event(
                    source, context, Event.from_dict(event, key.ruleset, schema), rng
                )
            except (StoryError, ContextError) as error:
                yield _with_sample(str(error), {**context, "event": event})


#: An action kind no ruleset has: a step mail for a kind of the rules that reads like this
#: one's has no words for it ("Something is asked of you (witte)").
UNKNOWN_KIND = "zz_unknown"


def _unworded_kinds(renderer: Renderer, source: StorySource) -> Iterable[str]:
    """Yield a problem for each action kind of the rules that the step template `source`
    tells as it tells an unknown kind (with no ``extra``, which a template may tell the kind
    by): its fallback, no words of its own."""
    key = source.key
    if key.ruleset not in ruleset_ids():
        return
    players = sample_players(key.ruleset)
    reader = players[0].name

    def told(action: Action, kind: str) -> str:
        context = {
            "game": sample_game(key, step_of_action(key.ruleset, kind)),
            "players": players,
            "recipient": reader,
            "player": reader,
            "actions": [action],
        }
        text = renderer.render_source_mail(source, context, random.Random(0)).text
        return text.replace(kind, "§").replace(UNKNOWN_KIND, "§")

    for kind in action_kinds(key.ruleset):
        action = sample_action(key.ruleset, kind)
        try:
            unknown = replace(action, kind=UNKNOWN_KIND, extra={})
            unworded = told(action, kind) == told(unknown, kind)
        except (StoryError, ContextError):
            continue  # an unknown kind is refused: no fallback (the sample renders check it)
        if unworded:
            yield f"{_origin(source)}: the step mail has no words for the action {kind!r}"


def sample_problems(ruleset: str) -> list[str]:
    """The samples of `ruleset` (``stories/<ruleset>/samples.toml``) against its rules: a
    sampled action kind the rules never ask (its samples render a mail no game sends, while
    the live kind goes unchecked), and an event the rules emit with no sample to render."""
    if ruleset not in ruleset_ids():
        return []
    rules = get_ruleset(ruleset)
    asked = set(rules.action_kinds)
    problems = [
        f"{ruleset}: samples.toml: [actions.{kind}] is no action the rules ask "
        f"(they ask: {', '.join(rules.action_kinds)})"
        for kind in sampled_kinds(ruleset)
        if kind not in asked
    ]
    problems += [
        f"{ruleset}: samples.toml: no [[events.{event}]] sample (the rules emit it)"
        for event in rules.event_types
        if event not in MAIL_TYPES and not has_event_samples(ruleset, event)
    ]
    return problems


def _with_sample(message: str, context: dict[str, Any]) -> str:
    shown = {k: v for k, v in context.items() if k not in ("players", "game")}
    return f"{message} (sample: {shown})"


def _mail_content_problems(
    source: StorySource, context: dict[str, Any], subject: str, text: str
) -> Iterable[str]:
    """Checks beyond 'it renders': a subject, the game's name in it, valid choices listed,
    and the role named in a role mail."""
    origin = _origin(source)
    if not subject:
        yield f"{origin}: empty subject"
    if not text.strip():
        yield f"{origin}: empty body (sample: {context.get('role') or context.get('actions')})"
    repeated = _repeated_words(subject) if source.key.event in GREETED_MAILS else []
    if repeated:
        yield f"{origin}: the subject repeats {', '.join(repeated)} ({subject!r})"
    story = text.replace("\r\n", "\n").partition(f"\n{ROSTER_SEPARATOR}\n")[0]  # not the roster
    page = context.get("page_link")
    if page:  # nor the lines of his page, which the narrator writes under the signature
        words = Renderer(MemoryStore()).words(source.key)
        story = story.rstrip().removesuffix("\n".join(link_lines(str(page), words)))
    if source.key.event in GREETED_MAILS and story.strip():
        lines = [line.strip() for line in story.strip().splitlines() if line.strip()]
        if not _is_greeting(lines[0]):
            yield f"{origin}: the mail opens with no greeting to its reader ({lines[0]!r})"
        if not _is_signature(lines[-1]):
            yield f"{origin}: the mail ends with no signature ({lines[-1]!r})"
    game = context.get("game")
    if game is not None and game.name not in subject:
        yield f"{origin}: the subject should name the game ({subject!r})"
    if source.key.event == "reminder" and context.get("page_link"):
        for action in context["actions"]:  # a big game's reminder lists no village either
            listed = [name for name in action.choices if name in text]
            if len(listed) > BIG_GAME:
                yield (
                    f"{origin}: the big game's reminder for {action.kind} lists {len(listed)} "
                    f"choices (at most {BIG_GAME}: see unlisted(a))"
                )
    if source.key.event not in ("role", "step", "error"):
        return
    words = Renderer(MemoryStore()).words(source.key)
    helpers = Helpers(words, sample_players(source.key.ruleset), random.Random(0))
    cast = players_from(context.get("players", ()))
    if source.key.event == "role":
        role = context["role"]
        if helpers.role_name(role) not in text:
            yield f"{origin}: the role mail for {role} does not name the role"
        link = context.get("game_link")
        if link and is_big(cast):  # a big game: the game's page, not every name
            yield from _big_list_problems(
                f"{origin}: the big game's role mail",
                [p.name for p in cast],
                str(link),
                text,
                "unlisted(players)",
            )
    if source.key.event == "error":
        choices = context.get("choices") or ()
        elsewhere = choices_elsewhere(choices, cast, context.get("page_link"), words, helpers.count)
        if elsewhere:  # a big game: where the choices are, not a list of them
            what = f"{origin}: the big game's error mail"
            yield from _big_list_problems(what, choices, elsewhere, text, "unlisted(choices)")
    if source.key.event == "step":
        for action in context["actions"]:
            elsewhere = choices_elsewhere(
                action.choices, cast, context.get("page_link"), words, helpers.count
            )
            if elsewhere:  # a big game: where the choices are, not a list of them
                yield from _big_step_problems(origin, action, elsewhere, context, text)
                continue
            # A role or team among the choices (a Mafia request, a side) is listed by its name.
            missing = [name for name in action.choices if helpers.choice(name) not in text]
            if missing:
                yield (
                    f"{origin}: the step mail for {action.kind} does not list the valid "
                    f"choices {missing}"
                )


def _big_step_problems(
    origin: str, action: Action, elsewhere: str, context: Mapping[str, Any], text: str
) -> Iterable[str]:
    """A big game's step mail: it says where the choices are (the line `elsewhere`), lists no
    more than :data:`BIG_GAME` of them, and its roster links the game's page."""
    what = f"{origin}: the big game's step mail for {action.kind}"
    yield from _big_list_problems(what, action.choices, elsewhere, text, "unlisted(a)")
    link = context.get("game_link")
    if link and link not in text:
        yield f"{origin}: the big game's step mail does not link the game's page {link}"


def _big_list_problems(
    what: str, names: Sequence[str], said: str, text: str, instead: str
) -> Iterable[str]:
    """A big game's mail (`what`): it says `said` (the line with the reader's page or the
    game's, where the `names` are) and lists no more than :data:`BIG_GAME` of them (the
    template writes `instead` instead of the list)."""
    if said not in text:
        yield f"{what} does not say {said!r}"
    listed = [name for name in names if name in text]
    if len(listed) > BIG_GAME:
        yield (
            f"{what} lists {len(listed)} names (at most {BIG_GAME}: write {instead} instead "
            "of the list)"
        )


#: The mails to a player, which open with a greeting and close with the narrator's signature
#: (not ``help_forward``, a note to the admins, nor a partial).
GREETED_MAILS = frozenset(MAIL_TYPES) - {"help_forward", "help_digest"}

_WORD = re.compile(r"[^\W\d_]{4,}")


def _repeated_words(subject: str) -> list[str]:
    """The words (four letters or more, case ignored) a subject says twice: "Nacht 1: de
    nacht", "Het begin: het begin"."""
    seen: dict[str, int] = {}
    for word in _WORD.findall(subject):
        seen[word.casefold()] = seen.get(word.casefold(), 0) + 1
    return sorted(word for word, n in seen.items() if n > 1)


def _is_greeting(line: str) -> bool:
    """A first line that addresses the reader: short, ending in ",", "!" or ":" ("Beste
    Anna,", "Welkom in Wakkerdam, Anna!", "Anna, dit is alleen voor jou:"), or a clipped
    salutation that ends in "." ("Morning, Anna.", "Welcome aboard, Anna.", "Good evening.":
    at most five words, with a vocative comma, or at most two words) — not a story's first
    sentence ("The night was long.")."""
    if len(line) > 80:
        return False
    if line.endswith((",", "!", ":")):
        return True
    words = len(line.split())
    return line.endswith(".") and (words <= 2 or (words <= 5 and "," in line))


def _is_signature(line: str) -> bool:
    """A last line that is a name, not a sentence ("De Verteller", "Il Narratore")."""
    return 0 < len(line) <= 40 and not line.endswith((".", "?", "!", ":", ",", ")"))


def _apart_problems(renderer: Renderer, ruleset: str, language: str) -> list[str]:
    """The pack's ``[mails] apart`` pairs ``[private event, public event]`` (Wakkerdam: an
    inactivity warning and a death) never come in one mail for the same player: the story of
    a step is told as the narrator tells it, the public part to the village and the private
    part to the player, and no mail may show both."""
    try:
        pack = load_pack(ruleset)
    except PackError:
        return []
    pairs = pack.data.get("mails", {}).get("apart", [])
    if not pairs or language not in languages_of(ruleset):
        return []
    problems = []
    players = sample_players(ruleset)
    reader = players[0].name
    for private_type, public_type in pairs:
        events = []
        for kind, audience in ((private_type, reader), (public_type, "public")):
            samples = [e for _c, e in event_samples(StoryKey(ruleset, language, ruleset, kind))]
            if not samples:
                continue
            events.append({**samples[0], "player": reader, "audience": audience})
        if len(events) != 2:
            continue
        key = StoryKey(ruleset, language, ruleset, "night_result")
        game = sample_game(key, None)
        try:
            told = [
                renderer.render_event(
                    key,
                    {"game": game, "players": players, "recipient": recipient},
                    event,
                    f"0|{index}",
                ).strip()
                for index, (event, recipient) in enumerate(zip(events, (reader, None), strict=True))
            ]
            mails = [
                renderer.render_story(
                    key,
                    {"game": game, "players": players, "recipient": recipient},
                    events,
                    0,
                    part=part,
                )
                for part, recipient in (("public", None), ("private", reader))
            ]
        except (StoryError, ContextError) as error:
            problems.append(f"{key}: {error}")
            continue
        lines = [text.splitlines()[0] for text in told if text]
        for mail in mails:
            if mail is not None and len(lines) == 2 and all(line in mail.text for line in lines):
                problems.append(
                    f"{key}: a {private_type} and a {public_type} of one player in one mail"
                )
    return problems


def check_store(store: TemplateStore, languages: Sequence[str] | None = None) -> CheckReport:
    """Check every template of `store`, and that every event and mail of each ruleset has a
    template in its main theme or its `_base`, in every language of `languages` (default:
    the languages the ruleset has a words.toml for); other themes fall back to them.

    Returns the report; `report.ok` is False on any problem.
    """
    report = CheckReport()
    renderer = Renderer(store)
    sources = list(store.all())
    for source in sources:
        validate_source(source, renderer, report)
    rulesets = sorted({s.key.ruleset for s in sources})
    for ruleset in rulesets:
        themes = sorted(
            {(s.key.language, s.key.theme) for s in sources if s.key.ruleset == ruleset}
        )
        wanted = languages_of(ruleset) if languages is None else tuple(languages)
        events = keys_of(ruleset)
        report.problems.extend(sample_problems(ruleset))
        for language in wanted:
            report.problems.extend(_apart_problems(renderer, ruleset, language))
        for language in wanted:
            for event in events:
                if event in OPTIONAL_MAILS:
                    continue
                key = StoryKey(ruleset, language, ruleset, event)
                if not store.variants(key) and not store.variants(key.with_theme(BASE_THEME)):
                    report.problems.append(f"{key}: no template (every event needs one)")
        for language, theme in themes:
            if theme in (ruleset, BASE_THEME):
                continue
            fallbacks: dict[str, list[str]] = {}
            for event in events:
                key = StoryKey(ruleset, language, theme, event)
                if not store.variants(key):
                    main = main_theme(key)
                    used = main if store.variants(key.with_theme(main)) else BASE_THEME
                    fallbacks.setdefault(used, []).append(event)
            for used, missing in fallbacks.items():
                report.notes.append(
                    f"{ruleset}/{language}/{theme}: falls back to theme {used!r} for "
                    f"{', '.join(missing)}"
                )
    return report
