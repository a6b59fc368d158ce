"""The daily pass's reminders in SQL: what is owed on a day, found and queued by one INSERT.

The statement is built once per set of windows (and cached), with the day's
dates as bound parameters; see `tracker.reminders.services.daily_pass`.
"""

from __future__ import annotations

import functools
import typing
from typing import Any

from sqlalchemy import (
    Date,
    DateTime,
    Select,
    String,
    Table,
    and_,
    bindparam,
    case,
    exists,
    func,
    insert,
    null,
    or_,
    select,
    true,
    union_all,
)
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.elements import ColumnElement

from tracker.catalog.models.credentials import Credential, Exam
from tracker.i18n import LOCALES
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification, ExamPlan
from tracker.readiness.models import LapseImpact
from tracker.reminders.models import Notification
from tracker.reminders.rules import EXPIRED
from tracker.reminders.services.pass_terms import (
    TODAY,
    DaysBetween,
    IsoDate,
    as_text,
    const,
    escalation_key,
    locale_of,
)
from tracker.reminders.services.windows import Windows

# The certification and its holder, as the reminders' statement names them: short
# names keep the SQL short (see `const`).
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


def _window_sql(windows: Windows) -> ColumnElement[int]:
    """Return the most urgent window due on the day (see `Windows`), for those in reach.

    In reach, a certification expires by the widest window's day at the latest.
    """
    *nearer, widest = sorted(windows.before)
    return case(
        (_C.expires_on < TODAY, const(EXPIRED)),
        *[(_C.expires_on <= bindparam(f"window_{w}", type_=Date), const(w)) for w in nearer],
        else_=const(widest),
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
        own_manager(locale_of(own.locale).label("l")).label("la"),
        team_manager(theirs.email).label("eb"),
        team_manager(locale_of(theirs.locale).label("l")).label("lb"),
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
            queued_row.kind.in_((const("reminder"), const("expired"))),
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
    expires = IsoDate(d.expires_on)
    left = DaysBetween(TODAY, d.expires_on)
    expired = d.expires_on < TODAY
    # The subject in English; composing writes it again in the notice's language.
    subject = (
        code
        + const(" valid through ")
        + expires
        + case(
            (expired, const(" (lapsed)")),
            else_=const(" (")
            + as_text(left)
            + case((left == const(1), const(" day")), else_=const(" days"))
            + const(" from today)"),
        )
    )
    # Copied from the copy window on.
    copy = or_(expired, d.expires_on <= bindparam("copy_to", type_=Date))
    return (
        select(
            case((expired, const("expired")), else_=const("reminder")).label("k"),
            d.id.label("c"),
            d.w,
            d.engineer_id.label("e"),
            _E.email.label("ad"),
            locale_of(_E.locale).label("lo"),
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
    escalated = exists().where(Notification.dedupe_key == escalation_key(LapseImpact))
    return (
        select(
            const("escalation"),
            _C.id,
            null(),
            _C.engineer_id,
            _E.email,
            locale_of(_E.locale),
            true(),
            const("Escalation: ")
            + _E.name
            + const("'s ")
            + code
            + const(" is valid through ")
            + IsoDate(_C.expires_on)
            + const(", then readiness drops"),
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
    languages = union_all(*(select(const(code).label("x")) for code in LOCALES)).subquery("s")
    x = languages.c.x
    mine = x == o.c.lo
    # The managers who read the row's language, own manager first.
    managers = case(
        (
            o.c.la == x,
            o.c.ea + case((o.c.lb == x, const(", ") + o.c.eb), else_=const("")),
        ),
        (o.c.lb == x, o.c.eb),
        else_=const(""),
    )
    key = (
        case((mine, const("")), else_=const("copy:"))
        + o.c.k
        + const(":")
        + as_text(o.c.c)
        + func.coalesce(const(":") + as_text(o.c.w), const(""))
        + case((mine, const("")), else_=const(":") + x)
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
    escalation = q.c.k == const("escalation")
    to = case((and_(notice, or_(~escalation, q.c.m == const(""))), q.c.ad), else_=q.c.m)
    cc = case(
        (or_(~notice, ~q.c.cp), const("")),
        (~escalation, q.c.m),
        (q.c.m == const(""), const("")),
        else_=q.c.ad,
    )
    rows = select(
        q.c.key,
        case((notice, q.c.k), else_=const("copy")),
        q.c.c,
        q.c.w,
        q.c.e,
        to,
        cc,
        q.c.su,
        const("<")
        + func.replace(q.c.key, const(":"), const("."))
        + bindparam("message_id_end", type_=String),
        q.c.x,
        const(""),  # body_html, until composed
        const("pending"),
        const(0),
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
