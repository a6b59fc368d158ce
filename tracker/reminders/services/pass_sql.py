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
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement

from tracker.catalog.models import CatalogVersion, Credential, Exam
from tracker.i18n import LOCALES
from tracker.people.models import Engineer, Team
from tracker.people.rules import BROWSER_LOCALE
from tracker.progress.models import Certification, ExamPlan
from tracker.readiness.models import LapseImpact
from tracker.reminders.models import Notification, ReminderRun
from tracker.reminders.rules import EXPIRED
from tracker.reminders.services.pass_events import PASS_EVENTS
from tracker.reminders.services.windows import Windows
from tracker.webhooks.services import events as webhooks

# The pass's statements are built once per set of windows, with the day's
# dates as bound parameters (`day_params`): building a statement of this size
# costs more than running it on a quiet day.
TODAY = bindparam("today", type_=Date)


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
    """Criteria of the certifications that count (not renewed) and expire within reach."""
    newer = aliased(Certification, name="n")
    return (
        _E.active.is_(True),
        _C.expires_on.is_not(None),
        _C.expires_on >= bindparam("reach_from", type_=Date),
        _C.expires_on <= bindparam("reach_to", type_=Date),
        ~exists().where(newer.renews_id == _C.id),
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


def _window_sql(windows: Windows) -> ColumnElement[int | None]:
    """Return the most urgent window due on the day (see `Windows`), for those in reach."""
    return case(
        (_C.expires_on < TODAY, _const(EXPIRED)),
        *[
            (_C.expires_on <= bindparam(f"window_{w}", type_=Date), _const(w))
            for w in sorted(windows.before)
        ],
        else_=None,
    )


def _acknowledged_sql():
    """Whether an open plan for the certification's exam falls between today and the expiry."""
    return (
        exists()
        .where(
            ExamPlan.engineer_id == _C.engineer_id,
            ExamPlan.cancelled_at.is_(None),
            ExamPlan.planned_on >= TODAY,
            ExamPlan.planned_on <= _C.expires_on,
            Exam.id == ExamPlan.exam_id,
            Exam.credential_id == _C.credential_id,
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
    """SELECT of what the pass must do besides the reminders (see `daily_pass._PassState`).

    Its last columns are the subscribers of each of PASS_EVENTS.
    """
    stamp = select(CatalogVersion.stamp).scalar_subquery()
    lock = [func.pg_advisory_xact_lock(PASS_LOCK_KEY)] if dialect == "postgresql" else []
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
        # The endpoints taking the pass's events: its events then cost no statement
        # of their own when none does (see `pass_events`).
        *(webhooks.subscribers_sql(event) for event in PASS_EVENTS),
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
    return case(
        (setting == _const(BROWSER_LOCALE), bindparam("default_locale", type_=String)),
        else_=setting,
    )


def _owed_reminders(windows: Windows) -> Select[Any]:
    """The reminders and expiry notices owed: one row each, as `reminders_statement` reads them."""
    window = _window_sql(windows)
    # Correlated to the certification only: the INSERT's own table is notifications.
    queued = (
        exists()
        .where(
            Notification.certification_id == _C.id,
            Notification.window_days == window,
            Notification.kind.in_((_const("reminder"), _const("expired"))),
        )
        .correlate(_C)
    )
    code = select(Credential.code).where(Credential.id == _C.credential_id).scalar_subquery()
    expires = _IsoDate(_C.expires_on)
    left = _DaysBetween(TODAY, _C.expires_on)
    expired = _C.expires_on < TODAY
    # The subject in English; composing writes it again in the notice's language.
    subject = code + case(
        (expired, _const(" expired on ") + expires),
        else_=_const(" expires in ")
        + _text(left)
        + case((left == _const(1), _const(" day (")), else_=_const(" days ("))
        + expires
        + _const(")"),
    )
    # Copied from the copy window on.
    copy = or_(expired, _C.expires_on <= bindparam("copy_to", type_=Date))
    return (
        select(
            case((expired, _const("expired")), else_=_const("reminder")).label("k"),
            _C.id.label("c"),
            window.label("w"),
            _C.engineer_id.label("e"),
            _E.email.label("ad"),
            _locale_of(_E.locale).label("lo"),
            _E.manager_id.label("mi"),
            _E.team_id.label("ti"),
            case((copy, _const(1)), else_=_const(0)).label("cp"),
            subject.label("su"),
        )
        .select_from(_C)
        .join(_E, _E.id == _C.engineer_id)
        .where(*_in_reach(), ~queued, or_(expired, ~_acknowledged_sql()))
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
            _E.manager_id,
            _E.team_id,
            _const(1),
            _const("Escalation: ")
            + _E.name
            + _const("'s ")
            + code
            + _const(" lapses on ")
            + _IsoDate(_C.expires_on)
            + _const(" and readiness drops"),
        )
        .select_from(LapseImpact)
        .join(_C, _C.id == LapseImpact.certification_id)
        .join(_E, _E.id == _C.engineer_id)
        .where(
            LapseImpact.expires_on >= TODAY,
            LapseImpact.expires_on <= bindparam("reach_to", type_=Date),
            LapseImpact.team_id == _E.team_id,
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
    engineer alone when none of them does). The managers who read another
    language get a copy in theirs ("copy:<the notice's key>:<language>"),
    one for each such language: an engineer has at most two managers (their
    own and their team's), so at most two copies.
    """
    owed = _owed_reminders(windows)
    # Found first and kept (materialised): the managers and the languages are
    # read for the owed rows only, not joined for every certification in reach.
    o = (union_all(owed, _owed_escalations()) if escalating else owed).cte("o")
    o = o.prefix_with("MATERIALIZED")
    # A row per language: the notice's own (the engineer's) and any other its managers read.
    languages = union_all(*(select(_const(code).label("x")) for code in LOCALES)).subquery("s")
    own = aliased(Engineer, name="a")
    team = aliased(Team, name="t")
    theirs = aliased(Engineer, name="b")
    p = (
        select(
            *(o.c[name] for name in ("k", "c", "w", "e", "ad", "lo", "cp", "su")),
            languages.c.x,
            own.email.label("ea"),
            _locale_of(own.locale).label("la"),
            theirs.email.label("eb"),
            _locale_of(theirs.locale).label("lb"),
        )
        .select_from(o)
        .join(languages, true())
        .outerjoin(own, and_(own.id == o.c.mi, own.active.is_(True), own.id != o.c.e))
        .outerjoin(team, team.id == o.c.ti)
        # The team's manager, unless they are the engineer's own manager (copied once).
        .outerjoin(
            theirs,
            and_(
                theirs.id == team.manager_id,
                theirs.active.is_(True),
                theirs.id != o.c.e,
                theirs.id.is_distinct_from(o.c.mi),
            ),
        )
        .subquery("p")
    )
    mine = p.c.x == p.c.lo
    # The managers who read the row's language, own manager first.
    managers = case(
        (
            p.c.la == p.c.x,
            p.c.ea + case((p.c.lb == p.c.x, _const(", ") + p.c.eb), else_=_const("")),
        ),
        (p.c.lb == p.c.x, p.c.eb),
        else_=_const(""),
    )
    key = (
        case((mine, _const("")), else_=_const("copy:"))
        + p.c.k
        + _const(":")
        + _text(p.c.c)
        + func.coalesce(_const(":") + _text(p.c.w), _const(""))
        + case((mine, _const("")), else_=_const(":") + p.c.x)
    )
    q = (
        select(
            *(p.c[name] for name in ("k", "c", "w", "e", "ad", "lo", "cp", "su", "x")),
            managers.label("m"),
            key.label("key"),
        )
        # The engineer's language always; a manager's from the copy window on.
        .where(or_(mine, and_(p.c.cp == _const(1), or_(p.c.la == p.c.x, p.c.lb == p.c.x))))
        .subquery("q")
    )
    notice = q.c.x == q.c.lo
    escalation = q.c.k == _const("escalation")
    to = case((and_(notice, or_(~escalation, q.c.m == _const(""))), q.c.ad), else_=q.c.m)
    cc = case(
        (or_(~notice, q.c.cp == _const(0)), _const("")),
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
