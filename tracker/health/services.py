"""The checks of a server's health: its database, its schema, the outboxes, the scheduler."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from tracker.config import SecretKeys
from tracker.db import database_revision, head_revision
from tracker.health.rules import FAIL, OUTBOX_LATE, PASS, WARN
from tracker.i18n import msg
from tracker.issuer.rules import KEY_UNREADABLE
from tracker.issuer.services.keys import newest_opens
from tracker.reminders.models import Notification
from tracker.webhooks.models import WebhookDelivery

# Still to send: what the senders' queues (their partial indexes) hold.
WAITING = ("pending", "sending")


@dataclass(frozen=True)
class Check:
    """One check's result, as the health answer's `checks` show it."""

    name: str
    status: str
    component_type: str
    output: str = ""
    observed: dict[str, Any] = field(default_factory=dict)

    def dump(self) -> dict[str, Any]:
        """Return the check as the health answer says it."""
        said: dict[str, Any] = {"componentType": self.component_type, "status": self.status}
        said.update(self.observed)
        if self.output:
            said["output"] = self.output
        return said


def overall(checks: list[Check]) -> str:
    """Return the worst status among the checks: fail, then warn, else pass."""
    statuses = {check.status for check in checks}
    return FAIL if FAIL in statuses else WARN if WARN in statuses else PASS


def readiness(
    session: Session,
    now: dt.datetime,
    scheduler_held: Callable[[], bool],
    secret_keys: SecretKeys,
) -> list[Check]:
    """Run every check of whether the server may take requests; `scheduler_held` asks the lock."""
    try:
        connection = session.connection()
        checks = [Check("database:connection", PASS, "datastore"), _schema(connection)]
        if overall(checks) == FAIL:
            return checks
        checks += outbox_checks(connection, now)
        checks.append(issuer_key_check(session, secret_keys))
    except DBAPIError:
        return [
            Check("database:connection", FAIL, "datastore", msg("the database does not answer"))
        ]
    checks.append(scheduler_check(scheduler_held))
    return checks


def _schema(connection: Connection) -> Check:
    """Check that the database holds the schema this code expects."""
    found, expected = database_revision(connection), head_revision()
    if found == expected:
        return Check("database:schema", PASS, "datastore")
    return Check(
        "database:schema",
        FAIL,
        "datastore",
        msg(
            "the database is at migration %(found)s, this version expects %(expected)s:"
            " run `tracker init`",
            found=found or "none",
            expected=expected,
        ),
    )


def outbox_checks(connection: Connection, now: dt.datetime) -> list[Check]:
    """Check that no notice or webhook delivery has been due for longer than OUTBOX_LATE."""
    return [
        _outbox(connection, now, "mail:outbox", Notification, "notices"),
        _outbox(connection, now, "webhooks:outbox", WebhookDelivery, "deliveries"),
    ]


def _outbox(
    connection: Connection,
    now: dt.datetime,
    name: str,
    model: type[Notification] | type[WebhookDelivery],
    unit: str,
) -> Check:
    late, oldest = connection.execute(
        select(func.count(), func.min(model.next_attempt_at)).where(
            model.status.in_(WAITING), model.next_attempt_at <= now - OUTBOX_LATE
        )
    ).one()
    observed = {"observedValue": late, "observedUnit": unit}
    if not late:
        return Check(name, PASS, "component", observed=observed)
    minutes = int((now - oldest).total_seconds() // 60)
    return Check(
        name,
        WARN,
        "component",
        msg(
            "%(count)s due for more than %(late)s minutes, the oldest for %(minutes)s:"
            " is the scheduler running, and is the receiver reachable?",
            count=late,
            late=int(OUTBOX_LATE.total_seconds() // 60),
            minutes=minutes,
        ),
        observed,
    )


def issuer_key_check(session: Session, secret_keys: SecretKeys) -> Check:
    """Check that the secret key or a fallback opens the newest Open Badges signing key."""
    # A warning: everything but issuing badges and serving their status list works.
    if newest_opens(session, secret_keys):
        return Check("issuer:key", PASS, "component")
    return Check("issuer:key", WARN, "component", KEY_UNREADABLE)


def scheduler_check(held: Callable[[], bool]) -> Check:
    """Check that a scheduler holds the deployment's lock (`held` asks)."""
    if held():
        return Check("scheduler:lock", PASS, "component")
    return Check(
        "scheduler:lock",
        WARN,
        "component",
        msg(
            "no scheduler is running: reminders are not queued and mail is not sent;"
            " run `tracker scheduler`"
        ),
    )
