"""The /api/v1 blueprint: bearer authentication before every view, refusals as JSON.

Authenticated only by `Authorization: Bearer TOKEN` (no cookies, so no CSRF).
Every refusal is `{"errors": {field: message}}`: 400 for bad input (nothing is
stored), 401 without a live token, 403 for another person's records without
the right, 404 for an unknown id or code in the URL, 413 for a body over
MAX_CONTENT_LENGTH, 415 for a body that is not JSON, 414 and 431 for a URL or
headers beyond what the server reads, and 503 while the database is unavailable.
A method a URL does not take is 405, with the methods it takes in `Allow`.

Every list answers a page, `{"items": [...], "next": CURSOR or null}`: ?limit=
rows (default 50, at most 500), and ?cursor= the `next` of the page before
(with the same filters and order; `limit` may change) for the page after it.
Following `next` answers each row once, in the list's order, even while rows
are added; a cursor is opaque and only good for the list that gave it: the
same path, filters and order, and the same caller.
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from tracker.api.auth import authenticate
from tracker.api.errors import ApiError
from tracker.errors import ValidationError
from tracker.extensions import csrf

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)
bp.before_request(authenticate)


@bp.errorhandler(ApiError)
def api_error(exc: ApiError) -> tuple[Response, int]:
    response = jsonify(exc.body().dump())
    response.headers.update(exc.headers)
    return response, exc.status


@bp.errorhandler(ValidationError)
def validation_error(exc: ValidationError) -> tuple[Response, int]:
    # Views rename the fields a service names; this catches any they do not.
    return api_error(ApiError(400, exc.errors))
