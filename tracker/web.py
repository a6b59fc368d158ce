"""Request boundary: commit, security headers, error pages."""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from flask import Flask, Request, Response, abort, g, jsonify, render_template, request
from flask import session as cookie_session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from jinja2 import pass_context
from sqlalchemy.exc import DBAPIError, OperationalError
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from tracker.db import MAX_ID, WRITE_INTENT
from tracker.i18n import (
    DEFAULT_CURRENCY,
    DEFAULT_LOCALE,
    N_,
    format_day,
    format_hours,
    format_money,
    format_month,
    format_number,
    format_points,
    in_locale,
    translate,
    translate_errors,
)

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


# (endpoint, label, access roles that see it); a group's items open from its
# name in the menu (a dropdown), so managers and admins get a short menu.
NAV_ITEMS = [
    ("progress.dashboard", _l("Dashboard"), ("engineer", "manager", "admin")),
    ("progress.hours", _l("Hours"), ("engineer", "manager", "admin")),
    ("progress.attempts", _l("Exams"), ("engineer", "manager", "admin")),
    ("progress.credentials", _l("Credentials"), ("engineer", "manager", "admin")),
    ("careers.mine", _l("Career"), ("engineer", "manager", "admin")),
    ("careers.bonuses", _l("Bonuses"), ("engineer", "manager", "admin")),
    ("readiness.teams", _l("Teams"), ("manager", "admin")),
    ("catalog.catalog", _l("Catalog"), ("engineer", "manager", "admin")),
]
NAV_GROUPS = [
    (
        _l("Manage"),
        [
            ("careers.promotions", _l("Promotions"), ("manager", "admin")),
            ("careers.apprenticeships", _l("Apprenticeships"), ("manager", "admin")),
            ("readiness.organisation", _l("Organisation"), ("admin",)),
        ],
    ),
    (
        _l("Admin"),
        [
            ("admin.people", _l("People"), ("admin",)),
            ("admin.teams", _l("Teams"), ("admin",)),
            ("admin.imports", _l("Import"), ("admin",)),
            ("admin.catalog", _l("Catalog"), ("admin",)),
            ("admin.outbox", _l("Outbox"), ("admin",)),
            ("admin.webhooks.page", _l("Webhooks"), ("admin",)),
            ("admin.audit.page", _l("Account trail"), ("admin",)),
            ("careers.bonus_amounts", _l("Bonus amounts"), ("admin",)),
        ],
    ),
]


# The error page's title and text for the statuses the tracker answers, in the
# page's language; Werkzeug's own English is the source text. A description given
# to abort() is shown as it is.
HTTP_ERRORS = {
    400: (
        _l("Bad Request"),
        _l("The browser (or proxy) sent a request that this server could not understand."),
    ),
    401: (
        _l("Unauthorized"),
        _l(
            "The server could not verify that you are authorized to access the URL requested."
            " You either supplied the wrong credentials (e.g. a bad password), or your browser"
            " doesn't understand how to supply the credentials required."
        ),
    ),
    403: (
        _l("Forbidden"),
        _l(
            "You don't have the permission to access the requested resource."
            " It is either read-protected or not readable by the server."
        ),
    ),
    404: (
        _l("Not Found"),
        _l(
            "The requested URL was not found on the server. If you entered the URL manually"
            " please check your spelling and try again."
        ),
    ),
    405: (_l("Method Not Allowed"), _l("The method is not allowed for the requested URL.")),
    413: (
        _l("Request Entity Too Large"),
        _l("The data value transmitted exceeds the capacity limit."),
    ),
    429: (
        _l("Too Many Requests"),
        _l("This user has exceeded an allotted request count. Try again later."),
    ),
    500: (
        _l("Internal Server Error"),
        _l(
            "The server encountered an internal error and was unable to complete your request."
            " Either the server is overloaded or there is an error in the application."
        ),
    ),
    503: (
        _l("Service Unavailable"),
        _l(
            "The server is temporarily unable to service your request due to maintenance"
            " downtime or capacity problems. Please try again later."
        ),
    ),
}


def error_name(exc: HTTPException) -> object:
    """Return the status's name in the page's language."""
    known = HTTP_ERRORS.get(exc.code or 0)
    return known[0] if known else exc.name


def error_description(exc: HTTPException) -> object:
    """Return what went wrong: the status's own text translated, or what abort() said."""
    known = HTTP_ERRORS.get(exc.code or 0)
    if known and exc.description == type(exc).description:
        return known[1]
    return exc.description


SECURITY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
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


# The token-only JSON API; /api/docs beside it is a page like the others (signed in or not).
API_PATH = "/api/v1/"


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


def current_request() -> Request:
    """Return this request itself, for code that reads several of its attributes.

    Each attribute read through `flask.request` goes through its proxy
    (a context lookup, and a failed attribute lookup first): on the API's
    hot path the request is looked up once.
    """
    current: Request = request._get_current_object()  # type: ignore[attr-defined]
    return current


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


def refuse_nul_characters(current: Request) -> None:
    """Answer 400 to a path, query or form holding NUL: no text column can store it."""
    # A path that matches no route names nothing (404), NUL or not.
    if current.url_rule is not None and "\x00" in current.path:
        abort(400, "The request holds a NUL character; text must not contain one.")
    # Only a form body fills request.form: a JSON body is not parsed for it.
    form = current.mimetype in FORM_MIMETYPES
    if not form and not current.query_string:
        return
    sources = (current.args, current.form) if form else (current.args,)
    for values in sources:
        if any("\x00" in value for _, items in values.lists() for value in items):
            abort(400, "The request holds a NUL character; text must not contain one.")


def declare_write_intent(current: Request) -> None:
    """Mark forms and API calls as writers (the API records each token's use)."""
    if current.method not in ("GET", "HEAD", "OPTIONS") or current.path.startswith(API_PATH):
        g.write_intent = WRITE_INTENT.set(True)


def _wants_json() -> bool:
    return request.path.startswith("/api/")


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


FORM_MIMETYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


DATABASE_UNAVAILABLE = N_(
    "The database is unavailable or busy right now, so nothing was changed. Try again in a minute."
)


def _database_unavailable(app: Flask, exc: BaseException) -> Response:
    """Roll back this request's work and answer 503 without touching the database again."""
    app.logger.warning("database unavailable: %s", exc)
    session = g.pop("db_session", None)
    if session is not None:
        try:
            session.rollback()
        except DBAPIError:
            session.invalidate()
        finally:
            session.close()
    # A message the view flashed ("Logged 2 h") would tell a lie on the next page.
    cookie_session.pop("_flashes", None)
    if _wants_json():
        response = jsonify({"errors": {"database": DATABASE_UNAVAILABLE}})
    else:
        from flask_login import AnonymousUserMixin

        # The page must not query the database: draw it for no one in particular
        # (the signed-in user may be the very query that failed).
        g._login_user = AnonymousUserMixin()
        response = Response(render_template("unavailable.html", message=DATABASE_UNAVAILABLE))
    response.status_code = 503
    response.headers["Retry-After"] = "60"
    return response


def _is_outage(exc: BaseException) -> bool:
    """Return whether a database error means "unavailable or locked", not a bug."""
    return isinstance(exc, OperationalError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    )


def csv_download(rows: Iterable[Iterable[object]], filename: str) -> Response:
    """Answer `rows` as a CSV file to save as `filename`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([_spreadsheet_safe(value) for value in row])
    return Response(
        buffer.getvalue(),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _spreadsheet_safe(value: object) -> object:
    """Quote text a spreadsheet would run as a formula (= + - @, or a tab or return first)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def current_locale() -> str:
    """Return the language this request (or forced block) is drawn in: "en", "es"."""
    return str(get_locale() or DEFAULT_LOCALE)


def localized(text: str) -> str:
    """Return a domain message in the request's language (any other text as it is)."""
    return translate(text, current_locale())


def lazy_localized(text: str) -> LazyString:
    """Return a domain message shown in the language of the request that draws it (a form's)."""
    return LazyString(localized, text)


def localized_errors(errors: Mapping[str, str]) -> dict[str, str]:
    """Return a field → message map in the request's language."""
    return translate_errors(errors, current_locale())


# The filters of numbers, amounts and dates: each in the page's locale.
def hours_filter(value: Decimal | int | float) -> str:
    """Show hours without trailing zeros: 8, 1.5, 1,234.5 (1.234,5 in Spanish)."""
    return format_hours(value, current_locale())


def number_filter(value: Decimal | int | float) -> str:
    """Show a number grouped as the locale does."""
    return format_number(value, current_locale())


def percent_filter(points: Decimal | int | float) -> str:
    """Show percentage points (87 → 87% / 87 %)."""
    return format_points(points, current_locale())


def money_filter(amount: Decimal | int | float, currency: str = DEFAULT_CURRENCY) -> str:
    """Show an amount of money in its currency ($1,234 / 1.234 US$)."""
    return format_money(amount, current_locale(), currency)


def day_filter(day: dt.date) -> str:
    """Show a date as the locale writes it (Dec 1, 2026 / 1 dic 2026)."""
    return format_day(day, current_locale())


def month_filter(day: dt.date, short: bool = False) -> str:
    """Show a month and year (Dec 2026 / dic 2026), or the month alone with short=True."""
    return format_month(day, current_locale(), short=short)


def named(entry: object, field: str | None = None) -> str:
    """Show a catalog entry's name (or `field`) in the page's language, else as written."""
    # `{{ level|named }}`, `{{ strategy|named("description") }}`; a vendor's title
    # has no translation and shows as the vendor wrote it.
    return in_locale(entry, current_locale(), field)


def at_most(limit: int) -> str:
    """Return a regular expression of the decimal numbers 1 to `limit`, without leading zeros."""
    digits = str(limit)
    width = len(digits)
    # Every number with fewer digits, then those of as many digits, one branch per digit
    # of the limit that a smaller digit may replace (the digits after it free).
    branches = [rf"[1-9]\d{{0,{width - 2}}}"] if width > 1 else []
    for i, digit in enumerate(digits):
        low, high = (1 if i == 0 else 0), int(digit) - 1
        if high < low:
            continue
        free = width - i - 1
        choice = f"[{low}-{high}]" if high > low else str(low)
        branches.append(digits[:i] + choice + (rf"\d{{{free}}}" if free else ""))
    branches.append(digits)
    return "(?:" + "|".join(branches) + ")"


class IdConverter(IntegerConverter):
    """`<int:...>` in a URL: a record id, 1 to what an INTEGER column holds.

    A larger number names nothing: the route does not match (404) instead of
    the database refusing the query (500). The bound is in the pattern, not
    only in to_python: a path whose pattern matches but whose value fails makes
    Werkzeug answer 405 when another method's rule shares that pattern.
    """

    regex = at_most(MAX_ID)

    def __init__(self, map, fixed_digits=0, min=1, max=MAX_ID, signed=False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def per_request(template_filter: Callable[..., str]) -> Callable[..., str]:
    """Return a filter Jinja runs at each rendering, never once when it compiles a template.

    Jinja folds a filter of a constant (`{{ 100|percent }}`) into the compiled
    template, in the language of whichever request compiled it first; a filter
    that takes the context is never folded.
    """

    @pass_context
    def unfolded(_context: Any, *args: Any, **kwargs: Any) -> str:
        return template_filter(*args, **kwargs)

    return unfolded


def init_app(app: Flask) -> None:
    """Install the request-boundary hooks and template filters on the app."""
    for name, template_filter in (
        ("hours", hours_filter),
        ("number", number_filter),
        ("percent", percent_filter),
        ("money", money_filter),
        ("day", day_filter),
        ("month", month_filter),
        ("named", named),
        ("tr", localized),
    ):
        app.add_template_filter(per_request(template_filter), name)
    app.add_template_global(error_name)
    app.add_template_global(error_description)
    # Before any blueprint adds its rules, which read the converters.
    app.url_map.converters["int"] = IdConverter
    app.session_interface = CookieSessionOutsideApi()
    app.wsgi_app = DrainRequestBody(app.wsgi_app)  # type: ignore[method-assign]

    @app.context_processor
    def navigation():
        # Features add their pages here; the menu shows those that exist.
        return {
            "nav_items": NAV_ITEMS,
            "nav_groups": NAV_GROUPS,
            "url_map_endpoints": app.view_functions,
            # <html lang>: the language the page is drawn in.
            "page_locale": str(get_locale()),
        }

    @app.before_request
    def prepare_request() -> None:
        # One hook, not two: every hook costs each request a little.
        current = current_request()
        refuse_oversized_body(current)
        refuse_nul_characters(current)
        declare_write_intent(current)

    @app.teardown_request
    def end_write_intent(exc: BaseException | None = None) -> None:
        token = g.pop("write_intent", None)
        if token is not None:
            WRITE_INTENT.reset(token)

    @app.after_request
    def commit_and_harden(response: Response) -> Response:
        session = g.get("db_session")
        # Services only flush: the request boundary commits what succeeded.
        if session is not None and response.status_code < 400:
            try:
                session.commit()
            except DBAPIError as exc:
                if not _is_outage(exc):
                    raise
                response = _database_unavailable(app, exc)
        # Only the headers a view did not set itself; one pass over the headers.
        present = {name.lower() for name in response.headers.keys()}  # noqa: SIM118
        response.headers.extend(
            [(name, value) for name, value in security_headers(app) if name.lower() not in present]
        )
        if app.config.get("SESSION_COOKIE_SECURE") and "strict-transport-security" not in present:
            response.headers.add("Strict-Transport-Security", "max-age=31536000")
        private_caching(response, current_request())
        return response

    @app.errorhandler(DBAPIError)
    def database_error(exc: DBAPIError):
        # Unavailable, locked or disconnected: 503 with a clear message, the
        # request's work rolled back. Any other database error is a bug (500).
        if not _is_outage(exc):
            raise exc
        return _database_unavailable(app, exc)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if _wants_json():
            response = jsonify({"errors": {"request": exc.description}})
        else:
            response = app.make_response(render_template("error.html", error=exc))
        # What the exception says besides its page: a 405's Allow, a 401's challenge.
        response.headers.extend(
            (name, value) for name, value in exc.get_headers() if name.lower() != "content-type"
        )
        response.status_code = exc.code or 500
        return response


def role_required(*roles: str):
    """Require a signed-in user with one of `roles` (403 otherwise)."""
    from functools import wraps

    from flask import abort
    from flask_login import current_user, login_required

    def decorator(view):
        @wraps(view)
        @login_required
        def wrapped(*args, **kwargs):
            if current_user.access_role not in roles:
                abort(403)
            return view(*args, **kwargs)

        return wrapped

    return decorator
