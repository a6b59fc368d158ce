"""Error answers: the error page in the page's language, or the API's JSON errors."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from urllib.parse import urlsplit

from flask import (
    Flask,
    Response,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import lazy_gettext as _l
from flask_login import login_url
from flask_wtf import FlaskForm
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import BadHost, Forbidden, HTTPException, MethodNotAllowed
from wtforms import PasswordField
from wtforms.fields.core import UnboundField

from tracker.i18n import N_, msg
from tracker.web.language import localized

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


# The API's words for the statuses Werkzeug answers before a view runs; its other
# statuses say what the error page says.
API_NOT_FOUND = N_("no such URL in the API")
API_TOO_LARGE = N_("the body is too large")


def error_name(exc: HTTPException) -> object:
    """Return the status's name in the page's language."""
    known = HTTP_ERRORS.get(exc.code or 0)
    return known[0] if known else exc.name


def error_description(exc: HTTPException) -> object:
    """Return what went wrong: the status's own text translated, or what abort() said."""
    known = HTTP_ERRORS.get(exc.code or 0)
    if known and exc.description == type(exc).description:
        return known[1]
    return localized(exc.description) if isinstance(exc.description, str) else exc.description


def api_error_message(exc: HTTPException) -> str:
    """Return an HTTP error's message for the API, in the request's language."""
    if exc.description is not None and exc.description != type(exc).description:
        # What abort() said, translated when it is marked.
        return str(error_description(exc))
    if exc.code == 404:
        return localized(API_NOT_FOUND)
    if exc.code == 413:
        return localized(API_TOO_LARGE)
    if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
        allowed = ", ".join(sorted(exc.valid_methods))
        return localized(
            msg(
                "%(method)s is not allowed here; allowed: %(allowed)s",
                method=request.method,
                allowed=allowed,
            )
        )
    return str(error_description(exc))


# What a browser is told never to remember: a field drawn so is never shown back.
SECRET_AUTOCOMPLETE = frozenset({"current-password", "new-password", "one-time-code"})


def _subclasses(cls: type) -> Iterator[type]:
    sub: type
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


@cache
def secret_field_names() -> frozenset[str]:
    """Return the names of the fields the app's forms draw as passwords or one-time codes."""
    names = {"csrf_token"}
    for form in _subclasses(FlaskForm):
        for name in dir(form):
            field = getattr(form, name, None)
            if not isinstance(field, UnboundField):
                continue
            shown = field.kwargs.get("render_kw") or {}
            if (
                issubclass(field.field_class, PasswordField)
                or shown.get("autocomplete") in SECRET_AUTOCOMPLETE
            ):
                names.add(name)
    return frozenset(names)


def sent_fields() -> list[tuple[str, str]]:
    """Return what a refused form held, as (field, value), secrets and blanks left out."""
    secret = secret_field_names()
    return [
        (name, value)
        for name, value in request.form.items(multi=True)
        # A form drawn with a prefix names its fields "prefix-name".
        if value.strip() and name.rsplit("-", 1)[-1] not in secret
    ]


def form_page() -> str:
    """Return the page a refused form came from: the referring page of this site, else its URL."""
    referrer = urlsplit(request.referrer or "")
    if referrer.scheme in ("http", "https") and referrer.netloc == request.host:
        return referrer.path + (f"?{referrer.query}" if referrer.query else "")
    rule = request.url_rule
    if rule is not None and "GET" in (rule.methods or ()):
        return request.path
    return url_for("catalog.home")


SIGNED_IN_KEY = "_user_id"


class SignedOut(Forbidden):
    """A form sent from a page whose sign-in has ended since it was drawn."""


def sign_in_first(login_view: str, login_message: str) -> ResponseReturnValue:
    """Send a visitor who is not signed in to sign in; hand a sent form's contents back.

    The sign-in a page was drawn for ends when its person signs out on another
    device (every session ends), or changes the password: a form sent from the
    page then would be lost on the way through the sign-in page.
    """
    # Flask-Login keeps the ended sign-in's person in the session: a visitor who
    # never signed in is sent to sign in as for a page.
    if request.method == "POST" and SIGNED_IN_KEY in session and sent_fields():
        raise SignedOut()
    flash(login_message, "message")
    return redirect(login_url(login_view, next_url=request.url))


def wants_json() -> bool:
    """Return whether this request's errors are answered in JSON: anything under /api/."""
    return request.path.startswith("/api/")


def http_error(app: Flask, exc: HTTPException) -> Response:
    """Answer an HTTP error: the error page, or `{"errors": {"request": ...}}` for the API."""
    if wants_json():
        response = jsonify({"errors": {"request": api_error_message(exc)}})
    elif isinstance(exc, CSRFError | SignedOut):
        # A form drawn for another sign-in, or one that has ended: say so plainly, and
        # hand back what it held.
        back = form_page()
        if isinstance(exc, SignedOut):
            back = url_for("people.login", next=back)
        response = app.make_response(
            render_template(
                "form_not_sent.html",
                error=exc,
                signed_out=isinstance(exc, SignedOut),
                sent=sent_fields(),
                back=back,
            )
        )
    elif isinstance(exc, BadHost):
        # A Host header no URL can be built for (a label over 63 characters...): the page's
        # links could not be drawn, so the answer is its status alone.
        response = app.response_class(f"{exc.code} {exc.name}\n", mimetype="text/plain")
    else:
        response = app.make_response(render_template("error.html", error=exc))
    # What the exception says besides its page: a 405's Allow, a 401's challenge.
    response.headers.extend(
        (name, value) for name, value in exc.get_headers() if name.lower() != "content-type"
    )
    response.status_code = exc.code or 500
    return response
