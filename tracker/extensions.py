"""Flask extensions and the request-scoped database session."""

from __future__ import annotations

from flask import current_app, g
from flask_wtf import CSRFProtect
from sqlalchemy.orm import Session, sessionmaker

csrf = CSRFProtect()


def session_factory() -> sessionmaker[Session]:
    """Return the application's session factory."""
    return current_app.extensions["tracker.sessions"]


def db_session() -> Session:
    """Return this request's (or CLI command's) session, opening it on first use."""
    if "db_session" not in g:
        g.db_session = session_factory()()
    return g.db_session


def close_db_session(exc: BaseException | None = None) -> None:
    """Roll back anything uncommitted and close the session at the end of the context."""
    session = g.pop("db_session", None)
    if session is not None:
        if exc is not None or session.in_transaction():
            session.rollback()
        session.close()
