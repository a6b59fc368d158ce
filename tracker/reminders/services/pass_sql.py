"""The daily pass's SQL: what is owed on a day, found and written by the database.

The statements are built once per set of windows (and cached), with the day's
dates as bound parameters; see `tracker.reminders.services.daily_pass`.
"""

from __future__ import annotations

import datetime as dt
import functools
import typing
from typing import Any

from sqlalchemy import (
    Date,
    DateTime,
    Integer,
    Select,
    String,
    Table,
    and_,
    bindparam,
    case,
    cast,
    exists,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    true,
    union_all,
)
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlalchemy.sql.compiler import Compiled
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement

from tracker.catalog.models.credentials import Credential, Exam
from tracker.catalog.models.version import CatalogVersion
from tracker.i18n import LOCALES
from tracker.people.models import Engineer, Team
from tracker.people.rules import BROWSER_LOCALE
from tracker.progress.models import Certification, ExamPlan
from tracker.readiness.models import LapseImpact
from tracker.reminders.models import Notification, ReminderRun
from tracker.reminders.rules import EXPIRED
from tracker.reminders.services.windows import Windows
from tracker.webhooks.models import WebhookEndpoint

# The pass's statements are built once per set of windows, with the day's
# dates as bound parameters (`day_params`): building a statement of this size
# costs more than running it on a quiet day.
TODAY = bindparam("today", type_=Date)


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


# The certification and its holder, as the pass's statements name them: short
# names keep the SQL short (see `_const`).
_C = aliased(Certification, name="c")
_E = aliased(Engineer, name="e")


def _in_reach() -> tuple:
    """Criteria of the certifications that count (not renewed nor revoked) within reach."""
    newer = aliased(Certification, name="n")
    return (
        _C.expires_on >= bindparam("reach_from", type_=Date),
        _C.expires_on <= bindparam("reach_to", type_=Date),
        ~exists().where(newer.renews_id == _C.id),
        # Revoked, it is renewed by earning it again, not by a reminder of its expiry.
        _C.revoked_on.is_(None),
    )


def _const(value: str | int) -> ColumnElement:
    """A constant written into the SQL itself, not a bound parameter.

    The pass's statements are cached once built, so their constants never
    change; written in, they keep the SQL short. psycopg caches its parsing of
    a statement's placeholders only below 4,096 characters
    (`MAX_CACHED_STATEMENT_LENGTH`), and parsing the reminders' statement
    again on every pass cost as much as a round trip.
    """
    if isinstance(value, int):
        return literal_column(str(int(value)), Integer)
    return literal_column("'" + value.replace("'", "''") + "'", String)


def _window_sql(windows: Windows) -> ColumnElement[int]:
    """Return the most urgent window due on the day (see `Windows`), for those in reach.

    In reach, a certification expires by the widest window's day at the latest.
    """
    *nearer, widest = sorted(windows.before)
    return case(
        (_C.expires_on < TODAY, _const(EXPIRED)),
        *[(_C.expires_on <= bindparam(f"window_{w}", type_=Date), _const(w)) for w in nearer],
        else_=_const(widest),
    )


def _acknowledged_sql():
    """Whether an open plan for the certification's exam falls between today and the expiry."""
    plan, exam = aliased(ExamPlan, name="ep"), aliased(Exam, name="ex")
    return (
        exists()
        .where(
            plan.engineer_id == _C.engineer_id,
            plan.cancelled_at.is_(None),
            plan.planned_on >= TODAY,
            plan.planned_on <= _C.expires_on,
            exam.id == plan.exam_id,
            exam.credential_id == _C.credential_id,
        )
        .correlate(_C)
    )


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
        .where(~exists().where(Notification.dedupe_key == _escalation_key(LapseImpact))),
        # Whether any endpoint is active: with none, the pass's events cost no
        # statement of their own (see `pass_events`).
        exists().where(WebhookEndpoint.active.is_(True)),
    )


class _IsoDate(FunctionElement):
    """A date as YYYY-MM-DD text, in SQL."""

    type = String()
    inherit_cache = True


@compiles(_IsoDate)
def _iso_date(element, compiler, **kw) -> str:
    # SQLite keeps dates as YYYY-MM-DD text already.
    return f"CAST({compiler.process(element.clauses, **kw)} AS TEXT)"


@compiles(_IsoDate, "postgresql")
def _iso_date_postgresql(element, compiler, **kw) -> str:
    return f"to_char({compiler.process(element.clauses, **kw)}, 'YYYY-MM-DD')"


class _DaysBetween(FunctionElement):
    """The days from the first date to the second, in SQL."""

    type = Integer()
    inherit_cache = True


@compiles(_DaysBetween)
def _days_between(element, compiler, **kw) -> str:
    first, second = (compiler.process(c, **kw) for c in element.clauses)
    return f"CAST(julianday({second}) - julianday({first}) AS INTEGER)"


@compiles(_DaysBetween, "postgresql")
def _days_between_postgresql(element, compiler, **kw) -> str:
    first, second = (compiler.process(c, **kw) for c in element.clauses)
    return f"({second} - {first})"


def _text(value) -> ColumnElement:
    return cast(value, String)


def _escalation_key(lapse) -> ColumnElement:
    """The dedupe key of a certification's escalation: `lapse` has its certification_id."""
    return "escalation:" + _text(lapse.certification_id)


def _locale_of(setting: ColumnElement[str] | InstrumentedAttribute[str]) -> ColumnElement[str]:
    """A person's language in mail: their setting, else the deployment's (see `reader_locale`)."""
    # The setting is one of LOCALES or BROWSER_LOCALE (a check constraint), never null.
    return func.coalesce(
        func.nullif(setting, _const(BROWSER_LOCALE)), bindparam("default_locale", type_=String)
    )


def _managers() -> tuple[ColumnElement[Any], ...]:
    """The engineer's managers' addresses and languages (null for none), as columns.

    Their own manager and their team's, active ones, never the engineer, and the
    team's only when not their own (copied once). In the owed rows' columns: each
    manager is looked up by key for an owed row only (joined, every engineer was
    read into a hash, the planner expecting many more owed rows than a day has).
    """
    own = aliased(Engineer, name="a")
    team = aliased(Team, name="t")
    theirs = aliased(Engineer, name="b")

    def own_manager(column: ColumnElement[Any] | InstrumentedAttribute[Any]) -> ColumnElement[Any]:
        return (
            select(column)
            # Never the engineer: no one is their own manager (a check constraint).
            .where(own.id == _E.manager_id, own.active.is_(True))
            .scalar_subquery()
        )

    def team_manager(column: ColumnElement[Any] | InstrumentedAttribute[Any]) -> ColumnElement[Any]:
        return (
            select(column)
            .select_from(team)
            .join(theirs, theirs.id == team.manager_id)
            .where(
                team.id == _E.team_id,
                theirs.active.is_(True),
                theirs.id != _E.id,
                theirs.id.is_distinct_from(_E.manager_id),
            )
            .scalar_subquery()
        )

    return (
        own_manager(own.email).label("ea"),
        own_manager(_locale_of(own.locale).label("l")).label("la"),
        team_manager(theirs.email).label("eb"),
        team_manager(_locale_of(theirs.locale).label("l")).label("lb"),
    )


def _owed_reminders(windows: Windows) -> Select[Any]:
    """The reminders and expiry notices owed: one row each, as `reminders_statement` reads them."""
    window = _window_sql(windows)
    # Correlated to the certification only: the INSERT's own table is notifications.
    queued_row = aliased(Notification, name="r")
    queued = (
        exists()
        .where(
            queued_row.certification_id == _C.id,
            queued_row.window_days == window,
            queued_row.kind.in_((_const("reminder"), _const("expired"))),
        )
        .correlate(_C)
    )
    # The certifications owed a notice, found (and kept) before their holders are
    # joined: joined first, every active engineer was read into a hash and
    # every certification in reach sorted with their columns.
    due = (
        select(_C.id, _C.engineer_id, _C.credential_id, _C.expires_on, window.label("w"))
        .where(*_in_reach(), ~queued, or_(_C.expires_on < TODAY, ~_acknowledged_sql()))
        .cte("d")
        .prefix_with("MATERIALIZED")
    )
    d = due.c
    code = select(Credential.code).where(Credential.id == d.credential_id).scalar_subquery()
    expires = _IsoDate(d.expires_on)
    left = _DaysBetween(TODAY, d.expires_on)
    expired = d.expires_on < TODAY
    # The subject in English; composing writes it again in the notice's language.
    subject = (
        code
        + _const(" valid through ")
        + expires
        + case(
            (expired, _const(" (lapsed)")),
            else_=_const(" (")
            + _text(left)
            + case((left == _const(1), _const(" day")), else_=_const(" days"))
            + _const(" from today)"),
        )
    )
    # Copied from the copy window on.
    copy = or_(expired, d.expires_on <= bindparam("copy_to", type_=Date))
    return (
        select(
            case((expired, _const("expired")), else_=_const("reminder")).label("k"),
            d.id.label("c"),
            d.w,
            d.engineer_id.label("e"),
            _E.email.label("ad"),
            _locale_of(_E.locale).label("lo"),
            copy.label("cp"),
            subject.label("su"),
            *_managers(),
        )
        .select_from(due)
        .join(_E, _E.id == d.engineer_id)
        .where(_E.active.is_(True))
    )


def _owed_escalations() -> Select[Any]:
    """The escalations owed, in the columns of `_owed_reminders`.

    Lapses known to drop readiness (lapse_impacts, judged at the team's current
    revision), before the expiry, not escalated yet and not acknowledged.
    """
    code = select(Credential.code).where(Credential.id == _C.credential_id).scalar_subquery()
    escalated = exists().where(Notification.dedupe_key == _escalation_key(LapseImpact))
    return (
        select(
            _const("escalation"),
            _C.id,
            null(),
            _C.engineer_id,
            _E.email,
            _locale_of(_E.locale),
            true(),
            _const("Escalation: ")
            + _E.name
            + _const("'s ")
            + code
            + _const(" is valid through ")
            + _IsoDate(_C.expires_on)
            + _const(", then readiness drops"),
            *_managers(),
        )
        .select_from(LapseImpact)
        .join(_C, _C.id == LapseImpact.certification_id)
        .join(_E, _E.id == _C.engineer_id)
        .where(
            LapseImpact.expires_on >= TODAY,
            LapseImpact.expires_on <= bindparam("reach_to", type_=Date),
            LapseImpact.team_id == _E.team_id,
            _E.active.is_(True),
            _C.expires_on.is_not(None),
            *_in_reach(),
            _C.expires_on >= TODAY,
            ~_acknowledged_sql(),
            ~escalated,
        )
    )


@functools.cache
def reminders_statement(windows: Windows, escalating: bool = False) -> ReturningInsert[Any]:
    """INSERT ... SELECT of the reminders and expiry notices owed (see
    `daily_pass._queue_reminders`), and with `escalating` of the escalations owed too.

    Each owed notice is written once per language among its recipients. The
    notice itself (its key says which: "reminder:<cert>:<window>",
    "escalation:<cert>") is in the engineer's language: a reminder to the
    engineer, copying the managers who read that language (from the copy
    window on); an escalation to those managers, the engineer copied (to the
    engineer alone when none of them does, which composing then words to the
    engineer: "your certification"). The managers who read another
    language get a copy in theirs ("copy:<the notice's key>:<language>"),
    one for each such language: an engineer has at most two managers (their
    own and their team's), so at most two copies.
    """
    owed = _owed_reminders(windows)
    # Found first and kept (materialised), with their managers (`_managers`): the
    # languages are joined for the owed rows only, not for every certification in reach.
    o = (union_all(owed, _owed_escalations()) if escalating else owed).cte("o")
    o = o.prefix_with("MATERIALIZED")
    # A row per language: the notice's own (the engineer's) and any other its managers read.
    languages = union_all(*(select(_const(code).label("x")) for code in LOCALES)).subquery("s")
    x = languages.c.x
    mine = x == o.c.lo
    # The managers who read the row's language, own manager first.
    managers = case(
        (
            o.c.la == x,
            o.c.ea + case((o.c.lb == x, _const(", ") + o.c.eb), else_=_const("")),
        ),
        (o.c.lb == x, o.c.eb),
        else_=_const(""),
    )
    key = (
        case((mine, _const("")), else_=_const("copy:"))
        + o.c.k
        + _const(":")
        + _text(o.c.c)
        + func.coalesce(_const(":") + _text(o.c.w), _const(""))
        + case((mine, _const("")), else_=_const(":") + x)
    )
    q = (
        select(
            *(o.c[name] for name in ("k", "c", "w", "e", "ad", "lo", "cp", "su")),
            x,
            managers.label("m"),
            key.label("key"),
        )
        .select_from(o)
        .join(languages, true())
        # The engineer's language always; a manager's from the copy window on.
        .where(or_(mine, and_(o.c.cp, or_(o.c.la == x, o.c.lb == x))))
        .subquery("q")
    )
    notice = q.c.x == q.c.lo
    escalation = q.c.k == _const("escalation")
    to = case((and_(notice, or_(~escalation, q.c.m == _const(""))), q.c.ad), else_=q.c.m)
    cc = case(
        (or_(~notice, ~q.c.cp), _const("")),
        (~escalation, q.c.m),
        (q.c.m == _const(""), _const("")),
        else_=q.c.ad,
    )
    rows = select(
        q.c.key,
        case((notice, q.c.k), else_=_const("copy")),
        q.c.c,
        q.c.w,
        q.c.e,
        to,
        cc,
        q.c.su,
        _const("<")
        + func.replace(q.c.key, _const(":"), _const("."))
        + bindparam("message_id_end", type_=String),
        q.c.x,
        _const(""),  # body_html, until composed
        _const("pending"),
        _const(0),
        bindparam("next_attempt_at", type_=DateTime),
        bindparam("created_at", type_=DateTime),
    )
    table = typing.cast(Table, Notification.__table__)
    return (
        insert(table)
        .from_select(
            [
                "dedupe_key",
                "kind",
                "certification_id",
                "window_days",
                "engineer_id",
                "to_addrs",
                "cc_addrs",
                "subject",
                "message_id",
                "locale",
                "body_html",
                "status",
                "attempts",
                "next_attempt_at",
                "created_at",
            ],
            rows,
        )
        # What the pass's webhook events need (pass_events) besides the id and kind.
        .returning(table.c.id, table.c.kind, table.c.certification_id, table.c.window_days)
    )
