"""Who is calling: the bearer token of each request, and the caller's account."""

from __future__ import annotations

from contextlib import AbstractContextManager

from flask import g, request
from werkzeug.exceptions import HTTPException

from tracker.api.errors import ApiError, invalid_token, missing_token, read_only_token
from tracker.api.tokens import caller_for_token
from tracker.clock import today, utcnow
from tracker.extensions import db_session
from tracker.people.models import Engineer
from tracker.web.current import current_request

# The endpoint that looks its token up itself, in the statement that writes the entry.
DEFERRED = "api.log_hours"
MAX_TOKEN_LENGTH = 200
# What a read token may do; every other method writes (POST, PUT, PATCH, DELETE).
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def authenticate() -> None:
    """Identify the caller by their bearer token, or answer 401 (403: a read token writing).

    POST /hours looks the token up itself, in the statement that writes the
    entry (tokens.log_own_hours); until then the secret waits in g.api_secret.
    """
    current = current_request()
    scheme, _, secret = current.headers.get("Authorization", "").strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise missing_token()
    if len(secret) > MAX_TOKEN_LENGTH:
        raise invalid_token()
    if current.endpoint == DEFERRED and current.method == "POST":
        g.api_secret = secret
        return
    _authenticate(secret)


def _authenticate(secret: str) -> None:
    found = caller_for_token(db_session(), secret, utcnow(), today())
    if found is None:
        raise invalid_token()
    if request.method not in READ_METHODS and not found.may_write:
        raise read_only_token()
    g.api_caller = found


def authenticate_deferred() -> None:
    """Look up the token authenticate() left for later, if it has not been yet."""
    secret = g.pop("api_secret", None)
    if secret is not None:
        _authenticate(secret)


class _TokenFirst:
    """The block of token_first(); a class, not a generator: the hot path enters it twice."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: object
    ) -> None:
        if isinstance(exc, ApiError | HTTPException):
            authenticate_deferred()


_TOKEN_FIRST = _TokenFirst()


def token_first() -> AbstractContextManager[None]:
    """Answer a token that is not live with 401 (a read token with 403) before other refusals."""
    return _TOKEN_FIRST


def caller() -> Engineer:
    """The caller's account, loaded on first use (authentication reads only a few columns)."""
    engineer: Engineer | None = g.get("api_user")
    if engineer is None:
        engineer = db_session().get(Engineer, g.api_caller.id)
        if engineer is None:  # deleted since its token was checked
            raise invalid_token()
        g.api_user = engineer
    return engineer
