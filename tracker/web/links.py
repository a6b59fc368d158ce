"""Links back into the site: a path a request names, when it is this site's; this page's own."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from flask import request


def same_site_path(target: str | None) -> str | None:
    """Return `target` when it is a path on this site, else None (no open redirects).

    A path and its query only: no scheme, no host, nothing a browser reads as
    another host ("//host", "/\\host"), no control character (a redirect's
    header cannot carry a line break).
    """
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in target):
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else None


def here() -> str:
    """Return this request's path and query: the way back to the page being drawn."""
    path = request.script_root + request.path
    query = request.query_string.decode()
    return f"{path}?{query}" if query else path


def _number(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def with_page_at_most(url: str, pages: int) -> str:
    """Return `url` with a ?page= past `pages` turned to the last page, as the list now stands."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    held = [
        (name, str(pages))
        if name == "page" and (number := _number(value)) is not None and number > pages
        else (name, value)
        for name, value in query
    ]
    if held == query:
        return url
    return urlunsplit(parts._replace(query=urlencode(held)))
