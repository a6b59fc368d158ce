"""One scheduler per deployment, a daily run at the configured time, catch-up at start."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from tracker import create_app
from tracker.reminders import scheduler


def _app(url: str, **overrides):
    return create_app({"DATABASE_URL": url, "SECRET_KEY": "x", **overrides})


def test_only_one_scheduler_holds_the_lock(fresh_url):
    first_app, second_app = _app(fresh_url), _app(fresh_url)
    first, second = scheduler.SchedulerLock(first_app), scheduler.SchedulerLock(second_app)
    try:
        assert first.acquire()
        assert not second.acquire()
        first.release()
        assert second.acquire()
    finally:
        first.release()
        second.release()
        for app in (first_app, second_app):
            app.extensions["tracker.engine"].dispose()


def test_jobs_run_daily_at_the_reminder_time_and_catch_up_at_start(fresh_url):
    app = _app(fresh_url, TIMEZONE="Europe/Madrid", REMINDER_TIME="07:30")
    try:
        built = scheduler.build(app, BackgroundScheduler(timezone="Europe/Madrid"))
        jobs = {job.id: job for job in built.get_jobs()}
        assert set(jobs) == {"daily-reminders", "catch-up", "readiness", "sender"}
        # The stored readiness follows the day's lapses at midnight, local time.
        boundary = jobs["readiness"].trigger.get_next_fire_time(
            None, dt.datetime(2026, 10, 24, 12, 0, tzinfo=zoneinfo.ZoneInfo("Europe/Madrid"))
        )
        assert (boundary.date().isoformat(), boundary.hour, boundary.minute) == ("2026-10-25", 0, 0)
        daily = jobs["daily-reminders"]
        assert isinstance(daily.trigger, CronTrigger)
        assert daily.coalesce and daily.max_instances == 1
        assert daily.misfire_grace_time >= 12 * 3600
        tz = zoneinfo.ZoneInfo("Europe/Madrid")
        # Across the end of summer time the run stays at 07:30 local, once a day.
        runs, moment = [], dt.datetime(2026, 10, 23, 12, 0, tzinfo=tz)
        for _ in range(4):
            moment = daily.trigger.get_next_fire_time(None, moment)
            runs.append(moment)
            moment += dt.timedelta(seconds=1)
        assert [(r.date().isoformat(), r.hour, r.minute) for r in runs] == [
            ("2026-10-24", 7, 30),
            ("2026-10-25", 7, 30),
            ("2026-10-26", 7, 30),
            ("2026-10-27", 7, 30),
        ]
        assert {r.date() for r in runs} == {dt.date(2026, 10, d) for d in (24, 25, 26, 27)}
    finally:
        app.extensions["tracker.engine"].dispose()
