"""Links back into the site: only a path of this site is followed; a page a delete emptied."""

from __future__ import annotations

import pytest
from flask import Flask

from tracker.web.links import here, same_site_path, with_page_at_most


@pytest.mark.parametrize(
    "path", ["/hours", "/hours?page=3", "/teams/7?gpus=512&on=2026-11-29", "/a%0Ab"]
)
def test_a_path_of_this_site_is_kept_as_it_is(path):
    assert same_site_path(path) == path


@pytest.mark.parametrize(
    "target",
    [
        None,
        "",
        "hours",
        "https://evil.example/",
        "http:/evil.example",
        "//evil.example/hours",
        "/\\evil.example",
        "/\t/evil.example",
        "/hours\r\nSet-Cookie: x=1",
        "/hours\x7f",
        "javascript:alert(1)",
    ],
)
def test_anything_else_is_refused(target):
    assert same_site_path(target) is None


def test_here_is_the_path_and_query_as_the_browser_asked(app: Flask):
    with app.test_request_context("/hours?page=3&sort=date"):
        assert here() == "/hours?page=3&sort=date"
    with app.test_request_context("/hours"):
        assert here() == "/hours"
    with app.test_request_context("/hours", base_url="http://localhost/tracker"):
        assert here() == "/tracker/hours"


@pytest.mark.parametrize(
    ("url", "pages", "held"),
    [
        ("/hours?page=3", 2, "/hours?page=2"),
        ("/hours?page=2", 2, "/hours?page=2"),
        ("/hours?page=99&kind=lab", 1, "/hours?page=1&kind=lab"),
        ("/hours?kind=lab&page=4", 3, "/hours?kind=lab&page=3"),
        ("/hours?page=abc", 1, "/hours?page=abc"),  # not a number: the list's first page
        ("/hours", 1, "/hours"),
    ],
)
def test_a_page_past_the_last_turns_to_the_last(url, pages, held):
    assert with_page_at_most(url, pages) == held
