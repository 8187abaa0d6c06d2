"""The service decides letters and mails nothing itself; the game table asks for one view per
state; the post office renders a shared draft once."""

from __future__ import annotations

import contextlib
import dataclasses
import email
import shutil
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from narrator.models import Game, OutboxMessage
from narrator.service import games as service
from narrator.service.letters import Draft, Letter, Recipient, post
from narrator.service.mailer import Mailer, ReplyTo
from narrator.service.story_context import story_game
from narrator.service.table import table_of
from narrator.service.threads import root_message_id
from narrator.service.work import Work, unit_of_work
from narrator.tables import games
from stories import FileStore
from stories import Game as StoryGame
from tests.support.bymail import NARRATOR, Table

PLAYERS = ("Anna", "Bram", "Carla", "Dirk", "Eva")
#: The References of a mail answered: ids, a bare one, a malformed one, one twice.
_THEIRS = (
    "<one@example.net>",
    "bare@example.net",
    "not an id",
    "<two@example.net>",
    "<one@example.net>",
)


def _started(factory: sessionmaker[Session]) -> Table:
    """A five-player Wakkerdam game, started (seeded), at its first night."""
    table = Table(factory, language="nl")
    table.open_game(
        name="WW5", ruleset="wakkerdam", language="nl", theme="wakkerdam", speed=3600, strictness=2
    )
    for name in PLAYERS:
        gender = "vrouw" if name in ("Anna", "Carla", "Eva") else "man"
        assert table.write(name, f"{name}, {gender}", "WW5") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = _the_game(work)
        service.start_game(work, table.mailer, game, now=table.clock(), seed=7)
    return table


def _the_game(work: Work) -> Game:
    """The one game of these tests, as `work` reads it."""
    return work.session.scalars(select(Game)).one()


def _outbox_size(factory: sessionmaker[Session]) -> int:
    with unit_of_work(factory) as work:
        return int(work.session.scalar(select(func.count(OutboxMessage.id))) or 0)


def test_closing_a_step_decides_letters_and_only_post_queues_them(
    factory: sessionmaker[Session],
) -> None:
    players = _started(factory)
    before = _outbox_size(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        closed = service.close(table_of(work, game), players.clock())
        work.session.flush()
        queued = int(work.session.scalar(select(func.count(OutboxMessage.id))) or 0)
        assert queued == before  # deciding queued nothing
        assert closed.letters and all(isinstance(letter, Letter) for letter in closed.letters)
        kinds = {letter.kind for letter in closed.letters}
        assert {"story", "step"} <= kinds
        ids = post(work.session, players.mailer, closed.letters, players.clock())
    recipients = sum(len(letter.to) for letter in closed.letters)
    assert len(ids) <= recipients  # an empty private story is not mailed
    assert _outbox_size(factory) == before + len(ids)


def _count_views(table: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the views `table`'s ruleset is asked for: the id of each state it is asked about."""
    asked: list[int] = []
    view = table.rules.view

    def counted(state: Any) -> Any:
        asked.append(id(state))
        return view(state)

    monkeypatch.setattr(table.rules, "view", counted)
    return asked


def test_the_table_asks_for_one_view_per_state(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    players = _started(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        table = table_of(work, game)
        asked = _count_views(table, monkeypatch)
        first = table.view
        assert table.view is first and len(asked) == 1  # asked again: the same view
        table.cast()
        table.public()
        assert len(asked) == 1
        state = table.state
        closed = service.close(table, players.clock())
        assert closed.letters
        # The table's: the resolved state's and the new state's, once each.  (The rules'
        # telling of the step, Ruleset.tell_step, asks for its own two, inside the rules.)
        assert asked.count(id(state)) <= 2 and len(asked) <= 4, asked
        assert table.view is table.view and len(asked) <= 4


def test_a_state_written_alone_counts_the_version_and_the_game_goes_on_in_the_transaction(
    factory: sessionmaker[Session],
) -> None:
    players = _started(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        read = game.version
        table = table_of(work, game)
        table.store(table.state, vote_only=True)  # only the rules state changes, as a vote's
        work.flush()  # written at once, the object told the version written
        assert game.version == read + 1
        game.reminded_at = players.clock()  # the row changes again in the same transaction
    with unit_of_work(factory) as work:
        game = _the_game(work)
        assert game.version == read + 2 and game.reminded_at == players.clock()
        assert game.state == table.rules.dump_state(table.state)


def test_a_votes_state_is_written_from_the_row_it_was_made_from(
    factory: sessionmaker[Session],
) -> None:
    _started(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        table = table_of(work, game)
        before, row = table.state, game.state
        voted = dataclasses.replace(before, votes={"Anna": ("Bram",)})  # a vote's new state
        table.store(voted, vote_only=True)
        work.flush()
        # the stored form dump_state gives, the players' part taken from the row as it was
        assert game.state == table.rules.dump_state(voted)
        assert game.state["players"] is row["players"]
        again = dataclasses.replace(voted, votes={"Anna": ("Carla",)})  # the pass's next vote
        table.store(again, vote_only=True)
        work.flush()  # from the row the first flush wrote
        assert game.state == table.rules.dump_state(again)
        assert game.state["players"] is row["players"]
    with unit_of_work(factory) as work:
        game = _the_game(work)
        assert table_of(work, game).state == again


def test_a_state_written_alone_is_refused_when_the_version_moved_meanwhile(
    factory: sessionmaker[Session],
) -> None:
    _started(factory)
    with pytest.raises(StaleDataError), unit_of_work(factory) as work:
        game = _the_game(work)
        table = table_of(work, game)
        table.store(table.state, vote_only=True)
        # another writer's change of the row, as a second daemon's on PostgreSQL
        bump = update(games).where(games.c.id == game.id).values(version=games.c.version + 1)
        work.session.connection().execute(bump)


def test_a_shared_draft_is_rendered_once(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    players = _started(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        closed = service.close(table_of(work, game), players.clock())
        stories = [letter for letter in closed.letters if letter.kind == "story"]
        village = {
            id(letter.draft)
            for letter in stories
            if letter.draft.story is not None and letter.draft.story.part == "public"
        }
        assert len(village) == 1 and len(stories) >= len(PLAYERS)
        # A renderer of its own to count on (the table's is shared by the process's tests).
        players.mailer = Mailer(FileStore(), NARRATOR)
        renderer = players.mailer.renderer
        render_story = renderer.render_story
        parts: list[str] = []

        def counted(*args: Any, **kwargs: Any) -> Any:
            parts.append(kwargs["part"])
            return render_story(*args, **kwargs)

        monkeypatch.setattr(renderer, "render_story", counted)
        post(work.session, players.mailer, closed.letters, players.clock())
    assert parts.count("public") == 1


_READS_THE_STATE = """
    from narrator.service.table import GameTable
    from rules.core import Vote


    def hands_back(table: GameTable, vote: Vote) -> object:
        return table.rules.apply(table.state, vote)


    def views(table: GameTable) -> object:
        return table.rules.view(table.state).players


    def reads(table: GameTable) -> object:
        return table.state.players
"""


def test_the_tables_rules_state_is_opaque_to_mypy(tmp_path: Path) -> None:
    """The table's state is typed (``RulesState``): mypy refuses a read of it (what may be read
    of a state is its view), and accepts handing it back to its ruleset."""
    found = Path(sys.executable).parent / "mypy"
    mypy = str(found) if found.exists() else shutil.which("mypy")
    assert mypy is not None, "mypy is not installed (the test extras)"
    module = tmp_path / "reads_state.py"
    module.write_text(textwrap.dedent(_READS_THE_STATE))
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [mypy, "--strict", str(module)], cwd=root, capture_output=True, text=True, check=False
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, result.stdout
    assert '"RulesState" has no attribute "players"' in errors[0], result.stdout


def test_states_written_together_are_refused_when_one_games_version_moved(
    factory: sessionmaker[Session],
) -> None:
    """The states of several games are written by one execution, each row checked by its
    version: when one game's row was changed meanwhile, the whole unit of work is refused
    (no game's state written)."""
    table = Table(factory, language="nl")
    for name in ("WW5", "WW6"):
        table.open_game(
            name=name,
            ruleset="wakkerdam",
            language="nl",
            theme="wakkerdam",
            speed=3600,
            strictness=2,
        )
        for player in PLAYERS:
            gender = "vrouw" if player in ("Anna", "Carla", "Eva") else "man"
            assert table.write(player, f"{player}, {gender}", name) == f"signup: {player}"
    with unit_of_work(factory) as work:
        for game in work.session.scalars(select(Game).order_by(Game.id)):
            service.start_game(work, table.mailer, game, now=table.clock(), seed=7)
    with unit_of_work(factory) as work:
        versions = {g.id: g.version for g in work.session.scalars(select(Game))}
    for moved in (False, True):
        with contextlib.ExitStack() as stack:
            if moved:
                stack.enter_context(pytest.raises(StaleDataError))
            work = stack.enter_context(unit_of_work(factory))
            played = list(work.session.scalars(select(Game).order_by(Game.id)))
            for game in played:
                game_table = table_of(work, game)
                game_table.store(game_table.state, vote_only=True)
            if moved:  # another writer's change of the second game's row
                last = played[-1].id
                bump = update(games).where(games.c.id == last).values(version=games.c.version + 1)
                work.session.connection().execute(bump)
        with unit_of_work(factory) as work:
            now = {g.id: g.version for g in work.session.scalars(select(Game))}
        assert now == {game_id: version + 1 for game_id, version in versions.items()}


def test_the_votes_of_a_batch_in_one_game_share_one_view_but_for_their_votes(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    players = _started(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        table = table_of(work, game)
        asked = _count_views(table, monkeypatch)
        voters = [p for p in table.players if p.name in table.rules.asked(table.state)]
        assert len(voters) >= 2
        for voter in voters:
            action = table.rules.choices(table.state, voter.name).actions[0]
            target = next(t for t in action.targets if t != voter.name)
            ballot = service.Ballot([target], False, [action.keyword] if action.keyword else [])
            assert service.cast_vote(table, voter, ballot, players.clock()).accepted
        assert len(asked) == 1  # one view for the votes' receipts, none built per vote
        shared = table.view_but_votes
        assert len(asked) == 1
        # Its votes are those of the state it was built of; the view of the state has them all.
        full = table.view
        assert len(asked) == 2 and len(full.votes) == len(voters) > len(shared.votes)
        assert (shared.step, shared.players, shared.facts) == (full.step, full.players, full.facts)
        # A state stored otherwise than as a vote (here the unit of work's own) gets its view.
        work.store(game, table.rules.load_state(table.rules.dump_state(table.state)))
        assert table.view_but_votes is not shared and len(asked) == 3
        table.store(table.state)
        assert table.view_but_votes is table.view and len(asked) == 3


def test_the_receipts_of_a_batch_in_one_game_share_one_public_game_of_its_deadline(
    factory: sessionmaker[Session],
) -> None:
    """The `game` of the receipts of a batch's votes in one game is made once (the table's
    ``votes_public``): it is ``story_game`` of the view they were cast in, and is made again
    when the deadline moves (an extension in the same unit of work) or the view changes."""
    players = _started(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        table = table_of(work, game)
        voters = [p for p in table.players if p.name in table.rules.asked(table.state)]
        publics = []
        for number, voter in enumerate(voters[:3]):
            if number == 2:  # the third vote after an extension of the deadline
                service.extend_deadline(work, game, timedelta(hours=1), now=players.clock())
            action = table.rules.choices(table.state, voter.name).actions[0]
            target = next(t for t in action.targets if t != voter.name)
            ballot = service.Ballot([target], False, [action.keyword] if action.keyword else [])
            outcome = service.cast_vote(table, voter, ballot, players.clock())
            assert outcome.accepted
            public = outcome.letters[0].draft.context["game"]
            assert public == story_game(game, None, view=table.view_but_votes)
            publics.append(public)
        assert publics[1] is publics[0]  # one for the votes of the batch
        assert publics[2] is not publics[1]  # the deadline moved: made again, showing it
        assert publics[2]["deadline"] != publics[1]["deadline"]
        view = table.view_but_votes
        # a state stored otherwise than as a vote (the same, read again): another view
        table.store(table.rules.load_state(table.rules.dump_state(table.state)))
        assert table.view_but_votes is not view
        assert table.votes_public(table.view_but_votes) is not publics[2]
        assert table.votes_public(table.view_but_votes) == publics[2]


@pytest.mark.parametrize("theirs", [_THEIRS, " ".join(_THEIRS)])
def test_an_answer_references_the_games_root_then_the_ids_he_sent_once_each(
    factory: sessionmaker[Session], theirs: tuple[str, ...] | str
) -> None:
    """The post office hands the answered mail's ids to compose as they came (a list of ids,
    or a header's text): the References written are the game's root, then his well-formed
    ids once each (a bare one bracketed, from a list), then the mail answered."""
    players = _started(factory)
    with unit_of_work(factory) as work:
        game = _the_game(work)
        root = root_message_id(game, players.mailer.domain)
        context = {"game": StoryGame(name="WW5"), "players": (), "recipient": None}
        letter = Letter(
            "help_received",
            Draft("help_received", context, "refs", game=game),
            (Recipient("anna@example.org", "Anna", "refs/anna"),),
            game=game,
            reply=ReplyTo(
                "<asked@example.org>", [*theirs, root] if isinstance(theirs, tuple) else theirs
            ),
        )
        (message_id,) = post(work.session, players.mailer, [letter], players.clock())
        raw = work.session.scalars(
            select(OutboxMessage.raw).where(OutboxMessage.message_id == message_id)
        ).one()
    header = email.message_from_bytes(raw)["References"].split()
    bare = ["<bare@example.net>"] if isinstance(theirs, tuple) else []
    assert header == [root, "<one@example.net>", *bare, "<two@example.net>", "<asked@example.org>"]
