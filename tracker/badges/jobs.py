"""Scheduled work of the badges: the re-check of imported badges, as a plain function.

The daily pass (tracker.reminders.jobs) runs it before the teams' readiness is
brought to the day, so a revocation found in the morning counts that day.
"""

from __future__ import annotations

import datetime as dt

from flask import Flask

from tracker.badges.models import ImportedBadge
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.recheck import (
    Kept,
    Outcome,
    ask_issuer,
    due_for_recheck,
    record_recheck,
)
from tracker.db import session_scope


def recheck_badges(app: Flask, today: dt.date) -> dict[Outcome, int]:
    """Verify every imported badge again with its issuer, one at a time; count the outcomes.

    No transaction is open while an issuer answers (seconds, perhaps): each badge
    is read in one, asked about outside any, and its answer recorded in
    another. One transaction around it all would hold SQLite's write lock
    (a unit of work's transaction is a writer's from BEGIN) while the issuer
    answers: every other writer would wait on it, and give up.
    """
    factory = app.extensions["tracker.sessions"]
    fetch = make_fetch(app.config.get("BADGE_ALLOW_HOSTS", frozenset()))
    with session_scope(factory) as session:
        ids = due_for_recheck(session, today)
    outcomes: dict[Outcome, int] = {"verified": 0, "revoked": 0, "problem": 0}
    for badge_id in ids:
        with session_scope(factory) as session:
            badge = session.get(ImportedBadge, badge_id)
            kept = None if badge is None else Kept.of(badge)
        if kept is None:
            continue
        refused = ask_issuer(kept, today, fetch)
        with session_scope(factory) as session:
            badge = session.get(ImportedBadge, badge_id)
            if badge is not None:
                outcomes[record_recheck(session, badge, refused, today)] += 1
    return outcomes
