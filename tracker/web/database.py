"""The request's database work: writers declared, committed at the end, an outage a 503."""

from __future__ import annotations

from typing import TypeVar

from flask import Flask, Request, Response, abort, g, jsonify, render_template, request
from flask import session as cookie_session
from sqlalchemy.exc import DBAPIError, OperationalError

from tracker.db import WRITE_INTENT, get_for_change
from tracker.extensions import db_session
from tracker.i18n import N_
from tracker.web.errors import wants_json
from tracker.web.language import localized
from tracker.web.security import API_PATH

R = TypeVar("R")

DATABASE_UNAVAILABLE = N_(
    "The database is unavailable or busy right now, so nothing was changed. Try again in a minute."
)


def declare_write_intent(current: Request) -> None:
    """Mark forms and API calls as writers (the API records each token's use)."""
    if current.method not in ("GET", "HEAD", "OPTIONS") or current.path.startswith(API_PATH):
        g.write_intent = WRITE_INTENT.set(True)


def record_or_404(model: type[R], ident: int) -> R:
    """Return the row of `model` with the id, or answer 404; held until a sent form commits."""
    # A form sent changes the row: the version its page drew is checked against
    # the row held, so no other save slips in between (db.get_for_change).
    session = db_session()
    found = (
        get_for_change(session, model, ident)
        if request.method == "POST"
        else session.get(model, ident)
    )
    if found is None:
        abort(404)
    return found


def end_write_intent() -> None:
    """Forget the request's write intent (at its teardown)."""
    token = g.pop("write_intent", None)
    if token is not None:
        WRITE_INTENT.reset(token)


def commit(app: Flask, response: Response) -> Response:
    """Commit what a request that succeeded did; return the answer (a 503 if that failed)."""
    session = g.get("db_session")
    # Services only flush: the request boundary commits what succeeded.
    if session is not None and response.status_code < 400:
        try:
            session.commit()
        except DBAPIError as exc:
            if not is_outage(exc):
                raise
            response = database_unavailable(app, exc)
    return response


def database_unavailable(app: Flask, exc: BaseException) -> Response:
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
    from flask_login import AnonymousUserMixin

    # The answer must not query the database: drawn for no one in particular, in the
    # visitor's language (the signed-in user may be the very query that failed).
    g._login_user = AnonymousUserMixin()
    if wants_json():
        response = jsonify({"errors": {"database": localized(DATABASE_UNAVAILABLE)}})
    else:
        response = Response(render_template("unavailable.html", message=DATABASE_UNAVAILABLE))
    response.status_code = 503
    response.headers["Retry-After"] = "60"
    return response


def is_outage(exc: BaseException) -> bool:
    """Return whether a database error means "unavailable or locked", not a bug."""
    return isinstance(exc, OperationalError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    )
