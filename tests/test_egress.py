"""The egress opener: http(s) only, to the addresses checked."""

from __future__ import annotations

import urllib.error

import pytest

from tracker.egress import PrivateHost, opener


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.org/x", "data:text/plain,hello"]
)
def test_no_url_but_http_or_https_is_opened(url: str) -> None:
    with pytest.raises(urllib.error.URLError, match="unknown url type"):
        opener(frozenset()).open(url, timeout=1)


def test_a_private_host_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(urllib.error.URLError) as refused:
        opener(frozenset()).open("http://127.0.0.1:9/", timeout=1)
    assert isinstance(refused.value.reason, PrivateHost)
