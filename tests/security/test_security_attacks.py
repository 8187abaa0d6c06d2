"""The attacks of issue 24, replayed through the inbox (as the SMTP receiver or `inject` stores
mail): forged From fields under ``sender_auth = "dmarc"``, forgeries that would silence a
player, and backscatter to addresses a forger chose."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from narrator.config import ConfigError, load_config
from narrator.db import transaction
from narrator.models import Game, Vote
from narrator.scheduler import send_help_digests_if_due
from narrator.service import games as service
from narrator.service.authenticity import SenderAuth
from narrator.service.limits import Limits
from narrator.service.work import unit_of_work
from tests.security.conftest import ADMIN
from tests.security.security_support import NARRATOR, Narrator, Sent, mail, players
from tests.support.games import game_taking_signups

OURS = "mx.example.org"
_numbers = itertools.count()


def ar(results: str) -> tuple[str, str]:
    return ("Authentication-Results", f"{OURS}; {results}")


def raw_mail(
    from_fields: Sequence[str], subject: str, body: str, headers: Sequence[tuple[str, str]] = ()
) -> bytes:
    """A mail with the From field(s) exactly as written."""
    lines = [f"{k}: {v}" for k, v in headers]
    lines += [f"From: {value}" for value in from_fields]
    lines += [
        f"To: {NARRATOR}",
        f"Subject: {subject}",
        f"Message-ID: <attack{next(_numbers)}@sec.test>",
        "Content-Type: text/plain; charset=utf-8",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n" + body + "\r\n").encode()


def _running_game(narrator: Narrator) -> dict[str, str]:
    narrator.add_game("WW5")
    cast = players(5, domain="sec.test")
    narrator.sign_up("WW5", cast)
    narrator.start("WW5")
    return dict(cast)


def _a_vote(narrator: Narrator) -> tuple[str, str]:
    with unit_of_work(narrator.factory) as work:
        game = work.session.scalars(select(Game)).one()
        rs = service.ruleset_of(game)
        state = service.load_state(work, game)
        name = next(iter(rs.asked(state)))
        action = rs.choices(state, name).actions[0]
        body = " ".join(action.targets[: max(action.min_names, 1)]) or "blanco"
        return name, body + (f" {action.keyword}" if action.keyword else "")


def _votes(narrator: Narrator) -> int:
    with transaction(narrator.factory) as session:
        return session.scalar(select(func.count(Vote.id))) or 0


def test_dmarc_needs_a_pass_for_the_senders_own_domain_and_one_from_address(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator()
    cast = _running_game(narrator)
    narrator.settings = make_narrator(sender_auth=SenderAuth("dmarc", (OURS,))).settings
    name, body = _a_vote(narrator)
    victim = cast[name]
    evil = [ar("dmarc=pass header.from=evil.test")]
    attacks = [
        # The address outside the brackets was read as the sender; DMARC checked evil.test.
        raw_mail([f"{victim} <mallory@evil.test>"], "WW5", body, evil),
        raw_mail([f"{victim}, mallory@evil.test"], "WW5", body, evil),
        raw_mail([f"Frits ({victim}) <mallory@evil.test>"], "WW5", body, evil),
        raw_mail([victim, "mallory@evil.test"], "WW5", body, evil),
        # A fail for another domain, a pass about no domain, or no dmarc result at all.
        raw_mail([victim], "WW5", body, [ar("dmarc=fail header.from=evil.test")]),
        raw_mail([victim], "WW5", body, [ar("dmarc=pass")]),
        raw_mail([victim], "WW5", body, [ar("dkim=pass header.d=sec.test")]),
        raw_mail([victim], "WW5", body, [ar("dmarc=none header.from=sec.test")]),
    ]
    before = narrator.last_outbox_id()
    for raw in attacks:
        outcome = narrator.receive(raw)
        assert "unauthenticated (" in outcome.what, outcome
    assert _votes(narrator) == 0
    # Told politely, once: the first refusal, and nothing for the others that day.
    sent = narrator.outbox(after=before)
    assert [(m.recipient, m.kind) for m in sent] == [(victim, "error")]
    assert "kon niet bevestigen dat die van jou kwam" in sent[0].text
    assert "several addresses in From" in sent[0].text
    # A stranger's ambiguous From: ignored, no answer to anybody.
    before = narrator.last_outbox_id()
    outcome = narrator.receive(raw_mail(["nobody@sec.test <mallory@evil.test>"], "WW5", body))
    assert outcome.what.startswith("ignored: unauthenticated (several addresses")
    assert narrator.outbox(after=before) == []
    # His own mail, passed by our server for his domain, counts and gets its receipt.
    own = [ar("dmarc=pass header.from=sec.test")]
    outcome = narrator.receive(raw_mail([f"{name} <{victim}>"], "WW5", body, own))
    assert outcome.what == "vote accepted"
    assert _votes(narrator) == 1
    assert [m.recipient for m in narrator.outbox(after=before)] == [victim]


def test_ambiguous_from_is_refused_without_sender_auth_too(narrator: Narrator) -> None:
    cast = _running_game(narrator)
    name, body = _a_vote(narrator)
    outcome = narrator.receive(raw_mail([f"{cast[name]} <mallory@evil.test>"], "WW5", body))
    assert outcome.what == "refused: unauthenticated (several addresses in From)"
    assert _votes(narrator) == 0


def test_forgeries_do_not_silence_the_real_player(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator()
    cast = _running_game(narrator)
    narrator.settings = make_narrator(sender_auth=SenderAuth("dmarc", (OURS,))).settings
    name, body = _a_vote(narrator)
    victim = cast[name]
    forged = [ar("dmarc=fail (p=reject) header.from=sec.test")]
    before = narrator.last_outbox_id()
    for n in range(Limits().replies_per_hour + 5):
        outcome = narrator.receive(mail(victim, "WW5", f"{body} {n}", headers=forged))
        assert "refused: unauthenticated (dmarc=fail)" in outcome.what
    assert [m.kind for m in narrator.outbox(after=before)] == ["error"]  # one a day
    # His own vote still gets its receipt, and his Help still reaches the admin.
    own = [ar("dmarc=pass header.from=sec.test")]
    before = narrator.last_outbox_id()
    assert narrator.receive(mail(victim, "WW5", body, headers=own)).what == "vote accepted"
    outcome = narrator.receive(mail(victim, "Help WW5", "Iemand stemt met mijn naam", headers=own))
    assert outcome.what == "help forwarded to 1 admin(s)"
    sent = [(m.recipient, m.kind) for m in narrator.outbox(after=before)]
    assert (ADMIN, "help_forward") in sent and (victim, "help_received") in sent
    assert len([r for r, _ in sent if r == victim]) == 2


def test_a_players_help_is_forwarded_over_his_reply_limit_up_to_a_flood(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=2, replies_per_day=0))
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [("Anna", "anna@example.net")])
    outcomes = [
        narrator.receive(mail("anna@example.net", "Help WW5", f"vraag {n}")).what for n in range(14)
    ]
    forwarded = [what for what in outcomes if what.startswith("help forwarded")]
    # 1 signup + 1 Help answered within the limit, then 10 more forwarded in the hour: a flood.
    assert len(forwarded) == 1 + 10, outcomes
    assert outcomes[-1].startswith("help not forwarded")
    # A stranger's Help over his limit is not forwarded.
    stranger = [
        narrator.receive(mail("vreemde@example.net", "Help", f"vraag {n}")).what for n in range(4)
    ]
    assert [w.startswith("help forwarded") for w in stranger] == [True, True, False, False]


def test_a_players_help_flood_gives_the_admins_one_digest_an_hour(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=2, replies_per_day=0))
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [("Anna", "anna@example.net")])
    before = narrator.last_outbox_id()

    def flood(count: int, tag: str) -> list[str]:
        return [
            narrator.receive(mail("anna@example.net", f"Help WW5 {tag}{n}", "vraag")).what
            for n in range(count)
        ]

    outcomes = flood(15, "a")
    held = [n for n, what in enumerate(outcomes) if what.startswith("help not forwarded")]
    assert held == [11, 12, 13, 14], outcomes  # 2 answered, 10 forwarded beyond
    digests = [m for m in narrator.outbox(after=before) if m.kind == "help_digest"]
    assert [m.recipient for m in digests] == [ADMIN]  # one, at the first held Help
    text = digests[0].raw.decode()
    assert "Help WW5 a11" in text and "anna@example.net" in text
    assert "a10" not in text  # a forwarded one is not listed as held
    assert digests[0].message["Reply-To"] == "anna@example.net"
    # The next hour: forwarded again up to the flood, then one new digest.
    narrator.clock.now += timedelta(hours=1)
    before = narrator.last_outbox_id()
    outcomes = flood(13, "b")
    assert outcomes[-1].startswith("help not forwarded"), outcomes
    digests = [m for m in narrator.outbox(after=before) if m.kind == "help_digest"]
    assert len(digests) == 1 and "Help WW5 b12" in digests[0].raw.decode()


def test_every_held_help_reaches_the_admins_in_the_closing_digest_once(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=1, replies_per_day=0))
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [("Anna", "anna@example.net")])  # his one answer this hour
    before = narrator.last_outbox_id()
    outcomes = [
        narrator.receive(mail("anna@example.net", f"Help WW5 vraag{n:02}", "hoe?")).what
        for n in range(15)
    ]
    assert [w.startswith("help forwarded") for w in outcomes] == [True] * 10 + [False] * 5
    sent = narrator.outbox(after=before)
    assert [m.kind for m in sent].count("help_forward") == 10
    [immediate] = [m for m in sent if m.kind == "help_digest"]
    assert "vraag10" in immediate.text and "vraag11" not in immediate.text

    def sweep() -> list[Sent]:
        start = narrator.last_outbox_id()
        send_help_digests_if_due(narrator.factory, narrator.mailer, (ADMIN,), narrator.clock())
        return narrator.outbox(after=start)

    narrator.clock.now += timedelta(minutes=59)  # the hour is not over: nothing yet
    assert sweep() == []
    narrator.clock.now += timedelta(minutes=2)
    [closing] = sweep()
    assert (closing.recipient, closing.kind) == (ADMIN, "help_digest")
    assert closing.message["Reply-To"] == "anna@example.net"
    listed = [n for n in range(15) if f"vraag{n:02}" in closing.text]
    assert listed == [11, 12, 13, 14], closing.text  # every one held after the first
    assert "In het uur vanaf 2026-11-18 09:00 UTC" in closing.text
    assert "anna@example.net 5 hulpvragen boven de 10" in closing.text
    # Run again (a restart, the next poll): nothing is sent twice.
    assert sweep() == []
    # His own words went only to the admins.
    assert not any("vraag1" in m.text for m in narrator.outbox() if m.recipient != ADMIN)
    # The next hour's flood (1 answered, 10 forwarded, 1 told at once) has a closing digest of
    # its own.
    for n in range(13):
        narrator.receive(mail("anna@example.net", f"Help WW5 later{n:02}", "hoe?"))
    narrator.clock.now += timedelta(hours=1, minutes=1)
    [later] = sweep()
    assert [n for n in range(13) if f"later{n:02}" in later.text] == [12]
    assert later.message["Message-ID"] != closing.message["Message-ID"]


def test_no_free_text_goes_back_to_strangers(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    subject = "Koop nu " + "goedkope horloges op http://spam.example " * 5
    outcome = narrator.receive(mail("victim@example.net", subject, "hallo"))
    assert outcome.what == "error: no-game"
    (reply,) = narrator.outbox()
    assert "horloges" not in reply.raw.decode() and "horloges" not in str(reply.message["Subject"])
    before = narrator.last_outbox_id()
    spam = "Bezoek-http://spam.example-voor-goedkope-horloges" * 10
    outcome = narrator.receive(mail("victim2@example.net", "WW5", f"{spam}, man"))
    assert outcome.what == "error: bad-name"
    (reply,) = narrator.outbox(after=before)
    assert "spam.example" not in reply.text and "De naam kan niet" in reply.text
    assert str(reply.message["Subject"]) == "Re: WW5"
    # A player of the game gets his own words back (he knows what he wrote).
    narrator.sign_up("WW5", [("Anna", "anna@example.net")])
    before = narrator.last_outbox_id()
    narrator.receive(mail("anna@example.net", "Re: WW5 naam", "Ann4, vrouw"))
    (reply,) = narrator.outbox(after=before)
    assert "Ann4" in reply.text and "naam" in str(reply.message["Subject"])


def test_plus_detail_and_case_share_one_budget(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(replies_per_hour=3, replies_per_day=0))
    for n in range(60):
        narrator.receive(mail(f"Victim+{n}@Example.net", f"spam {n}", "hallo"))
    mailbox = [m for m in narrator.outbox() if m.recipient.startswith("victim")]
    assert len(mailbox) == 3 + 1  # the hour's answers and the one notice


def test_answers_to_strangers_are_capped_per_hour(make_narrator: Callable[..., Narrator]) -> None:
    narrator = make_narrator(limits=Limits(stranger_replies_per_hour=5))
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [("Anna", "anna@example.net")])
    for n in range(12):
        narrator.receive(mail(f"victim{n}@example.net", "geen spel", "hallo"))
    assert len([m for m in narrator.outbox() if m.recipient.startswith("victim")]) == 4
    # A player is answered all the same; the next hour strangers are answered again.
    before = narrator.last_outbox_id()
    narrator.receive(mail("anna@example.net", "geen spel", "hallo"))
    assert [m.recipient for m in narrator.outbox(after=before)] == ["anna@example.net"]
    narrator.clock.now = narrator.clock.now.replace(hour=narrator.clock.now.hour + 1)
    narrator.receive(mail("victim99@example.net", "geen spel", "hallo"))
    assert [m.recipient for m in narrator.outbox(after=before)][-1] == "victim99@example.net"


def _signup(narrator: Narrator, address: str, body: str) -> tuple[str, str]:
    """(outcome, the reply's text) of one signup mail."""
    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail(address, "WW5", body))
    (reply,) = narrator.outbox(after=before)
    return outcome.what, reply.text


def test_look_alike_names_are_refused(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    assert _signup(narrator, "anna@example.net", "Anna, vrouw")[0] == "signup: Anna"
    # Latin letters with a Cyrillic А and а, or a Greek Α and α: mixed scripts.
    for address, name in [
        ("cyrillic@example.net", "\u0410nn\u0430"),
        ("greek@example.net", "\u0391nn\u03b1"),
    ]:
        what, text = _signup(narrator, address, f"{name}, vrouw")
        assert what == "error: name-lookalike", what
        assert "niet van een andere naam te onderscheiden" in text
    # All Greek capitals: Α Ν Ν Α, the very letters of ANNA.
    what, _ = _signup(narrator, "greek2@example.net", "\u0391\u039d\u039d\u0391, vrouw")
    assert what == "error: name-lookalike", what
    # Pure Cyrillic names are fine (a Russian game), and so is a re-signup of one's own name.
    assert _signup(narrator, "ivan@example.net", "Иван, man")[0] == "signup: Иван"
    assert _signup(narrator, "anna@example.net", "ANNA, vrouw")[0] == "signup: Anna"
    # The narrator's own name is nobody's.
    what, text = _signup(narrator, "nep@example.net", "Verteller, man")
    assert what == "error: name-lookalike" and "Verteller" in text


def test_a_player_in_a_russian_game_is_told_in_russian(narrator: Narrator) -> None:
    with transaction(narrator.factory) as session:
        game = game_taking_signups("MF1", language="ru")
        game.ruleset, game.theme = "mafia", "express"
        session.add(game)
    narrator.receive(mail("anna@example.net", "MF1", "Анна, женщина"))
    before = narrator.last_outbox_id()
    outcome = narrator.receive(mail("anna2@example.net", "MF1", "Aнна, женщина"))
    assert outcome.what == "error: name-lookalike"
    (reply,) = narrator.outbox(after=before)
    assert "не отличить от другого имени" in reply.text


def test_decomposed_accents_are_one_name(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    assert _signup(narrator, "zoe@example.net", "Zoe\u0308, vrouw")[0] == "signup: Zo\u00eb"
    what, _ = _signup(narrator, "zoe2@example.net", "Zo\u00eb, vrouw")
    assert what == "error: name-taken"


def test_plain_text_vacation_replies_and_read_receipts_are_not_answered(
    narrator: Narrator,
) -> None:
    narrator.add_game("WW5")
    for subject in ("On vacation: Re: WW5", "Read: WW5", "Gelezen: WW5", "Op vakantie"):
        outcome = narrator.receive(mail("anna@example.net", subject, "I am away."))
        assert outcome.what == "ignored: auto-reply", (subject, outcome)
    assert narrator.outbox() == []


def test_config_addresses_with_line_breaks_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "narrator.toml"
    for table, key, value in [
        ("narrator", "address", '"verteller@example.org\\r\\nINFO forged line"'),
        ("narrator", "address", '"Verteller <verteller@example.org>"'),
        ("narrator", "address", '"verteller@example.org\\u2028x"'),
        ("admins", "emails", '["beheer@example.org\\nBcc: x@evil.test"]'),
    ]:
        path.write_text(f"[{table}]\n{key} = {value}\n")
        with pytest.raises(ConfigError, match=f"'{table}.{key}") as error:
            load_config(path, environ={})
        assert "\n" not in str(error.value) and "\r" not in str(error.value)
    path.write_text('[narrator]\naddress = "verteller+ww@mail.example.org"\n')
    assert load_config(path, environ={}).narrator.address == "verteller+ww@mail.example.org"


def test_a_reused_message_id_from_another_sender_is_not_dropped(narrator: Narrator) -> None:
    narrator.add_game("WW5")
    first = mail("anna@example.net", "WW5", "Anna, vrouw", message_id="<same@x.test>")
    assert narrator.receive(first).what == "signup: Anna"
    # The same mail again (an MTA's retry): a duplicate, stored once.
    assert narrator.sink.store_sync(first, source="inject").duplicate
    # Another sender, or another text, under the same Message-ID: a mail of its own.
    other = mail("bram@example.net", "WW5", "Bram, man", message_id="<same@x.test>")
    assert narrator.receive(other).what == "signup: Bram"
    again = mail("anna@example.net", "WW5", "Annie, vrouw", message_id="<same@x.test>")
    assert narrator.receive(again).what == "signup: Annie"
    assert narrator.sink.store_sync(other, source="inject").duplicate
    assert len(narrator.inbox_states()) == 3
