"""A part's Content-Type parameters are read once and then asked by name: each answer is what
``Message.get_param`` gives for that name (collapsed to lower-cased text), for any header."""

from __future__ import annotations

import email
import email.utils
from email.message import Message
from email.policy import compat32

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsing import mime, parse_mail
from parsing.mime import _param, _params

NAMES = ("charset", "format", "delsp", "report-type", "boundary")


def _by_get_param(part: Message, name: str) -> str:
    """The parameter as ``Message.get_param`` finds it, each time it is asked."""
    try:
        value = part.get_param(name)
    except (ValueError, TypeError, AttributeError, IndexError):
        return ""
    if isinstance(value, tuple):
        value = email.utils.collapse_rfc2231_value(value)
    return str(value or "").lower()


def _part(content_type: str | None) -> Message:
    header = f"Content-Type: {content_type}\r\n" if content_type is not None else ""
    return email.message_from_string(f"From: a@example.net\r\n{header}\r\nbody", policy=compat32)


HEADERS = [
    None,
    "",
    "text/plain",
    "text/plain; charset=utf-8",
    'text/plain; CharSet="UTF-8"; format=Flowed; DelSp=Yes',
    "text/plain; charset=utf-8; charset=latin-1",  # the first counts
    "text/plain; charset*=utf-8''%C3%A9t%C3%A9; format*0=flo; format*1=wed",
    "text/plain; charset*=''%22x%22",  # an RFC 2231 value with no charset
    "text/plain; charset*=nosuchcharset'en'abc",
    'multipart/report; report-type=delivery-status; boundary="b"',
    "text/plain; ; =; charset",
    'text/plain; charset="unterminated',
    'text/plain; charset=\\"q\\"',
]


@pytest.mark.parametrize("content_type", HEADERS)
def test_every_parameter_as_get_param_reads_it(content_type: str | None) -> None:
    part = _part(content_type)
    params = _params(part)
    for name in NAMES:
        assert _param(params, name) == _by_get_param(part, name), name


_SYNTAX = ["text/plain", ";", " ", "=", '"', "'", "*", "0", "1", "%41", "\\"]
_WORDS = ["charset", "CHARSET", "format", "flowed", "delsp", "yes", "utf-8", "report-type"]
_PIECES = st.sampled_from([*_SYNTAX, *_WORDS])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=20).map("".join))
def test_any_content_type(content_type: str) -> None:
    part = _part(content_type)
    params = _params(part)
    for name in NAMES:
        assert _param(params, name) == _by_get_param(part, name), name


def test_a_flowed_mail_read_once_is_unflowed() -> None:
    raw = (
        b"From: a@example.net\r\nSubject: WW5\r\n"
        b'Content-Type: text/plain; Format="Flowed"; delsp=yes; charset=iso-8859-1\r\n\r\n'
        b"Ik stem op Br \r\nam en Zo\xeb\r\n"
    )
    assert parse_mail(raw).full_text == "Ik stem op Bram en Zoë\n"


_PLAIN = [
    "text/plain",
    "Text/Plain",
    "text/plain; charset=utf-8",
    "text/plain;charset=UTF-8",
    'text/plain; charset="UTF-8"; format=flowed; DelSp=Yes',
    'text/plain; charset=""',
    "text/html; charset=iso-8859-1",
    "multipart/alternative; boundary=b1_abc.def-0",
    'multipart/report; report-type=delivery-status; boundary="x"',
]


@pytest.mark.parametrize("content_type", [*HEADERS, *_PLAIN])
def test_the_parameters_are_those_get_params_reads(content_type: str | None) -> None:
    part = _part(content_type)
    assert list(_params(part)) == list(part.get_params(unquote=False) or ())
    if content_type in _PLAIN:
        assert mime._PLAIN_CONTENT_TYPE.fullmatch(content_type)


_TOKENS = st.from_regex(r"[A-Za-z0-9._-]{1,8}", fullmatch=True)
_NEAR_PLAIN = st.lists(
    st.one_of(
        _TOKENS, st.sampled_from(["/", ";", "; ", ";  ", "=", '"', "*", "\\", " ", "<", ">"])
    ),
    max_size=16,
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(st.from_regex(mime._PLAIN_CONTENT_TYPE, fullmatch=True), _NEAR_PLAIN))
def test_any_parameters_are_those_get_params_reads(content_type: str) -> None:
    part = _part(content_type)
    assert list(_params(part)) == list(part.get_params(unquote=False) or ())
