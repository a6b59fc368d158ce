"""The web's side of signing in: the half-signed-in state, its end, the trail of each try.

Between a right password and the second step (a code), a person is half signed
in: the session cookie holds who, since when and where they were going, and
Flask-Login knows nothing of it, so no page that needs a session opens. Every
way of signing in ends in `finish_sign_in`, which records the method.
"""

from __future__ import annotations

from typing import Any

from flask import request, session, url_for
from flask_login import login_user

from tracker.audit.accounts import record_account_event
from tracker.clock import utcnow
from tracker.extensions import db_session
from tracker.people.models import Engineer
from tracker.people.rules import PENDING_SIGN_IN_SECONDS
from tracker.people.services.totp import is_enrolled
from tracker.web.links import same_site_path

PENDING_KEY = "pending_totp"
# The secret of an app being set up, until its first code confirms it.
SETUP_KEY = "totp_setup_secret"


def address() -> str:
    """Return the address the request came from, as the trail and the limiters keep it."""
    return request.remote_addr or "unknown"


def _now_seconds() -> int:
    return int(utcnow().timestamp())


def finish_sign_in(engineer: Engineer, method: str, detail: dict[str, Any] | None = None) -> None:
    """Sign `engineer` in and record by which method: the last step of every way in."""
    session.pop(PENDING_KEY, None)
    login_user(engineer)
    record_account_event(
        db_session(),
        "sign_in",
        engineer_id=engineer.id,
        email=engineer.email,
        method=method,
        address=address(),
        detail=detail,
    )


def refused(engineer: Engineer | None, email: str, method: str, reason: str) -> None:
    """Record a refused sign-in; it is kept although the answer (4xx) rolls the request back."""
    record_account_event(
        db_session(),
        "sign_in_failed",
        engineer_id=engineer.id if engineer else None,
        email=engineer.email if engineer else email,
        method=method,
        address=address(),
        detail={"reason": reason},
    )
    db_session().commit()


def landing() -> str:
    """Return where a finished sign-in goes: the page first asked for, else the dashboard."""
    pending = session.get(PENDING_KEY)
    wanted = pending.get("next") if isinstance(pending, dict) else request.args.get("next")
    return same_site_path(wanted) or url_for("progress.dashboard")


def start_second_step(engineer: Engineer) -> str:
    """Half sign in `engineer` (right password); return the URL of the step they owe."""
    session[PENDING_KEY] = {
        "id": engineer.id,
        "epoch": engineer.session_epoch,
        "since": _now_seconds(),
        "next": same_site_path(request.args.get("next")),
    }
    return second_step_url()


def keep_next() -> None:
    """Remember the page a half-signed-in person asked for: the sign-in ends there."""
    pending = session.get(PENDING_KEY)
    wanted = same_site_path(request.args.get("next"))
    if isinstance(pending, dict) and wanted:
        session[PENDING_KEY] = {**pending, "next": wanted}


def pending_engineer() -> Engineer | None:
    """Return who gave the right password and owes the second step, if still in time."""
    pending = session.get(PENDING_KEY)
    if pending is None:
        return None
    try:
        engineer_id, epoch, since = (int(pending[key]) for key in ("id", "epoch", "since"))
    except (KeyError, TypeError, ValueError):
        engineer_id, epoch, since = 0, 0, 0
    engineer = db_session().get(Engineer, engineer_id) if engineer_id else None
    if (
        engineer is None
        or not engineer.active
        # A password change or a sign-out everywhere ends a half sign-in too.
        or engineer.session_epoch != epoch
        or not 0 <= _now_seconds() - since <= PENDING_SIGN_IN_SECONDS
    ):
        session.pop(PENDING_KEY, None)
        return None
    return engineer


def second_step_url() -> str:
    """Return the URL of the step a half-signed-in person owes (the sign-in page if none)."""
    engineer = pending_engineer()
    if engineer is None:
        return url_for("people.login")
    return url_for("people.totp" if is_enrolled(engineer) else "people.totp_setup")


def cancel() -> None:
    """Forget a half-finished sign-in and an app being set up."""
    session.pop(PENDING_KEY, None)
    session.pop(SETUP_KEY, None)
