"""Scheduled work: the daily reminder pass and the senders (mail, webhooks), as plain functions."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from flask import Flask

from tracker.badges.jobs import recheck_badges
from tracker.clock import utcnow
from tracker.db import session_scope
from tracker.readiness.services.current import day_boundary
from tracker.reminders.services.composing import compose_pending
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import DeliveryReport, SmtpSettings, deliver
from tracker.reminders.services.queueing import Mail
from tracker.reminders.services.windows import parse_windows
from tracker.webhooks.services.delivery import WebhookReport
from tracker.webhooks.services.delivery import deliver as deliver_webhooks


@dataclass(frozen=True)
class RunReport:
    queued: int
    sent: int
    retried: int
    failed: int
    webhooks: WebhookReport = field(default_factory=WebhookReport)

    def as_dict(self) -> dict[str, object]:
        return {
            "queued": self.queued,
            "sent": self.sent,
            "retried": self.retried,
            "failed": self.failed,
            "webhooks": self.webhooks.as_dict(),
        }


def smtp_settings(app: Flask) -> SmtpSettings:
    c = app.config
    return SmtpSettings(
        host=c["SMTP_HOST"],
        port=int(c["SMTP_PORT"]),
        mail_from=c["MAIL_FROM"],
        username=c["SMTP_USERNAME"],
        password=c["SMTP_PASSWORD"],
        starttls=bool(c["SMTP_STARTTLS"]),
        timeout=float(c["SMTP_TIMEOUT"]),
    )


def mail_settings(app: Flask) -> Mail:
    base = app.config["BASE_URL"]
    domain = urlsplit(base).hostname or "tracker.localhost"
    return Mail(
        base_url=base,
        domain=domain,
        signing_key=str(app.config["SECRET_KEY"]),
        locale=app.config["DEFAULT_LOCALE"],
    )


def refresh_readiness(app: Flask, today: dt.date) -> int:
    """Bring every team's stored readiness to `today`, with the day's snapshots; commit."""
    return day_boundary(app.extensions["tracker.sessions"], today)


def run_pass(app: Flask, today: dt.date) -> int:
    """Queue what is due on `today` and commit, then compose it; return how many were queued.

    Imported badges are checked again first (a revocation changes readiness), then the
    teams' stored readiness is brought to `today`, each in transactions of their own.
    """
    recheck_badges(app, today)
    refresh_readiness(app, today)
    windows = parse_windows(app.config["REMINDER_WINDOWS"])
    mail = mail_settings(app)
    with session_scope(app.extensions["tracker.sessions"]) as session:
        # Counts only: the notices are in the outbox, and holding them all
        # would make the scheduler's memory grow with the organisation.
        report = plan(session, today, windows, mail, keep=False, compose=False)
        queued = report.count()
    compose_pending(app.extensions["tracker.sessions"], mail)
    return queued


def run_sender(app: Flask, now: dt.datetime | None = None, force: bool = False) -> DeliveryReport:
    """Deliver due outbox rows after the pass committed them (composing any left uncomposed)."""
    compose_pending(app.extensions["tracker.sessions"], mail_settings(app))
    return deliver(
        app.extensions["tracker.sessions"], smtp_settings(app), now or utcnow(), force=force
    )


def run_webhook_sender(
    app: Flask, now: dt.datetime | None = None, force: bool = False
) -> WebhookReport:
    """Deliver due webhook deliveries after the writes that queued them committed."""
    return deliver_webhooks(
        app.extensions["tracker.sessions"],
        now or utcnow(),
        force=force,
        allow_hosts=app.config.get("WEBHOOK_ALLOW_HOSTS", frozenset()),
    )


def remind(app: Flask, today: dt.date) -> RunReport:
    """Run one pass for `today`, then deliver every pending row now (back-off notwithstanding).

    The pending webhook deliveries go too.
    """
    queued = run_pass(app, today)
    delivery = run_sender(app, force=True)
    webhooks = run_webhook_sender(app, force=True)
    return RunReport(queued, delivery.sent, delivery.retried, delivery.failed, webhooks)
