"""Request boundary: commit, security headers, error pages."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from flask import Flask, Response, g, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from tracker.db import WRITE_INTENT

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


# (endpoint, label, access roles that see it)
NAV_ITEMS = [
    ("progress.dashboard", "Dashboard", ("engineer", "manager", "admin")),
    ("progress.hours", "Hours", ("engineer", "manager", "admin")),
    ("progress.attempts", "Exams", ("engineer", "manager", "admin")),
    ("progress.credentials", "Credentials", ("engineer", "manager", "admin")),
    ("readiness.teams", "Teams", ("manager", "admin")),
    ("readiness.organisation", "Organisation", ("admin",)),
    ("admin.people", "People", ("admin",)),
    ("admin.teams", "Admin teams", ("admin",)),
    ("admin.imports", "Import", ("admin",)),
    ("admin.catalog", "Admin catalog", ("admin",)),
    ("admin.outbox", "Outbox", ("admin",)),
    ("catalog.catalog", "Catalog", ("engineer", "manager", "admin")),
]


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def format_hours(value: Decimal | int | float) -> str:
    """Show hours without trailing zeros: 8, 1.5, 0.25."""
    return f"{Decimal(value).normalize():f}"


def init_app(app: Flask) -> None:
    """Install the request-boundary hooks and template filters on the app."""
    app.add_template_filter(format_hours, "hours")

    @app.context_processor
    def navigation():
        # Features add their pages here; the menu shows those that exist.
        return {"nav_items": NAV_ITEMS, "url_map_endpoints": app.view_functions}

    @app.before_request
    def declare_write_intent() -> None:
        # Forms and API calls write (the API records each token's use).
        if request.method not in ("GET", "HEAD", "OPTIONS") or request.path.startswith("/api/"):
            g.write_intent = WRITE_INTENT.set(True)

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
            session.commit()
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if app.config.get("SESSION_COOKIE_SECURE"):
            response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if _wants_json():
            return jsonify({"errors": {"request": exc.description}}), exc.code
        return render_template("error.html", error=exc), exc.code


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


def today() -> dt.date:
    """Return the request's "today": app.config["TODAY"] when pinned (tests), else the clock."""
    from flask import current_app

    return current_app.config.get("TODAY") or dt.date.today()
