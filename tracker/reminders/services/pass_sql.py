"""The daily pass's SQL: its statements run, the day's parameters, the lock and what is due.

The statements are built once per set of windows (and cached), with the day's
dates as bound parameters; see `tracker.reminders.services.daily_pass`. The
reminders owed are found and queued by `reminders_sql`; the words both are
written in are `pass_terms`.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from sqlalchemy import Date, Select, bindparam, exists, func, select
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.compiler import Compiled
from sqlalchemy.sql.dml import ReturningInsert

from tracker.catalog.models.version import CatalogVersion
from tracker.people.models import Team
from tracker.readiness.models import LapseImpact
from tracker.reminders.models import Notification, ReminderRun
from tracker.reminders.services.pass_terms import TODAY, escalation_key
from tracker.reminders.services.windows import Windows
from tracker.webhooks.models import WebhookEndpoint

_Statement = Select[Any] | ReturningInsert[Any]


def execute(connection: Connection, statement: _Statement, params: dict[str, Any]) -> Any:
    """Run one of the pass's statements on `connection`; return its result.

    On PostgreSQL its SQL is compiled once and sent as it is (the engine's
    events still see it): finding a statement of this size in SQLAlchemy's
    cache of compiled statements hashed the whole of it at every pass, about
    0.2 ms of the pass's Python. SQLite's dates go through their types.
    """
    if connection.dialect.name != "postgresql":
        return connection.execute(statement, params)
    sql, compiled = _compiled(statement, connection.dialect)
    return connection.exec_driver_sql(sql, compiled.construct_params(params))


@functools.cache
def _compiled(statement: _Statement, dialect: Dialect) -> tuple[str, Compiled]:
    compiled = statement.compile(dialect=dialect)
    return compiled.string, compiled


def day_params(today: dt.date, windows: Windows) -> dict[str, object]:
    """The bound parameters of the pass's statements for `today`."""
    params: dict[str, object] = {
        "today": today,
        "reach_from": today - dt.timedelta(days=windows.expired_grace_days),
        "reach_to": today + dt.timedelta(days=windows.widest),
        "copy_to": today + dt.timedelta(days=windows.copy_manager_from),
    }
    params.update({f"window_{w}": today + dt.timedelta(days=w) for w in windows.before})
    return params


# Passes take this transaction lock on PostgreSQL (SQLite's writers are serial
# already), with the pass's first statement: what one pass queued is committed
# before the next one queues, so "not queued yet" in SQL is enough and a notice
# is never queued twice. The unique keys stay as the last guard. (The state
# read with the lock may predate a pass that held it; what it leads to is
# redone harmlessly: judging again, or digests that the unique keys refuse.)
PASS_LOCK_KEY = 0x7061_7373  # "pass"


@functools.cache
def state_statement(dialect: str) -> Select[Any]:
    """SELECT of what the pass must do besides the reminders (see `daily_pass._PassState`)."""
    stamp = select(CatalogVersion.stamp).scalar_subquery()
    lock = (
        [
            func.pg_advisory_xact_lock(PASS_LOCK_KEY),
            # No JIT compiling for the rest of the pass's transaction. The planner
            # expects many more owed rows than a day has, and its cost of the pass's
            # statement grows with the certifications in reach (78,000 at 10,000
            # engineers; the JIT starts at 100,000): compiling it took a second,
            # for a statement that runs in tens of milliseconds.
            func.set_config("jit", "off", True),
        ]
        if dialect == "postgresql"
        else []
    )
    return select(
        *lock,
        stamp,
        exists().where(ReminderRun.kind == "catalog", ReminderRun.period == stamp),
        exists().where(ReminderRun.kind == "digest", ReminderRun.period == bindparam("week")),
        exists().where(Team.readiness_revision != Team.judged_revision),
        # Any lapse known to drop readiness, in reach and not escalated yet (the
        # escalations' statement runs only then; most days it has nothing to do).
        exists()
        .where(
            LapseImpact.expires_on >= TODAY,
            LapseImpact.expires_on <= bindparam("reach_to", type_=Date),
        )
        # Found by its key (a unique index), not by kind: every notice has one.
        .where(~exists().where(Notification.dedupe_key == escalation_key(LapseImpact))),
        # Whether any endpoint is active: with none, the pass's events cost no
        # statement of their own (see `pass_events`).
        exists().where(WebhookEndpoint.active.is_(True)),
    )
