"""The one scheduler of a deployment: APScheduler 3 behind a database-wide lock.

Exactly one process runs the daily reminder pass: `tracker scheduler`, or
`tracker serve` when asked to run it in-process. The lock is a PostgreSQL
advisory lock held on a dedicated connection, or an exclusive file lock
beside a SQLite database, so a second scheduler (another host, another
worker) waits as a standby instead of running the pass twice.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import logging
import os
import threading
import zoneinfo
from pathlib import Path
from typing import IO

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from flask import Flask
from sqlalchemy import text
from sqlalchemy.engine import Connection

from tracker.clock import today
from tracker.reminders import jobs

log = logging.getLogger(__name__)

ADVISORY_KEY = 0x7472616B  # "trak"
SENDER_EVERY = dt.timedelta(minutes=5)
# pg_try_advisory_lock(bigint) shows in pg_locks as the key's high half (classid)
# and low half (objid), objsubid 1.
_ADVISORY_HELD = text(
    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid = 0 AND objid = :key AND objsubid = 1)"
)
# A missed daily run (the host was down at 07:00) still runs when it comes
# back the same day; coalescing turns several missed runs into one.
MISFIRE_GRACE = int(dt.timedelta(hours=23).total_seconds())


class SchedulerLock:
    """A lock that at most one scheduler of a deployment holds."""

    def __init__(self, app: Flask) -> None:
        self.engine = app.extensions["tracker.engine"]
        self._connection: Connection | None = None
        self._file: IO[str] | None = None

    def _lock_path(self) -> Path:
        database = self.engine.url.database
        if not database or database == ":memory:":
            return Path(os.environ.get("TMPDIR", "/tmp")) / "tracker-scheduler.lock"
        return Path(database).with_name(Path(database).name + ".scheduler.lock")

    def acquire(self) -> bool:
        """Try to take the lock without waiting; return whether this process holds it."""
        if self.engine.dialect.name == "postgresql":
            connection = self.engine.connect()
            got = connection.execute(
                text("SELECT pg_try_advisory_lock(:key)"), {"key": ADVISORY_KEY}
            ).scalar_one()
            connection.commit()
            if got:
                self._connection = connection
            else:
                connection.close()
            return bool(got)
        path = self._lock_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._file = handle
        return True

    def held(self) -> bool:
        """Return whether a scheduler of the deployment holds the lock, without taking it."""
        if self.engine.dialect.name == "postgresql":
            with self.engine.connect() as connection:
                return bool(connection.execute(_ADVISORY_HELD, {"key": ADVISORY_KEY}).scalar())
        path = self._lock_path()
        if not path.exists():
            return False
        with path.open("a+") as handle:
            try:
                # Shared, for an instant: a scheduler starting now is refused once and
                # tries again at its next poll.
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
        return False

    def release(self) -> None:
        if self._connection is not None:
            self._connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_KEY})
            self._connection.commit()
            self._connection.close()
            self._connection = None
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def daily(app: Flask) -> None:
    """The daily job: queue what is due today, then deliver (mail and webhooks)."""
    with app.app_context():
        queued = jobs.run_pass(app, today())
        report = jobs.run_sender(app)
        webhooks = jobs.run_webhook_sender(app)
    log.info(
        "reminder pass: queued %s, sent %s, retried %s, failed %s; webhooks sent %s, "
        "retried %s, failed %s",
        queued,
        report.sent,
        report.retried,
        report.failed,
        webhooks.sent,
        webhooks.retried,
        webhooks.failed,
    )


def readiness(app: Flask) -> None:
    """At the day boundary: every team's stored readiness for the new day, and its snapshot."""
    with app.app_context():
        changed = jobs.refresh_readiness(app, today())
    log.info("readiness: %s teams brought to the new day", changed)


def sender(app: Flask) -> None:
    """Deliver what is due between daily runs: mail retries, webhooks queued since."""
    with app.app_context():
        jobs.run_sender(app)
        jobs.run_webhook_sender(app)


def build(app: Flask, scheduler: BaseScheduler | None = None) -> BaseScheduler:
    """Return a scheduler with the daily pass (plus a catch-up run now) and the sender."""
    tz = zoneinfo.ZoneInfo(app.config["TIMEZONE"])
    hour, _, minute = app.config["REMINDER_TIME"].partition(":")
    scheduler = scheduler or BackgroundScheduler(timezone=tz)
    defaults = {"coalesce": True, "max_instances": 1, "misfire_grace_time": MISFIRE_GRACE}
    scheduler.add_job(
        daily,
        CronTrigger(hour=int(hour), minute=int(minute or 0), timezone=tz),
        args=[app],
        id="daily-reminders",
        replace_existing=True,
        **defaults,
    )
    # Catch up at start: a pass is idempotent, so running it again costs nothing.
    scheduler.add_job(
        daily, args=[app], id="catch-up", next_run_time=dt.datetime.now(tz), **defaults
    )
    # Certifications lapse at midnight: the stored readiness follows at once
    # (a page read before would bring it up to date itself, at its own cost).
    scheduler.add_job(
        readiness,
        CronTrigger(hour=0, minute=0, second=5, timezone=tz),
        args=[app],
        id="readiness",
        replace_existing=True,
        **defaults,
    )
    scheduler.add_job(
        sender,
        IntervalTrigger(seconds=int(SENDER_EVERY.total_seconds()), timezone=tz),
        args=[app],
        id="sender",
        replace_existing=True,
        **defaults,
    )
    return scheduler


def run_when_elected(app: Flask, stop: threading.Event, poll: float = 30.0) -> None:
    """Wait for the lock (a standby polls), then run the scheduler until `stop` is set."""
    lock = SchedulerLock(app)
    while not lock.acquire():
        log.info("another scheduler holds the lock; waiting as a standby")
        if stop.wait(poll):
            return
    scheduler = build(app)
    scheduler.start()
    log.info(
        "scheduler started: daily at %s %s", app.config["REMINDER_TIME"], app.config["TIMEZONE"]
    )
    try:
        stop.wait()
    finally:
        scheduler.shutdown(wait=True)
        lock.release()
