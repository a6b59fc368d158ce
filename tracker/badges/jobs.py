"""Scheduled work of the badges: the re-check of imported badges, as a plain function.

The daily pass (tracker.reminders.jobs) runs it before the teams' readiness is
brought to the day, so a revocation found in the morning counts that day.
"""

from __future__ import annotations

import datetime as dt

from flask import Flask

from tracker.badges.models import ImportedBadge
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.recheck import Outcome, due_for_recheck, recheck_badge
from tracker.db import session_scope


def recheck_badges(app: Flask, today: dt.date) -> dict[Outcome, int]:
    """Verify every imported badge again with its issuer, each in a transaction of its own.

    One at a time, so no transaction is held open while an issuer answers; returns
    how many were verified, revoked, or had a problem.
    """
    factory = app.extensions["tracker.sessions"]
    fetch = make_fetch(app.config.get("BADGE_ALLOW_HOSTS", frozenset()))
    with session_scope(factory) as session:
        ids = due_for_recheck(session, today)
    outcomes: dict[Outcome, int] = {"verified": 0, "revoked": 0, "problem": 0}
    for badge_id in ids:
        with session_scope(factory) as session:
            badge = session.get(ImportedBadge, badge_id)
            if badge is not None:
                outcomes[recheck_badge(session, badge, today, fetch)] += 1
    return outcomes
