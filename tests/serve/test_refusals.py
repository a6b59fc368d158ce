"""The worker's answer to a request its parser refuses: the limit, in the head's language."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from gunicorn.http.errors import InvalidHeaderName, LimitRequestHeaders, LimitRequestLine
from gunicorn.http.message import MAX_HEADERS

from tracker.server import HeaderLimits, head_locale, refusal

HEAD = b"GET /api/v1/me HTTP/1.1\r\nHost: t\r\n"


@pytest.mark.parametrize(
    ("head", "default", "locale"),
    [
        (HEAD + b"Accept-Language: es-ES,es;q=0.9,en;q=0.5\r\n", "en", "es"),
        (HEAD + b"accept-language:es\r\n", "en", "es"),
        (HEAD + b"Accept-Language: fr, en;q=0.5, es;q=0.4\r\n", "es", "en"),
        # Nothing the app speaks, or no header: the app's default.
        (HEAD + b"Accept-Language: fr\r\n", "es", "es"),
        (HEAD, "es", "es"),
        (HEAD, "en", "en"),
        (b"", "en", "en"),
    ],
)
def test_the_refusals_language_is_the_one_the_head_prefers(head: bytes, default: str, locale: str):
    assert head_locale(head + b"\r\n", default) == locale


def _refused(exc: Exception, locale: str) -> tuple[bytes, dict[str, object]]:
    answer = refusal(exc, locale, HeaderLimits(fields=100, field_size=8190))
    assert answer is not None
    head, _, body = answer.partition(b"\r\n\r\n")
    head += b"\r\n"
    assert b"\r\nContent-Type: application/json\r\n" in head
    assert f"\r\nContent-Length: {len(body)}\r\n".encode() in head
    return head.split(b"\r\n")[0], json.loads(body)


@pytest.mark.parametrize(
    ("exc", "status", "english", "spanish"),
    [
        (
            LimitRequestLine(5032, 4094),
            b"HTTP/1.1 414 URI Too Long",
            "the URL is longer than the server reads: at most 4,094 bytes for the method, URL"
            " and HTTP version together",
            "la URL supera la longitud que lee el servidor: el método, la URL y la versión de"
            " HTTP juntos pueden ocupar como máximo 4.094 bytes",
        ),
        (
            LimitRequestHeaders("limit request headers fields size"),
            b"HTTP/1.1 431 Request Header Fields Too Large",
            "the headers are more or larger than the server reads: at most 100 headers, each at"
            " most 8,190 bytes",
            "las cabeceras superan en número o tamaño lo que lee el servidor: como máximo 100"
            " cabeceras, de 8.190 bytes cada una como máximo",
        ),
        (
            InvalidHeaderName("Bad Name"),
            b"HTTP/1.1 400 Bad Request",
            "the request is not well-formed HTTP",
            "la solicitud no es HTTP bien formado",
        ),
    ],
    ids=["long URL", "large headers", "malformed header"],
)
def test_a_refusal_says_the_limit_in_the_requests_language(
    exc: Exception, status: bytes, english: str, spanish: str
):
    for locale, text in (("en", english), ("es", spanish)):
        line, body = _refused(exc, locale)
        assert line == status
        assert body == {"errors": {"request": text}}


def test_what_the_api_does_not_refuse_keeps_gunicorns_answer():
    assert refusal(ValueError("something else")) is None


def test_the_header_limits_are_the_parsers():
    assert HeaderLimits.of(
        SimpleNamespace(limit_request_fields=50, limit_request_field_size=4000)
    ) == (HeaderLimits(50, 4000))
    # 0 (or beyond gunicorn's ceiling) is gunicorn's most; a size of 0, its default.
    assert HeaderLimits.of(SimpleNamespace(limit_request_fields=0, limit_request_field_size=0)) == (
        HeaderLimits(MAX_HEADERS, 8190)
    )
