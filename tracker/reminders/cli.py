"""`tracker remind` and `tracker scheduler`."""

from __future__ import annotations

import json

import click
from flask import current_app
from flask.cli import with_appcontext

from tracker.clock import today as clock_today
from tracker.errors import ValidationError
from tracker.reminders import jobs


@click.command("remind")
@with_appcontext
@click.option(
    "--today",
    "on",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="Run the pass as of this date (default: today).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print queued/sent/retried/failed (and the webhooks' sent/retried/failed) as JSON.",
)
def remind_command(on, as_json: bool) -> None:
    """Run one reminder pass, then deliver every pending notice and webhook now."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a proxy, typed as Flask
    try:
        report = jobs.remind(app, on.date() if on else clock_today())
    except ValidationError as exc:
        raise click.ClickException("; ".join(exc.errors.values())) from None
    if as_json:
        click.echo(json.dumps(report.as_dict()))
    else:
        line = (
            f"queued {report.queued}, sent {report.sent}, retried {report.retried}, "
            f"failed {report.failed}"
        )
        hooks = report.webhooks
        if hooks.sent or hooks.retried or hooks.failed:
            line += f"; webhooks sent {hooks.sent}, retried {hooks.retried}, failed {hooks.failed}"
        click.echo(line)


@click.command("scheduler")
@with_appcontext
@click.option(
    "--once", is_flag=True, help="Run the daily job once (if this process wins the lock) and exit."
)
def scheduler_command(once: bool) -> None:
    """Run the reminder scheduler: daily at TRACKER_REMINDER_TIME, catching up at start."""
    import logging
    import signal
    import threading

    from tracker.reminders import scheduler

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a proxy, typed as Flask
    if once:
        lock = scheduler.SchedulerLock(app)
        if not lock.acquire():
            raise click.ClickException("another scheduler holds the lock")
        try:
            scheduler.daily(app)
        finally:
            lock.release()
        return
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    click.echo(
        f"scheduler: daily at {app.config['REMINDER_TIME']} {app.config['TIMEZONE']}; "
        "waiting for the deployment's scheduler lock"
    )
    scheduler.run_when_elected(app, stop)
