"""What every request and answer is held to: security headers, no caching of a person's
answers, body limits, no NUL characters, no cookie session for the JSON API."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, Request, Response, abort, g
from flask import session as cookie_session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface

from tracker.i18n import N_
from tracker.web.current import current_request

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)

SECURITY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
)

# The token-only JSON API; /api/docs beside it is a page like the others (signed in or not).
API_PATH = "/api/v1/"

# A JSON API answer is data, never a document: should a browser render one, it
# may load nothing and be framed by nothing, and it sends no referrer.
API_CSP = "default-src 'none'; frame-ancestors 'none'"
API_SECURITY_HEADERS = (
    ("Content-Security-Policy", API_CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
)


def security_headers(app: Flask) -> tuple[tuple[str, str], ...]:
    """Return the headers every answer gets, built once per app.

    FORM_ACTION_ORIGINS (set by the features that need it: single sign-on's provider)
    joins 'self' in form-action: a browser holds a form's redirects to it too, and
    signing out goes on to the provider's own sign-out page.
    """
    built = app.extensions.get("tracker.security_headers")
    if built is None:
        origins = " ".join(app.config.get("FORM_ACTION_ORIGINS") or ())
        csp = CSP.replace("form-action 'self'", f"form-action 'self' {origins}") if origins else CSP
        built = tuple(
            (name, csp if name == "Content-Security-Policy" else value)
            for name, value in SECURITY_HEADERS
        )
        app.extensions["tracker.security_headers"] = built
    return built


def harden(app: Flask, response: Response) -> None:
    """Give an answer the security headers a view did not set itself, HSTS and its caching.

    Pages get the page policy (security_headers); JSON API answers the data one.
    """
    # One pass over the headers.
    present = {name.lower() for name in response.headers.keys()}  # noqa: SIM118
    current = current_request()
    headers = API_SECURITY_HEADERS if current.path.startswith(API_PATH) else security_headers(app)
    response.headers.extend(
        [(name, value) for name, value in headers if name.lower() not in present]
    )
    if app.config.get("SESSION_COOKIE_SECURE") and "strict-transport-security" not in present:
        response.headers.add("Strict-Transport-Security", "max-age=31536000")
    private_caching(response, current)


# What a browser, proxy or back button may keep of a page for someone signed in
# (or an API answer): nothing. Pragma is left out: it is a request header, and
# no cache that honours only the HTTP/1.0 one is still met.
PRIVATE_CACHING = "no-store"

# How much of a request body the app left unread (a refused one) is read and
# dropped before the connection closes, and for how long: closing on unread
# bytes resets the connection, and a client that sends its whole body before
# reading the answer (urllib, curl, most libraries) then sees a reset, not 413.
DRAIN_LIMIT = 32 * 1024 * 1024
DRAIN_SECONDS = 15.0


def refuse_oversized_body(current: Request) -> None:
    """Answer 413 to a body declared over MAX_CONTENT_LENGTH, before anything else reads it."""
    limit = current.max_content_length
    length = current.content_length
    if limit is not None and length is not None and length > limit:
        abort(413)


def _drain(environ: dict[str, Any]) -> None:
    """Read and drop what is left of the request body, up to DRAIN_LIMIT and DRAIN_SECONDS."""
    stream = environ.get("wsgi.input")
    if stream is None:
        return
    deadline = time.monotonic() + DRAIN_SECONDS
    left = DRAIN_LIMIT
    try:
        while left > 0 and time.monotonic() < deadline:
            chunk = stream.read(min(left, 64 * 1024))
            if not chunk:
                return
            left -= len(chunk)
    except (OSError, ValueError):
        pass
    # The rest stays unread: end reading so a kept-alive connection closes
    # instead of the next request parsing it.
    sock = environ.get("gunicorn.socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RD)


class DrainRequestBody:
    """WSGI middleware: once the answer is sent, read what the app left of the request body."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]):
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if not chunked and environ.get("CONTENT_LENGTH", "0") in ("", "0"):
            # No body: the answer goes out as it is (a file keeps its sendfile).
            return self.app(environ, start_response)
        from werkzeug.wsgi import ClosingIterator

        return ClosingIterator(self.app(environ, start_response), lambda: _drain(environ))


def private_caching(response: Response, current: Request) -> None:
    """Forbid caching an answer meant for one person: a signed-in page, an export, the API."""
    if current.endpoint == "static":
        return
    if current.path.startswith("/api/") or _signed_in():
        response.headers["Cache-Control"] = PRIVATE_CACHING


def _signed_in() -> bool:
    """Return whether the request has a signed-in user, without loading one."""
    user = g.get("_login_user")
    if user is not None:
        return bool(user.is_authenticated)
    return "_user_id" in cookie_session


FORM_MIMETYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
NUL_IN_REQUEST = N_("The request holds a NUL character; text must not contain one.")


def refuse_nul_characters(current: Request) -> None:
    """Answer 400 to a path, query or form holding NUL: no text column can store it."""
    # A path that matches no route names nothing (404), NUL or not.
    if current.url_rule is not None and "\x00" in current.path:
        abort(400, NUL_IN_REQUEST)
    # Only a form body fills request.form: a JSON body is not parsed for it.
    form = current.mimetype in FORM_MIMETYPES
    if not form and not current.query_string:
        return
    sources = (current.args, current.form) if form else (current.args,)
    for values in sources:
        if any("\x00" in value for _, items in values.lists() for value in items):
            abort(400, NUL_IN_REQUEST)


UNSTORABLE_TEXT = N_("text must not contain NUL characters or unpaired surrogates")


def storable(value: Any) -> bool:
    """Return whether every string in `value` can be stored: UTF-8 encodable, without NUL.

    JSON may escape a lone surrogate ("\\ud800") or NUL ("\\u0000"); neither can be
    stored as text (SQLite cannot encode the one, PostgreSQL refuses the other).
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return False
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


class CookieSessionOutsideApi(SecureCookieSessionInterface):
    """The signed session cookie for the pages; none for the JSON API.

    The API authenticates by bearer token only (no cookies, so no CSRF): its
    requests get an empty session without reading the cookie, and its answers
    never set one. That also spares each API call the cookie's signing setup.
    """

    def open_session(self, app: Flask, request) -> SecureCookieSession | None:
        if request.path.startswith(API_PATH):
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app: Flask, session, response: Response) -> None:
        if current_request().path.startswith(API_PATH):
            return
        super().save_session(app, session, response)
