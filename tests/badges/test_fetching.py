"""Fetching is safe: http(s) only, private hosts refused unless allowed, limits, redirects."""

from __future__ import annotations

import pytest

from tests.badges.conftest import PathServer
from tracker.badges.rules import MAX_FETCH_BYTES
from tracker.badges.services.fetching import Gone, fetch_url
from tracker.badges.services.verified import BadgeRefused

ALLOWED = frozenset({"127.0.0.1"})


def refusal(url: str, allow=ALLOWED) -> BadgeRefused:
    with pytest.raises(BadgeRefused) as caught:
        fetch_url(url, allow)
    return caught.value


def test_an_allowed_host_is_fetched_and_nothing_of_ours_is_sent(served: PathServer) -> None:
    url = served.serve("/doc", b"hello")
    assert fetch_url(url, ALLOWED) == b"hello"
    (seen,) = served.seen
    assert "cookie" not in seen.headers and "authorization" not in seen.headers


def test_a_loopback_host_not_listed_is_refused_before_any_request(served: PathServer) -> None:
    served.serve("/doc", b"hello")
    port = served.base.rsplit(":", 1)[1]
    assert refusal(f"http://127.0.0.2:{port}/doc").kind == "unsafe"
    assert refusal(served.url("/doc"), allow=frozenset()).kind == "unsafe"
    assert served.seen == []


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/a",
        "http://192.168.1.1/a",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/a",
        "http://[::ffff:127.0.0.1]/a",
        "http://0.0.0.0/a",
        "file:///etc/passwd",
        "ftp://example.org/a",
        "http://user:secret@127.0.0.1/a",
        "http:///nohost",
    ],
)
def test_unsafe_urls_are_refused(url: str) -> None:
    assert refusal(url).kind == "unsafe"


def test_each_redirect_hop_is_checked(served: PathServer) -> None:
    port = served.base.rsplit(":", 1)[1]
    served.serve("/hop", status=302, headers={"Location": f"http://127.0.0.2:{port}/doc"})
    assert refusal(served.url("/hop")).kind == "unsafe"
    served.serve("/doc", b"arrived")
    served.serve("/ok", status=301, headers={"Location": "/doc", "Set-Cookie": "a=b"})
    assert fetch_url(served.url("/ok"), ALLOWED) == b"arrived"
    assert "cookie" not in served.seen[-1].headers


def test_a_redirect_loop_stops(served: PathServer) -> None:
    served.serve("/loop", status=302, headers={"Location": "/loop"})
    assert "redirects more than" in refusal(served.url("/loop")).reason


def test_a_body_over_the_limit_is_refused(served: PathServer) -> None:
    served.serve("/big", b"x" * (MAX_FETCH_BYTES + 1))
    assert "larger than" in refusal(served.url("/big")).reason
    served.serve("/fits", b"x" * MAX_FETCH_BYTES)
    assert len(fetch_url(served.url("/fits"), ALLOWED)) == MAX_FETCH_BYTES


def test_statuses(served: PathServer) -> None:
    served.serve("/gone", status=410)
    with pytest.raises(Gone):
        fetch_url(served.url("/gone"), ALLOWED)
    assert refusal(served.url("/missing")).kind == "unreachable"


def test_a_server_that_does_not_answer_in_time_is_unreachable() -> None:
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/slow"
        with pytest.raises(BadgeRefused) as caught:
            fetch_url(url, ALLOWED, deadline_seconds=0.5)
    assert caught.value.kind == "unreachable"
