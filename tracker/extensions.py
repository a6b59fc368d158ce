"""Flask extensions, the sign-in rate limiter and the request-scoped database session."""

from __future__ import annotations

from flask import Flask, current_app, g
from flask_babel import Babel, lazy_gettext
from flask_login import LoginManager
from flask_wtf import CSRFProtect
from limits import parse, storage, strategies
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from tracker.config import SecretKeys
from tracker.config import secret_keys as configured_keys

babel = Babel()
csrf = CSRFProtect()
login_manager = LoginManager()
login_manager.login_view = "people.login"
login_manager.login_message = lazy_gettext("Sign in to see this page.")
# The flash keeps text, not the lazy string: translated in the request's language.
login_manager.localize_callback = str
login_manager.session_protection = "basic"


def session_factory() -> sessionmaker[Session]:
    """Return the application's session factory."""
    return current_app.extensions["tracker.sessions"]


def db_session() -> Session:
    """Return this request's (or CLI command's) session, opening it on first use."""
    if "db_session" not in g:
        g.db_session = session_factory()()
    return g.db_session


def secret_key() -> str:
    """Return the deployment's secret key (TRACKER_SECRET_KEY), for what it signs or encrypts."""
    return str(current_app.config["SECRET_KEY"])


def secret_keys() -> SecretKeys:
    """Return the secret key and its fallbacks (TRACKER_SECRET_KEY_FALLBACKS), to open with."""
    return configured_keys(current_app.config)


def single_statements() -> Engine | Connection | None:
    """Return where a unit of work that is one statement runs: it commits on its own.

    The application's autocommit engine (db.autocommit_engine), None on
    SQLite. A test whose sessions are bound to one connection, rolled back
    afterwards, gets that connection, in its transaction, instead.
    """
    extensions = current_app.extensions  # one lookup through the proxy
    bind = extensions["tracker.sessions"].kw["bind"]
    if isinstance(bind, Connection) and bind.dialect.name == "postgresql":
        return bind
    return extensions["tracker.autocommit_engine"]


def close_db_session(exc: BaseException | None = None) -> None:
    """Roll back anything uncommitted and close the session at the end of the context."""
    session = g.pop("db_session", None)
    if session is not None:
        if exc is not None or session.in_transaction():
            session.rollback()
        session.close()


class SignInLimiter:
    """Counts failed sign-ins per account and per address in a moving window.

    The storage is shared (Redis) when TRACKER_RATELIMIT_STORAGE_URL names one,
    so the limit holds across workers and hosts; memory otherwise.
    """

    def __init__(
        self, uri: str, per_account: str, per_address: str, namespace: str = "signin"
    ) -> None:
        self.limiter = strategies.MovingWindowRateLimiter(storage.storage_from_string(uri))
        self.per_account = parse(per_account)
        self.per_address = parse(per_address)
        # What is counted: passwords ("signin") and second-step codes ("totp") apart.
        self.namespace = namespace

    def _keys(self, email: str, address: str):
        return (
            (self.per_account, "account", email.strip().lower()),
            (self.per_address, "address", address),
        )

    def blocked(self, email: str, address: str) -> bool:
        """Return whether further attempts for this account or from this address are refused."""
        return any(
            not self.limiter.test(limit, self.namespace, kind, key)
            for limit, kind, key in self._keys(email, address)
        )

    def failed(self, email: str, address: str) -> None:
        """Count one failed attempt against the account and the address."""
        for limit, kind, key in self._keys(email, address):
            self.limiter.hit(limit, self.namespace, kind, key)


def init_limiter(app: Flask) -> None:
    # Second-step codes are limited as passwords are, and counted apart: a wrong
    # code does not use up the password's attempts, nor the other way round.
    for name, namespace in (("signin", "signin"), ("totp", "totp")):
        app.extensions[f"tracker.{name}_limiter"] = SignInLimiter(
            app.config["RATELIMIT_STORAGE_URL"],
            app.config["SIGNIN_LIMIT_PER_ACCOUNT"],
            app.config["SIGNIN_LIMIT_PER_ADDRESS"],
            namespace,
        )


def signin_limiter() -> SignInLimiter:
    return current_app.extensions["tracker.signin_limiter"]


def totp_limiter() -> SignInLimiter:
    """Return the limiter of second-step codes (authenticator and recovery codes)."""
    return current_app.extensions["tracker.totp_limiter"]
