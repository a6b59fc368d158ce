"""When the serving worker deems a request whole, how it answers `Expect: 100-continue`, its app."""

from __future__ import annotations

import gc
from types import SimpleNamespace

import pytest

from tracker.server import HEAD_LIMIT, BufferingWorker, answer_expect_continue, request_complete

LIMIT = 1000
HEAD = b"POST /x HTTP/1.1\r\nHost: t\r\n"


@pytest.mark.parametrize(
    ("data", "whole"),
    [
        (b"GET / HTTP/1.1\r\nHost: t", False),
        (b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", True),
        (HEAD + b"Content-Length: 10\r\n\r\n12345", False),
        (HEAD + b"content-length:10\r\n\r\n1234567890", True),
        # Over the limit: to the app at once, which refuses it unread.
        (HEAD + b"Content-Length: 5000\r\n\r\n", True),
        # Malformed framing is the parser's to refuse.
        (HEAD + b"Content-Length: 1\r\nContent-Length: 2\r\n\r\n", True),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", False),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", True),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"x" * LIMIT, True),
        (b"GET /" + b"a" * HEAD_LIMIT, True),
    ],
)
def test_a_request_is_whole_once_its_head_and_body_are_in(data: bytes, whole: bool):
    assert request_complete(data, LIMIT) is whole


def test_expect_continue_is_answered_once_and_dropped_from_the_head():
    data = bytearray(HEAD + b"Expect: 100-continue\r\nContent-Length: 3\r\n\r\n")
    assert answer_expect_continue(data)
    assert bytes(data) == HEAD + b"Content-Length: 3\r\n\r\n"
    assert not answer_expect_continue(data)
    assert not answer_expect_continue(bytearray(HEAD))


def test_a_worker_freezes_the_app_it_loaded_out_of_the_collectors_passes():
    app = {"loaded": [object()]}
    worker = BufferingWorker.__new__(BufferingWorker)
    worker.app = SimpleNamespace(wsgi=lambda: app)
    assert gc.get_freeze_count() == 0
    try:
        worker.load_wsgi()
        assert worker.wsgi is app
        assert gc.get_freeze_count() > 0
        # Frozen objects are in no generation the collector walks.
        assert all(found is not app for found in gc.get_objects())
    finally:
        gc.unfreeze()
