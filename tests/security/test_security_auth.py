"""Sender authenticity: Authentication-Results of our own server, and personal reply addresses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from narrator.config import ConfigError, load_config
from narrator.db import transaction
from narrator.models import Game, Vote
from narrator.service import games as service
from narrator.service.authenticity import (
    ReplyAddresses,
    SenderAuth,
    header_items,
    parse_authentication_results,
    trusted_results,
)
from narrator.service.wiring import make_mailer
from narrator.service.work import unit_of_work
from tests.security.security_support import NARRATOR, Narrator, mail, players
from tests.support.shipped import shipped_mailer

OURS = "mx.example.org"
RECEIVED = ("Received", "from mail.example.net by mx.example.org; Wed, 18 Nov 2026 09:00:00")


def ar(results: str, authserv_id: str = OURS) -> tuple[str, str]:
    return ("Authentication-Results", f"{authserv_id}; {results}")


def test_parse_authentication_results() -> None:
    authserv_id, results = parse_authentication_results(
        'MX.Example.org 1; dkim=pass (2048-bit key; "quoted") header.d=Example.NET '
        'header.s=sel; spf=fail (sender IP is 192.0.2.1) smtp.mailfrom="a@example.net"; '
        "dmarc/1=fail (p=REJECT sp=NONE) header.from=example.net; arc=none"
    )
    assert authserv_id == "mx.example.org"
    assert [(r.method, r.result) for r in results] == [
        ("dkim", "pass"),
        ("spf", "fail"),
        ("dmarc", "fail"),
        ("arc", "none"),
    ]
    assert results[0].properties == {"header.d": "example.net", "header.s": "sel"}
    assert results[1].properties == {"smtp.mailfrom": "a@example.net"}
    assert parse_authentication_results("mx.example.org; none") == ("mx.example.org", [])


def test_only_the_topmost_of_our_own_headers_is_trusted() -> None:
    raw = mail(
        "anna@example.net",
        "WW5",
        "Bram",
        headers=[
            ("Delivered-To", NARRATOR),
            ar("dmarc=fail header.from=example.net"),
            ar("dkim=fail header.d=example.net"),
            ar("spf=pass smtp.mailfrom=x@elsewhere.example", "mx.elsewhere.example"),
            RECEIVED,
            # Written by the sender before the mail reached us: a forgery, never read.
            ar("dmarc=pass header.from=example.net; dkim=pass header.d=example.net"),
        ],
    )
    results = trusted_results(header_items(raw), [OURS])
    assert results is not None
    assert [(r.method, r.result) for r in results] == [("dmarc", "fail")]
    assert trusted_results(header_items(raw), ["other.example"]) is None


@pytest.mark.parametrize(
    ("policy", "headers", "verdict"),
    [
        ("dmarc", [ar("dmarc=pass header.from=example.net")], None),
        ("dmarc", [ar("dmarc=fail (p=reject) header.from=example.net")], "dmarc=fail"),
        # Only a pass for the sender's own domain will do (issue 24): no policy, a pass for
        # another domain (a second From address, the forger's own), a result about no domain,
        # a fail for another domain, or no dmarc result at all are refused.
        ("dmarc", [ar("dmarc=none header.from=example.net; dkim=none")], "no dmarc=pass"),
        ("dmarc", [ar("dmarc=pass header.from=evil.test")], "no dmarc=pass for example.net"),
        ("dmarc", [ar("dmarc=pass header.from=mail.example.net")], "no dmarc=pass"),
        ("dmarc", [ar("dmarc=pass")], "no dmarc=pass"),
        ("dmarc", [ar("dmarc=fail header.from=evil.test")], "no dmarc=pass"),
        ("dmarc", [ar("dkim=pass header.d=example.net")], "no dmarc result"),
        ("dkim-or-spf", [ar("dmarc=pass header.from=evil.test")], "neither"),
        ("dmarc", [], "no Authentication-Results from our mail server"),
        # A forged header of our own id below our server's is not read, even right below it.
        (
            "dmarc",
            [ar("dmarc=fail header.from=example.net"), ar("dmarc=pass header.from=example.net")],
            "dmarc=fail",
        ),
        (
            "dkim-or-spf",
            [ar("dkim=none"), ar("dkim=pass header.d=example.net"), RECEIVED],
            "neither",
        ),
        ("dmarc", [ar("dmarc=pass", "mx.forger.example")], "no Authentication"),
        ("dkim-or-spf", [ar("dkim=pass header.d=example.net")], None),
        ("dkim-or-spf", [ar("dkim=pass header.d=mail.example.net")], None),
        ("dkim-or-spf", [ar("dkim=pass header.i=@example.net")], None),
        ("dkim-or-spf", [ar("spf=pass smtp.mailfrom=bounce@example.net")], None),
        ("dkim-or-spf", [ar("dmarc=pass header.from=example.net")], None),
        (
            "dkim-or-spf",
            [ar("dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=evil.example")],
            "neither",
        ),
        (
            "dkim-or-spf",
            [ar("dkim=fail header.d=example.net; spf=softfail smtp.mailfrom=example.net")],
            "neither",
        ),
        ("dkim-or-spf", [ar("dkim=pass header.d=notexample.net")], "neither"),
        ("off", [], None),
    ],
)
def test_policies(policy: str, headers: list[tuple[str, str]], verdict: str | None) -> None:
    raw = mail("anna@example.net", "WW5", "Bram", headers=headers)
    result = SenderAuth(policy, (OURS,)).check(header_items(raw), "anna@example.net")
    if verdict is None:
        assert result is None
    else:
        assert result is not None and result.startswith(verdict)


def _running_game(narrator: Narrator) -> dict[str, str]:
    narrator.add_game("WW5")
    cast = players(5)
    narrator.sign_up("WW5", cast)
    narrator.start("WW5")
    return dict(cast)


def _a_vote(narrator: Narrator) -> tuple[str, str]:
    """(player name, vote body) of someone asked in the current step."""
    with unit_of_work(narrator.factory) as work:
        session = work.session
        game = session.scalars(select(Game)).one()
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        name = next(iter(rs.asked(state)))
        action = rs.choices(state, name).actions[0]
        body = " ".join(action.targets[: max(action.min_names, 1)]) or "blanco"
        return name, body + (f" {action.keyword}" if action.keyword else "")


def _votes(narrator: Narrator) -> int:
    with transaction(narrator.factory) as session:
        return session.scalar(select(func.count(Vote.id))) or 0


def test_unauthenticated_votes_are_refused_and_only_players_are_told(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator()
    cast = _running_game(narrator)
    narrator.settings = make_narrator(sender_auth=SenderAuth("dmarc", (OURS,))).settings
    name, body = _a_vote(narrator)
    address = cast[name]
    domain_fail = ar("dmarc=fail (p=reject) header.from=example.net")

    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail(address, "WW5", body, headers=[domain_fail]))
    assert outcome.state == "done" and "unauthenticated (dmarc=fail)" in outcome.what
    assert _votes(narrator) == 0
    sent = narrator.outbox(after=before)
    assert [(m.recipient, m.kind) for m in sent] == [(address, "error")]
    assert "kon niet bevestigen dat die van jou kwam" in sent[0].text

    # A stranger's forged mail (or a signup) gets no answer at all: no backscatter.
    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail("victim@example.net", "WW5", body, headers=[domain_fail]))
    assert outcome.what == "ignored: unauthenticated (dmarc=fail)"
    outcome = narrator.receive(mail("victim@example.net", "Help", "spam", headers=[]))
    assert (
        outcome.what == "ignored: unauthenticated (no Authentication-Results from our mail server)"
    )
    assert narrator.outbox(after=before) == []

    # The same vote, authenticated by our server, counts.
    passed = ar("dmarc=pass header.from=example.net")
    forged_below = [RECEIVED, ar("dmarc=pass header.from=example.net")]
    outcome = narrator.receive(mail(address, "WW5", body, headers=[domain_fail, *forged_below]))
    assert "unauthenticated" in outcome.what and _votes(narrator) == 0
    outcome = narrator.receive(mail(address, "WW5", body, headers=[passed, RECEIVED]))
    assert outcome.what == "vote accepted"
    assert _votes(narrator) == 1


def test_config_of_sender_authentication(tmp_path: Path) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text('[security]\nsender_auth = "dmarc"\n')
    with pytest.raises(ConfigError, match="authserv_ids"):
        load_config(path, environ={})
    path.write_text('[security]\nsender_auth = "dkim"\nauthserv_ids = ["mx"]\n')
    with pytest.raises(ConfigError, match="sender_auth"):
        load_config(path, environ={})
    path.write_text(
        '[security]\nsender_auth = "dkim-or-spf"\nauthserv_ids = [" MX.Example.org "]\n'
    )
    config = load_config(path, environ={})
    assert config.security.authserv_ids == ("mx.example.org",)
    path.write_text("[security]\nreplies_per_hour = -1\n")
    with pytest.raises(ConfigError, match="replies_per_hour"):
        load_config(path, environ={})


# --- personal reply addresses ---------------------------------------------------------------

KEY = b"a test key that is long enough"


def test_reply_addresses_are_per_game_and_player_and_stable() -> None:
    addresses = ReplyAddresses(NARRATOR, KEY)
    a = addresses.token(1, "anna@example.net")
    assert a == ReplyAddresses(NARRATOR, KEY).token(1, " Anna@Example.NET")
    assert len({a, addresses.token(2, "anna@example.net"), addresses.token(1, "bram@x.nl")}) == 3
    assert a != ReplyAddresses(NARRATOR, b"another key").token(1, "anna@example.net")
    assert a.isalnum() and a.islower() and len(a) == 10


def test_votes_need_the_personal_reply_address(make_narrator: Callable[..., Narrator]) -> None:
    addresses = ReplyAddresses(NARRATOR, KEY)
    narrator = make_narrator(shipped_mailer(NARRATOR, reply_addresses=addresses))
    cast = _running_game(narrator)
    with transaction(narrator.factory) as session:
        game = session.scalars(select(Game)).one()
        personal = {name: addresses.for_player(game, email) for name, email in cast.items()}
    # Every mail to a player carries his own reply address, and nobody else's.
    for sent in narrator.outbox():
        name = next(n for n, e in cast.items() if e == sent.recipient)
        assert sent.message["Reply-To"].addresses[0].addr_spec == personal[name]
        for other, secret in personal.items():
            if other != name:
                assert secret.split("-")[-1].split("@")[0] not in sent.raw.decode()
    assert all(address.startswith("verteller+ww5-") for address in personal.values())

    name, body = _a_vote(narrator)
    address = cast[name]
    other = next(n for n in cast if n != name)
    before = narrator.last_outbox_id()
    # To the plain address, or to another player's personal address: refused, with a reply
    # that carries the right address to answer to.
    for to in (NARRATOR, personal[other], "verteller+ww5-aaaaaaaaaa@example.org"):
        outcome = narrator.receive(mail(address, "WW5", body, to=to))
        assert outcome.what == "error: reply-address", outcome
    assert _votes(narrator) == 0
    refusals = narrator.outbox(after=before)
    assert [m.kind for m in refusals] == ["error"] * 3
    assert refusals[0].message["Reply-To"].addresses[0].addr_spec == personal[name]
    assert "persoonlijke adres" in refusals[0].text
    # To his own address (in To, or only in the delivery headers): counted.
    outcome = narrator.receive(mail(address, "WW5", body, to=personal[name]))
    assert outcome.what == "vote accepted"
    delivered = [("Delivered-To", personal[name])]
    outcome = narrator.receive(mail(address, "WW5", body, headers=delivered))
    assert outcome.what == "vote accepted"
    assert _votes(narrator) == 2
    # Signups and Help need no personal address.
    narrator.add_game("WW6")
    outcome = narrator.receive(mail("zora@example.net", "WW6", "Zora, vrouw"))
    assert outcome.what == "signup: Zora"
    # The key itself is stored nowhere.
    with transaction(narrator.factory) as session:
        for table in ("games", "players", "outbox", "inbox", "game_log"):
            for row in session.execute(text(f"SELECT * FROM {table}")):
                assert KEY.decode() not in repr(row)


def test_plus_addressing_from_the_configuration(tmp_path: Path, sqlite_url: str) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(f'[narrator]\ndatabase = "{sqlite_url}"\n[security]\nplus_addressing = true\n')
    with pytest.raises(ConfigError, match="NARRATOR_REPLY_SECRET"):
        load_config(path, environ={})
    config = load_config(path, environ={"NARRATOR_REPLY_SECRET": "s3cret"})
    assert "s3cret" not in repr(config)
    from narrator.db import make_engine, session_factory

    engine = make_engine(config.database_url)
    try:
        mailer = make_mailer(config, session_factory(engine))
    finally:
        engine.dispose()
    assert mailer.reply_addresses == ReplyAddresses(config.narrator.address, b"s3cret")
