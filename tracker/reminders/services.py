"""Renewal reminders (DOMAIN.md section 9): the daily pass, the outbox and SMTP delivery.

The pass decides what is due and writes one outbox row per notice in the same
transaction; a unique key per (certification, window) means a notice can be
queued once, ever. The sender claims rows, sends them over one SMTP
connection per batch and marks each one before the next goes out; a row is
never lost, and a row is sent again only when a sender died between sending
and marking it, or the database server crashed before the mark reached its
disk (see `_Marks`); its Message-ID stays the same, so mail systems can tell
it is the same notice.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import smtplib
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import (
    Date,
    DateTime,
    Integer,
    String,
    and_,
    bindparam,
    case,
    cast,
    delete,
    exists,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    text,
    union_all,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session, aliased, selectinload, sessionmaker
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement

from tracker.catalog.models import Credential
from tracker.db import utcnow, writing
from tracker.errors import ValidationError
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification, ExamPlan
from tracker.reminders import messages
from tracker.reminders.models import Notification, ReminderRun

EXPIRED = -1  # window_days of the notice sent after the expiry
DIGEST_HORIZON_DAYS = 90
# A sender holds a claimed row this long; after it, another sender may take it.
CLAIM_LEASE = dt.timedelta(minutes=10)
RETRY_BASE = dt.timedelta(minutes=5)
RETRY_CAP = dt.timedelta(hours=6)


# --- windows ----------------------------------------------------------------


@dataclass(frozen=True)
class Windows:
    """Days before expiry that open a reminder, most distant first; and who is copied."""

    before: tuple[int, ...] = (90, 60, 30, 7)
    # The expiry notice goes out from the day after expiry for this many days;
    # a certification that lapsed long before the tracker ran gets none.
    expired_grace_days: int = 30
    copy_manager_from: int = 30

    @property
    def widest(self) -> int:
        return max(self.before)


def parse_windows(text: str) -> Windows:
    """Read "90,60,30,7" into Windows; refuse anything but distinct positive day counts."""
    try:
        days = tuple(sorted({int(part) for part in text.split(",") if part.strip()}, reverse=True))
    except ValueError:
        days = ()
    if not days or any(d <= 0 or d > 3650 for d in days):
        raise ValidationError(
            {"windows": f"windows must be days before expiry like 90,60,30,7 (got {text!r})"}
        )
    return Windows(before=days)


def due_window(expires_on: dt.date, today: dt.date, windows: Windows) -> int | None:
    """Return the most urgent window due on `today`, or None.

    Windows are ranges: the 30-day window is due from 30 days before the
    expiry until the 7-day one opens, so a late pass still finds it; a pass
    after downtime gets the most urgent one only. EXPIRED from the day after.
    """
    left = (expires_on - today).days
    if left < 0:
        return EXPIRED if -left <= windows.expired_grace_days else None
    opened = [w for w in windows.before if left <= w]
    return min(opened) if opened else None


# --- the daily pass ---------------------------------------------------------
#
# The pass runs every day over every certification within reach of a window,
# and most days almost nothing is owed, so it asks the database for what is
# owed rather than reading what is in reach. A first statement takes the pass
# lock and reads what else is due (teams or a catalog to judge, the week's
# digests, whether an escalation may be owed); one INSERT ... SELECT then finds
# the owed reminders (the window computed in SQL, what is queued or
# acknowledged excluded there), and the escalations when any may be owed, and
# writes their rows; once a week the digests follow. Lapses are judged team by team only when a
# team's readiness revision moved since it was last judged (see
# tracker.readiness.models), and kept in lapse_impacts: a lapse's impact is
# judged on the day after the expiry, so it changes with the team's data, not
# with the passing days. Composing the messages (text, HTML, .ics) is a step of
# its own after the pass (`compose_pending`), so that the pass stays as cheap as
# the query that finds what is due.

TEAMS_PER_BATCH = 25
CERTIFICATIONS_PER_BATCH = 200


@dataclass
class PassReport:
    """What a pass queued: the notices themselves (unless `keep` is off) and counts by kind."""

    queued: list[Notification] = field(default_factory=list)
    keep: bool = True
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, notification: Notification) -> None:
        self.count_one(notification.kind)
        if self.keep:
            self.queued.append(notification)

    def count_one(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return sum(self.counts.values())
        return self.counts.get(kind, 0)


@dataclass(frozen=True)
class Mail:
    """What a pass needs to write links and addresses."""

    base_url: str
    domain: str

    def message_id(self, key: str) -> str:
        safe = key.replace(":", ".")
        return f"<{safe}.{uuid.uuid4().hex[:12]}@{self.domain}>"


@dataclass(frozen=True)
class Named:
    """A person in a digest line: what the digest shows of them."""

    id: int
    name: str


# The pass's statements are built once per set of windows, with the day's
# dates as bound parameters (`_day_params`): building a statement of this size
# costs more than running it on a quiet day.
TODAY = bindparam("today", type_=Date)


def _day_params(today: dt.date, windows: Windows) -> dict[str, object]:
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
    again on every pass cost as much as a round trip (issue 6).
    """
    if isinstance(value, int):
        return literal_column(str(int(value)), Integer)
    return literal_column("'" + value.replace("'", "''") + "'", String)


def _window_sql(windows: Windows):
    """`due_window` in SQL, for certifications within reach."""
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
    from tracker.catalog.models import Exam

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


_OwnManager = aliased(Engineer, name="own_manager")
_TeamManager = aliased(Engineer, name="team_manager")


def _owed_columns():
    """Columns of an owed certification: its holder, credential and managers' addresses."""
    return (
        Certification.id,
        Certification.engineer_id,
        Engineer.name,
        Engineer.email,
        Certification.credential_id,
        Credential.code,
        Certification.expires_on,
        Engineer.team_id,
        _OwnManager.id,
        _OwnManager.email,
        _TeamManager.id,
        _TeamManager.email,
    )


def _owed_from(query):
    return (
        query.join(Engineer, Engineer.id == Certification.engineer_id)
        .join(Credential, Credential.id == Certification.credential_id)
        .outerjoin(Team, Team.id == Engineer.team_id)
        .outerjoin(
            _OwnManager, and_(_OwnManager.id == Engineer.manager_id, _OwnManager.active.is_(True))
        )
        .outerjoin(
            _TeamManager, and_(_TeamManager.id == Team.manager_id, _TeamManager.active.is_(True))
        )
    )


@dataclass
class _Owed:
    """A certification that is owed a notice on the day, as plain values."""

    id: int
    engineer_id: int
    engineer_name: str
    email: str
    credential_id: int
    code: str
    expires_on: dt.date
    team_id: int | None
    managers: tuple[tuple[int, str], ...]
    impact: str | None = None

    @classmethod
    def of(cls, row) -> _Owed:
        cid, eid, name, email, credential, code, expires, team_id, m1, e1, m2, e2 = row[:12]
        managers: list[tuple[int, str]] = []
        for manager_id, address in ((m1, e1), (m2, e2)):
            if manager_id is not None and manager_id != eid and manager_id not in dict(managers):
                managers.append((manager_id, address))
        return cls(
            cid, eid, name, email, credential, code, expires, team_id, tuple(managers), *row[12:]
        )


def _insert_new(session: Session, rows: list[dict]) -> list[Notification]:
    """Insert the notices whose key is new (the unique key settles races); return those."""
    if not rows:
        return []
    statement = _dialect_insert(session, Notification).on_conflict_do_nothing()
    return list(session.scalars(statement.returning(Notification), rows))


def _dialect_insert(session: Session, entity):
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    return dialect_insert(entity)


def renew_steps(cert: Certification, open_courses: Sequence[str]) -> list[str]:
    """Say how to renew: which exam, and which path courses are still open."""
    exam = cert.credential.exam
    if exam is None:
        issuer = cert.credential.issuer or "the issuer"
        return [
            f"Renew {cert.credential.name} with {issuer} "
            "and record the new credential in the tracker with its evidence."
        ]
    steps = [
        f"Pass exam {exam.code} again before {cert.expires_on.isoformat()}; "
        "the new certification runs from the new pass date."
    ]
    if open_courses:
        steps.append("Courses still open on its path: " + ", ".join(open_courses) + ".")
    steps.append("Plan the exam date in the tracker to pause these reminders.")
    return steps


def _open_courses(paths, logged, cert: Certification) -> list[str]:
    """Name the open courses of the paths that end in the certification's exam."""
    from tracker.progress.services.paths import path_progress

    exam = cert.credential.exam
    if exam is None:
        return []
    return [
        f"{c.course.title} ({c.logged.normalize():f} of {c.required.normalize():f} h)"
        for path in paths
        if path.exam_id == exam.id
        for c in path_progress(path, logged).open_courses
    ]


def _midnight(day: dt.date) -> dt.datetime:
    """Return when a notice queued on `day` becomes due: at once, in every time zone.

    `day` is the deployment's local date; the sender compares in UTC. The start
    of the day before is earlier than "now" wherever the deployment runs.
    """
    return dt.datetime.combine(day - dt.timedelta(days=1), dt.time())


def _queued_on(notification: Notification) -> dt.date:
    """Return the day the pass queued a notice for (see `_midnight`); composing reads it."""
    return notification.next_attempt_at.date() + dt.timedelta(days=1)


def plan(
    session: Session,
    today: dt.date,
    windows: Windows,
    mail: Mail,
    *,
    keep: bool = True,
    compose: bool = True,
) -> PassReport:
    """Queue every notice due on `today`: reminders, expiry notices, escalations, digests.

    Writes outbox rows only (flushes); the caller commits, and the sender
    delivers after the commit. With `keep` off the report counts the notices
    without holding them (the scheduler's way: its memory stays flat). With
    `compose` off the reminders are queued without their text, for
    `compose_pending` to write after the commit (the scheduler's way too: the
    pass then costs about what finding the due certifications costs).
    """
    report = PassReport(keep=keep)
    state = _PassState.read(session, today, windows)
    judged = 0
    if state.stale_teams or not state.catalog_judged:
        judged = judge_lapses(session, today, windows, every_team=not state.catalog_judged)
        if not state.catalog_judged and state.catalog_stamp is not None:
            _mark_run(session, "catalog", state.catalog_stamp)
    escalations = state.escalations_due or judged > 0
    queued = _queue_reminders(session, report, today, windows, mail, keep or compose, escalations)
    if not state.digested:
        _queue_digests(session, report, today, state.week, mail)
        _mark_run(session, "digest", state.week)
    if compose:
        compose_notices(session, queued, mail)
    return report


# Passes take this transaction lock on PostgreSQL (SQLite's writers are serial
# already), with the pass's first statement: what one pass queued is committed
# before the next one queues, so "not queued yet" in SQL is enough and a notice
# is never queued twice. The unique keys stay as the last guard. (The state
# read with the lock may predate a pass that held it; what it leads to is
# redone harmlessly: judging again, or digests that the unique keys refuse.)
PASS_LOCK_KEY = 0x7061_7373  # "pass"


@dataclass(frozen=True)
class _PassState:
    """What the pass must do besides the reminders, read in one query."""

    week: str
    catalog_stamp: str | None
    catalog_judged: bool
    digested: bool
    stale_teams: bool
    escalations_due: bool

    @classmethod
    def read(cls, session: Session, today: dt.date, windows: Windows) -> _PassState:
        year, week, _ = today.isocalendar()
        week_key = f"{year}-W{week:02d}"
        connection = session.connection()
        params = {"week": week_key, **_day_params(today, windows)}
        row = connection.execute(_state_statement(connection.dialect.name), params).one()
        catalog_stamp, catalog_judged, digested, stale, escalations = row[-5:]
        return cls(
            week_key,
            catalog_stamp,
            bool(catalog_judged) or catalog_stamp is None,
            bool(digested),
            bool(stale),
            bool(escalations),
        )


@functools.cache
def _state_statement(dialect: str):
    from tracker.catalog.models import CatalogVersion
    from tracker.readiness.models import LapseImpact

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
    )


def _mark_run(session: Session, kind: str, period: str) -> None:
    """Record that the pass did its `kind` work for `period` (a concurrent pass may have too)."""
    session.execute(
        _dialect_insert(session, ReminderRun)
        .on_conflict_do_nothing()
        .values(kind=kind, period=period, created_at=utcnow())
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


def _queue_reminders(
    session: Session,
    report: PassReport,
    today: dt.date,
    windows: Windows,
    mail: Mail,
    keep: bool,
    escalations: bool,
) -> list[Notification]:
    """Queue the reminders and expiry notices owed on `today`, without their text, in one statement.

    Owed: the certification's current window has not been queued yet and no
    plan acknowledges it (an expiry notice cannot be acknowledged). The
    statement finds them and writes their rows (subject, recipients, key)
    itself: a day's pass reads and writes only what is owed. With
    `escalations`, the same statement does it for the escalations owed too
    (the pass knows whether any may be). With `keep`, the rows are returned
    as entities.
    """
    params = {
        **_day_params(today, windows),
        # Unique: the key is, and the pass's own random part tells passes apart.
        "message_id_end": f".{uuid.uuid4().hex[:12]}@{mail.domain}>",
        "next_attempt_at": _midnight(today),
        "created_at": utcnow(),
    }
    connection = session.connection()
    inserted = connection.execute(_reminders_statement(windows, escalations), params).all()
    if not keep:
        for _, kind_queued in inserted:
            report.count_one(kind_queued)
        return []
    notifications = list(
        session.scalars(
            select(Notification)
            .where(Notification.id.in_([row_id for row_id, _ in inserted]))
            .order_by(Notification.id)
        )
    )
    for notification in notifications:
        report.add(notification)
    return notifications


@functools.cache
def _reminders_statement(windows: Windows, escalating: bool = False):
    """INSERT ... SELECT of the reminders and expiry notices owed (see `_queue_reminders`),
    and with `escalating` of the escalations owed too."""
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
    kind = case((expired, _const("expired")), else_=_const("reminder"))
    key = kind + _const(":") + _text(_C.id) + _const(":") + _text(window)
    subject = case(
        (expired, code + _const(" expired on ") + expires),
        else_=code
        + _const(" expires in ")
        + _text(left)
        + case((left == _const(1), _const(" day (")), else_=_const(" days ("))
        + expires
        + _const(")"),
    )
    # The managers' addresses are read for the owed rows only (subqueries in
    # the select list), not joined for every certification in reach.
    manager = aliased(Engineer, name="m")
    own = (
        select(manager.email)
        .where(manager.id == _E.manager_id, manager.active.is_(True))
        .where(manager.id != _E.id)
        .scalar_subquery()
    )
    # The team's manager, unless they are the engineer's own manager (copied once).
    theirs = (
        select(manager.email)
        .select_from(Team)
        .join(manager, manager.id == Team.manager_id)
        .where(Team.id == _E.team_id, manager.active.is_(True))
        .where(manager.id != _E.id, manager.id.is_distinct_from(_E.manager_id))
        .scalar_subquery()
    )
    # Copied from the copy window on.
    copy = or_(expired, _C.expires_on <= bindparam("copy_to", type_=Date))
    separator = case((own.is_(None), _const("")), else_=_const(", "))
    cc = case(
        (copy, func.coalesce(own, _const("")) + func.coalesce(separator + theirs, _const(""))),
        else_=_const(""),
    )
    message_id_end = bindparam("message_id_end", type_=String)
    fixed = (
        _const(""),  # body_html, until composed
        _const("pending"),
        _const(0),
        bindparam("next_attempt_at", type_=DateTime),
        bindparam("created_at", type_=DateTime),
    )
    reminders = (
        select(
            key,
            kind,
            _C.id,
            window,
            _C.engineer_id,
            _E.email,
            cc,
            subject,
            _const("<")
            + kind
            + _const(".")
            + _text(_C.id)
            + _const(".")
            + _text(window)
            + message_id_end,
            *fixed,
        )
        .select_from(_C)
        .join(_E, _E.id == _C.engineer_id)
        .where(*_in_reach(), ~queued, or_(expired, ~_acknowledged_sql()))
    )
    # Escalations: lapses known to drop readiness (lapse_impacts, judged at the
    # team's current revision), before the expiry, not escalated yet and not
    # acknowledged; to the managers (the engineer when they have none), the
    # engineer copied.
    from tracker.readiness.models import LapseImpact

    escalated = exists().where(Notification.dedupe_key == _escalation_key(LapseImpact))
    managers = func.coalesce(own, _const("")) + func.coalesce(separator + theirs, _const(""))
    no_manager = and_(own.is_(None), theirs.is_(None))
    escalations = (
        select(
            _escalation_key(LapseImpact),
            _const("escalation"),
            _C.id,
            null(),
            _C.engineer_id,
            case((no_manager, _E.email), else_=managers),
            case((no_manager, _const("")), else_=_E.email),
            _const("Escalation: ")
            + _E.name
            + _const("'s ")
            + code
            + _const(" lapses on ")
            + expires
            + _const(" and readiness drops"),
            _const("<escalation.") + _text(_C.id) + message_id_end,
            *fixed,
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
    table = Notification.__table__
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
                "body_html",
                "status",
                "attempts",
                "next_attempt_at",
                "created_at",
            ],
            union_all(reminders, escalations) if escalating else reminders,
        )
        .returning(table.c.id, table.c.kind)
    )


# --- composing ----------------------------------------------------------------


def compose_notices(session: Session, notifications: Sequence[Notification], mail: Mail) -> None:
    """Write the text, HTML (and .ics) of the reminders, expiry notices and escalations
    queued without them."""
    from tracker.progress.services.paths import logged_hours_for, paths_with_courses
    from tracker.readiness.models import LapseImpact

    todo = [n for n in notifications if n.body_text is None and n.certification_id is not None]
    if not todo:
        return
    paths = paths_with_courses(session)
    for start in range(0, len(todo), CERTIFICATIONS_PER_BATCH):
        batch = todo[start : start + CERTIFICATIONS_PER_BATCH]
        certs = {
            c.id: c
            for c in session.scalars(
                select(Certification)
                .where(Certification.id.in_({n.certification_id for n in batch}))
                .options(
                    selectinload(Certification.credential).selectinload(Credential.exam),
                    selectinload(Certification.engineer).selectinload(Engineer.team),
                )
            )
        }
        logged = logged_hours_for(session, {n.engineer_id for n in batch})
        escalated = [n.certification_id for n in batch if n.kind == "escalation"]
        impacts = dict(
            session.execute(
                select(LapseImpact.certification_id, LapseImpact.impact).where(
                    LapseImpact.certification_id.in_(escalated)
                )
            )
            .tuples()
            .all()
            if escalated
            else ()
        )
        for notification in batch:
            cert = certs[notification.certification_id]
            if notification.kind == "escalation":
                impact = impacts.get(cert.id, "")
                _compose_escalation(notification, cert, mail, impact)
            else:
                courses = _open_courses(paths, logged.get(cert.engineer_id, {}), cert)
                _compose_reminder(notification, cert, mail, courses)
    session.flush()


def compose_pending(factory: sessionmaker[Session], mail: Mail) -> int:
    """Compose every pending notice still without its text, a batch per transaction."""
    composed = 0
    while True:
        with writing(), factory() as session, session.begin():
            batch = list(
                session.scalars(
                    select(Notification)
                    .where(Notification.body_text.is_(None), Notification.status == "pending")
                    .order_by(Notification.id)
                    .limit(CERTIFICATIONS_PER_BATCH)
                )
            )
            if not batch:
                return composed
            compose_notices(session, batch, mail)
            composed += len(batch)


def _compose_reminder(
    notification: Notification, cert: Certification, mail: Mail, open_courses: Sequence[str]
) -> None:
    engineer = cert.engineer
    today = _queued_on(notification)
    link = f"{mail.base_url.rstrip('/')}/dashboard"
    notification.body_text, notification.body_html = messages.render(
        "reminder",
        kind=notification.kind,
        engineer=engineer,
        credential=cert.credential,
        expires_on=cert.expires_on,
        days_left=(cert.expires_on - today).days,
        link=link,
        renew_steps=renew_steps(cert, open_courses),
    )
    notification.ics = messages.expiry_calendar(
        f"cert-{cert.id}@{mail.domain}",
        f"{cert.credential.code} expires",
        f"{engineer.name}'s {cert.credential.name} is valid through this day.",
        cert.expires_on,
        link,
        stamp=cert.created_at,
    )


# --- readiness impact, escalation and digest --------------------------------


def lapse_impact(
    team: Team,
    members: Sequence,
    templates: Sequence,
    certification_id: int,
    engineer_id: int,
    after: dt.date,
) -> str:
    """Return how the team's readiness on `after` drops because a certification lapses.

    Compared with the same team in which the certification never expires.
    Only its holder differs between the two, so unless the holder fits a slot
    thanks to it, no seat changes and the matchings need not be run.
    """
    from tracker.readiness.services import (
        HeldCertification,
        Member,
        SlotNeeds,
        choose_template,
        readiness,
    )

    if not templates:
        return ""
    member = next((m for m in members if m.id == engineer_id), None)
    cert = None
    if member is not None:
        cert = next((c for c in member.certifications if c.id == certification_id), None)
    if member is None or cert is None:
        return ""
    kept_cert = HeldCertification(
        cert.id, cert.engineer_id, cert.credential_id, cert.earned_on, None, cert.credential
    )
    kept = Member(
        member.engineer,
        tuple(kept_cert if c.id == cert.id else c for c in member.certifications),
    )
    template = choose_template(templates, team.gpus)
    reasons = []
    if any(
        needs.met_by(kept, after) != needs.met_by(member, after)
        for needs in (SlotNeeds.of(slot) for slot in template.slots)
    ):
        lapsed_result = readiness(team, members, templates, after, candidates=False)
        kept_result = readiness(
            team,
            [kept if m.id == engineer_id else m for m in members],
            templates,
            after,
            candidates=False,
        )
        if kept_result.filled > lapsed_result.filled:
            reasons.append(
                f"{kept_result.filled - lapsed_result.filled} seat(s) no one else can fill "
                f"({lapsed_result.filled}/{lapsed_result.total} instead of "
                f"{kept_result.filled}/{kept_result.total})"
            )
    for credential in template.team_credentials:
        wanted = credential.satisfying_ids()
        if kept.holds(wanted, after) and not any(m.holds(wanted, after) for m in members):
            reasons.append(f"the team loses its last valid {credential.code}")
    return "; ".join(reasons)


def judge_lapses(
    session: Session, today: dt.date, windows: Windows, *, every_team: bool = False
) -> int:
    """Judge the lapses of teams whose readiness moved since last judged; return how many teams.

    `every_team` judges them all (the catalog changed). A team's certifications
    are judged from the expiry grace period on, in whatever year they expire,
    so a certification coming into reach later finds its judgement waiting.
    """
    from tracker.readiness.models import LapseImpact
    from tracker.readiness.services import load_members, load_templates

    stale = select(Team.id, Team.readiness_revision).order_by(Team.id)
    if not every_team:
        stale = stale.where(Team.readiness_revision != Team.judged_revision)
    teams = session.execute(stale).all()
    if teams:
        templates = load_templates(session)
        since = today - dt.timedelta(days=windows.expired_grace_days)
        for start in range(0, len(teams), TEAMS_PER_BATCH):
            batch = dict(teams[start : start + TEAMS_PER_BATCH])
            entities = {t.id: t for t in session.scalars(select(Team).where(Team.id.in_(batch)))}
            members = load_members(session, batch) if templates else {}
            found = [
                {
                    "certification_id": cert.id,
                    "team_id": team_id,
                    "expires_on": cert.expires_on,
                    "impact": impact,
                }
                for team_id in batch
                for member in members.get(team_id, [])
                for cert in member.certifications
                if cert.expires_on is not None and cert.expires_on >= since
                for impact in [
                    lapse_impact(
                        entities[team_id],
                        members[team_id],
                        templates,
                        cert.id,
                        member.id,
                        cert.expires_on + dt.timedelta(days=1),
                    )
                ]
                if impact
            ]
            table = LapseImpact.__table__
            connection = session.connection()
            connection.execute(
                delete(table).where(
                    or_(
                        table.c.team_id.in_(batch),
                        table.c.certification_id.in_([f["certification_id"] for f in found]),
                    )
                )
            )
            if found:
                connection.execute(insert(table), found)
            # The revision read, not the current one: a change made meanwhile
            # leaves the team to be judged again by the next pass.
            teams_table = Team.__table__
            connection.execute(
                update(teams_table)
                .where(teams_table.c.id == bindparam("team"))
                .values(judged_revision=bindparam("revision")),
                [{"team": team_id, "revision": revision} for team_id, revision in batch.items()],
            )
    return len(teams)


def _compose_escalation(
    notification: Notification, cert: Certification, mail: Mail, impact: str
) -> None:
    engineer = cert.engineer
    link = f"{mail.base_url.rstrip('/')}/teams/{engineer.team_id}"
    notification.body_text, notification.body_html = messages.render(
        "reminder",
        kind="escalation",
        engineer=engineer,
        credential=cert.credential,
        expires_on=cert.expires_on,
        days_left=(cert.expires_on - _queued_on(notification)).days,
        link=link,
        # The team changed since the pass found the drop: the drop was real then.
        impact=impact or "its team's readiness drops",
        team_name=engineer.team.name if engineer.team else "the team",
        renew_steps=renew_steps(cert, ()),
    )


@dataclass(frozen=True)
class DigestItem:
    engineer: Named
    credential: Credential
    expires_on: dt.date
    days_left: int
    impact: str


def _queue_digests(
    session: Session, report: PassReport, today: dt.date, week_key: str, mail: Mail
) -> None:
    """Queue, at the week's first pass, one digest per manager of their people's expiries.

    A digest lists the certifications expiring within DIGEST_HORIZON_DAYS and
    what each lapse does to readiness. The week is the ISO week.
    """
    from tracker.readiness.models import LapseImpact

    newer = aliased(Certification)
    rows = session.execute(
        _owed_from(select(*_owed_columns(), LapseImpact.impact))
        .outerjoin(
            LapseImpact,
            and_(
                LapseImpact.certification_id == Certification.id,
                LapseImpact.team_id == Engineer.team_id,
            ),
        )
        .where(
            Engineer.active.is_(True),
            Certification.expires_on >= today,
            Certification.expires_on <= today + dt.timedelta(days=DIGEST_HORIZON_DAYS),
            ~exists().where(newer.renews_id == Certification.id),
            or_(_OwnManager.id.is_not(None), _TeamManager.id.is_not(None)),
        )
        .order_by(Certification.expires_on, Certification.id)
    ).all()
    owed = [o for o in map(_Owed.of, rows) if o.managers]
    credentials = {
        c.id: c
        for c in session.scalars(
            select(Credential).where(Credential.id.in_({o.credential_id for o in owed}))
        )
    }
    by_manager: dict[int, list[DigestItem]] = {}
    for o in owed:
        item = DigestItem(
            Named(o.engineer_id, o.engineer_name),
            credentials[o.credential_id],
            o.expires_on,
            (o.expires_on - today).days,
            o.impact or "",
        )
        for manager_id, _ in o.managers:
            by_manager.setdefault(manager_id, []).append(item)
    managers = {
        m.id: m
        for start in range(0, len(by_manager), CERTIFICATIONS_PER_BATCH)
        for m in session.scalars(
            select(Engineer).where(
                Engineer.id.in_(list(by_manager)[start : start + CERTIFICATIONS_PER_BATCH])
            )
        )
    }
    rows = []
    for manager_id, items in by_manager.items():
        manager = managers[manager_id]
        key = f"digest:{manager.id}:{week_key}"
        text, html = messages.render(
            "digest",
            manager=manager,
            items=items,
            today=today,
            horizon=DIGEST_HORIZON_DAYS,
            link=f"{mail.base_url.rstrip('/')}/teams",
        )
        rows.append(
            {
                "dedupe_key": key,
                "kind": "digest",
                "certification_id": None,
                "window_days": None,
                "engineer_id": manager.id,
                "to_addrs": manager.email,
                "cc_addrs": "",
                "subject": f"Weekly digest: {len(items)} certification(s) expiring within "
                f"{DIGEST_HORIZON_DAYS} days",
                "body_text": text,
                "body_html": html,
                "ics": None,
                "message_id": mail.message_id(key),
                "next_attempt_at": _midnight(today),
            }
        )
    for notification in _insert_new(session, rows):
        report.add(notification)


# --- delivery ---------------------------------------------------------------


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    mail_from: str
    username: str = ""
    password: str = ""
    starttls: bool = False
    timeout: float = 10.0


@dataclass
class DeliveryReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0
    skipped: int = 0


class _ConnectionLost(Exception):
    """The SMTP connection is gone; the rest of the batch waits for the next run."""


def _code_of(exc: BaseException) -> int | None:
    code = getattr(exc, "smtp_code", None)
    return code if isinstance(code, int) else None


def _backoff(attempts: int) -> dt.timedelta:
    return min(RETRY_BASE * (2 ** max(attempts - 1, 0)), RETRY_CAP)


# The columns a sender reads from the rows it claims: plain rows, not entities.
_OUTBOX = Notification.__table__
_CLAIMED = (
    _OUTBOX.c.id,
    _OUTBOX.c.kind,
    _OUTBOX.c.certification_id,
    _OUTBOX.c.to_addrs,
    _OUTBOX.c.cc_addrs,
    _OUTBOX.c.subject,
    _OUTBOX.c.body_text,
    _OUTBOX.c.body_html,
    _OUTBOX.c.ics,
    _OUTBOX.c.message_id,
    _OUTBOX.c.attempts,
)


def _claim(
    factory: sessionmaker[Session],
    worker: str,
    now: dt.datetime,
    batch: int,
    force: bool,
    skip: set[int],
) -> tuple[list, set[int]]:
    """Take up to `batch` due rows for this worker, atomically; commit the claim.

    Return the rows (in id order) and which of their certifications were renewed
    since they were queued, read in the claim's transaction: one round trip for
    the claim and its rows (UPDATE ... RETURNING), one for the renewals.
    """
    with writing(), factory() as session, session.begin():
        due = select(_OUTBOX.c.id).where(
            # As the queue's index (ix_notifications_due) holds them.
            _OUTBOX.c.status.in_(("pending", "sending")),
            # Not before it is composed (`compose_pending`): there is nothing to send yet.
            _OUTBOX.c.body_text.is_not(None),
        )
        if force:
            # `tracker remind` sends every pending row now, back-off notwithstanding,
            # but never takes a row another sender holds.
            due = due.where(or_(_OUTBOX.c.status == "pending", _OUTBOX.c.next_attempt_at <= now))
        else:
            due = due.where(_OUTBOX.c.next_attempt_at <= now)
        if skip:
            due = due.where(_OUTBOX.c.id.not_in(skip))
        due = due.order_by(_OUTBOX.c.next_attempt_at, _OUTBOX.c.id).limit(batch)
        if session.get_bind().dialect.name == "postgresql":
            due = due.with_for_update(skip_locked=True)
            # Read the queue index in order and stop at the batch: every notice
            # leaves dead entries in it (claimed, then marked) until a vacuum,
            # and only an index scan marks them dead as it passes them. A bitmap
            # scan, which the planner likes for a short queue, visits each dead
            # row again at every claim: after a day's thousands of notices
            # (issue 6) a claim took 8-40 ms instead of 2.
            session.execute(text("SET LOCAL enable_bitmapscan = off"))
        rows = session.execute(
            update(_OUTBOX)
            .where(_OUTBOX.c.id.in_(due.scalar_subquery()))
            .values(status="sending", claimed_by=worker, next_attempt_at=now + CLAIM_LEASE)
            .returning(*_CLAIMED)
        ).all()
        rows.sort(key=lambda r: r.id)
        return rows, _superseded(session, rows)


class _Marks:
    """Where a batch records each row's outcome as it goes: one commit per row.

    A row's mark commits before the next message's DATA, so a sender that dies
    sends at most one message again (the one it was sending, with its
    Message-ID). `submit` starts a mark and returns; `wait` returns once it
    has committed, or raises its error; the SMTP connection waits before each
    DATA (`_Smtp.before_data`). So the mark's round trip to the database runs
    while the next message is built and its MAIL and RCPT are answered,
    instead of adding to every message's time.

    Marks run on a connection of their own, taken out of the pool (its
    settings die with it), which commits without waiting for the disk. On
    PostgreSQL it is in pipeline mode: `submit` sends the mark's UPDATE and
    returns, the server runs it meanwhile, and `wait` collects its result
    (commit included: one autocommit statement, `synchronous_commit` off).
    On a SQLite file, marks run one at a time in a thread of their own, in
    WAL mode with `synchronous = NORMAL` (a writer's transaction,
    `writing()`). Such a commit is seen by every other sender at once and
    survives the sender's crash; only a crash of the database server or its
    machine can forget marks, and only the latest: the next durable commit
    (each claim is one) makes every earlier mark durable too, and
    PostgreSQL's WAL writer does within a second. A forgotten mark's row
    stays claimed and is sent again, with the same Message-ID, after the
    lease. Bound to a caller's connection (the tests'), marks run in line, a
    session committing after each.
    """

    def __init__(self, factory: sessionmaker[Session]) -> None:
        bind = factory.kw.get("bind")
        self.factory = factory
        self.engine = None
        self.connection = None  # opened at the first mark
        self.pipeline = None  # PostgreSQL's, entered at the first mark
        self.in_pipeline = contextlib.ExitStack()
        self.pending = None
        self.marked = False  # the thread starts at the first mark
        self.thread = None
        if isinstance(bind, Engine) and bind.dialect.name == "postgresql":
            self.engine = bind
        # Not an in-memory SQLite database: another thread would get another one.
        elif isinstance(bind, Engine) and bind.url.database not in (None, "", ":memory:"):
            from concurrent.futures import ThreadPoolExecutor

            self.engine = bind
            self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="outbox-marks")

    def submit(self, statement, params: dict) -> None:
        self.wait()
        if self.engine is None:
            with writing(), self.factory() as session:
                session.connection().execute(statement, params)
                session.commit()
        elif self.thread is None:
            if self.connection is None:
                self.connection = self._connect()
                raw = self.connection.connection.dbapi_connection
                self.pipeline = self.in_pipeline.enter_context(raw.pipeline())
            # The driver's own connection, with the statement compiled once: a
            # mark is one small UPDATE, and SQLAlchemy's execution machinery
            # cost more than the database's work (issue 6).
            sql, compiled = _compiled_marks(statement, self.engine.dialect)
            self.connection.connection.dbapi_connection.execute(
                sql, compiled.construct_params(params)
            )
            self.pending = self.pipeline
        else:
            self.pending = self.thread.submit(self._mark, statement, params)
            self.marked = True

    def wait(self) -> None:
        pending, self.pending = self.pending, None
        if pending is None:
            return
        try:
            if pending is self.pipeline:
                pending.sync()
            else:
                pending.result()
        except (OSError, smtplib.SMTPException) as exc:
            # Never to be taken for an SMTP failure by the sending code.
            raise RuntimeError(f"marking an outbox row failed: {exc}") from exc

    def _mark(self, statement, params: dict) -> None:
        # In the marks' thread: the connection is only ever used there.
        if self.connection is None:
            self.connection = self._connect()
        with writing(), self.connection.begin():
            self.connection.execute(statement, params)

    def _connect(self):
        engine = self.engine
        connection = engine.connect()
        try:
            if engine.dialect.name == "postgresql":
                connection = connection.execution_options(isolation_level="AUTOCOMMIT")
                connection.detach()
                connection.exec_driver_sql("SET synchronous_commit TO OFF")
            elif engine.dialect.name == "sqlite":
                connection.detach()
                # Outside any transaction (SQLite refuses the setting inside one).
                raw = connection.connection.dbapi_connection
                if raw.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                    raw.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            connection.close()
            raise
        return connection

    def _disconnect(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def close(self) -> None:
        """Wait for the last mark (raising its error); then let the thread and connection go."""
        try:
            self.wait()
        finally:
            if self.thread is not None:
                if self.marked:
                    self.thread.submit(self._disconnect)
                self.thread.shutdown(wait=True)
            elif self.connection is not None:
                try:
                    self.in_pipeline.close()
                finally:
                    self._disconnect()


# One mark statement per set of columns an outcome writes, built once: building
# and keying a new statement for every message cost more than running it.
_MARK_STATEMENTS: dict[tuple[str, ...], object] = {}


def _mark_statement(columns: tuple[str, ...]):
    statement = _MARK_STATEMENTS.get(columns)
    if statement is None:
        from sqlalchemy import bindparam

        statement = (
            update(_OUTBOX)
            .where(
                _OUTBOX.c.id == bindparam("row_id"),
                _OUTBOX.c.claimed_by == bindparam("worker"),
                _OUTBOX.c.status == "sending",
            )
            .values(
                claimed_by=None,
                **{c: bindparam(f"new_{c}", type_=_OUTBOX.c[c].type) for c in columns},
            )
        )
        _MARK_STATEMENTS[columns] = statement
    return statement


_COMPILED_MARKS: dict[object, tuple[str, object]] = {}


def _compiled_marks(statement, dialect) -> tuple[str, object]:
    """Return a mark statement's SQL for the driver, and its compiled form (for its binds)."""
    found = _COMPILED_MARKS.get(statement)
    if found is None:
        compiled = statement.compile(dialect=dialect)
        found = _COMPILED_MARKS[statement] = (compiled.string, compiled)
    return found


def _finish(marks: _Marks, row, worker: str, now: dt.datetime, **values) -> None:
    """Record a row's outcome if this worker still holds it; it commits before the next DATA."""
    params = {f"new_{column}": value for column, value in values.items()}
    params.update(row_id=row.id, worker=worker)
    marks.submit(_mark_statement(tuple(values)), params)


def _retry(marks: _Marks, row, worker: str, now: dt.datetime, error: str, report):
    attempts = row.attempts + 1
    _finish(
        marks,
        row,
        worker,
        now,
        status="pending",
        attempts=attempts,
        next_attempt_at=now + _backoff(attempts),
        last_error=error[:2000],
    )
    report.retried += 1


def deliver(
    factory: sessionmaker[Session],
    settings: SmtpSettings,
    now: dt.datetime,
    *,
    force: bool = False,
    batch: int = 100,
    worker: str | None = None,
) -> DeliveryReport:
    """Send due outbox rows over SMTP, one connection per batch, marking each as it goes.

    Every row's mark has committed when this returns (or raises).
    """
    worker = worker or f"{socket.gethostname()}:{uuid.uuid4().hex[:8]}"
    report = DeliveryReport()
    seen: set[int] = set()
    with contextlib.closing(_Marks(factory)) as marks:
        while True:
            marks.wait()
            rows, renewed = _claim(factory, worker, now, batch, force, seen)
            if not rows:
                return report
            seen.update(r.id for r in rows)
            try:
                smtp = _connect(settings)
            except (OSError, smtplib.SMTPException) as exc:
                for row in rows:
                    _retry(marks, row, worker, now, f"cannot connect: {_describe(exc)}", report)
                return report
            smtp.before_data = marks.wait
            try:
                for index, row in enumerate(rows):
                    try:
                        _send_one(marks, smtp, settings, row, worker, now, report, renewed)
                    except _ConnectionLost as lost:
                        for rest in rows[index:]:
                            _retry(marks, rest, worker, now, str(lost), report)
                        return report
            finally:
                try:
                    smtp.quit()
                except (OSError, smtplib.SMTPException):
                    smtp.close()


class _Smtp(smtplib.SMTP):
    """An SMTP connection that calls `before_data` before each message's DATA."""

    before_data = None

    def data(self, msg):
        if self.before_data is not None:
            self.before_data()
        return super().data(msg)


def _connect(settings: SmtpSettings) -> _Smtp:
    smtp = _Smtp(settings.host, settings.port, timeout=settings.timeout)
    try:
        smtp.ehlo()
        if settings.starttls:
            smtp.starttls()
            smtp.ehlo()
        if settings.username:
            smtp.login(settings.username, settings.password)
    except BaseException:
        smtp.close()
        raise
    return smtp


def _describe(exc: BaseException) -> str:
    code = _code_of(exc)
    detail = getattr(exc, "smtp_error", b"")
    if isinstance(detail, bytes):
        detail = detail.decode(errors="replace")
    if code is not None:
        return f"{code} {detail}".strip()
    return f"{type(exc).__name__}: {exc}"


def _superseded(session: Session, rows: Sequence) -> set[int]:
    """Return which of the rows' certifications were renewed since they were queued.

    One read for the batch, in its claim, just before it is sent (no lock held while sending).
    """
    ids = {
        r.certification_id for r in rows if r.certification_id is not None and r.kind != "digest"
    }
    if not ids:
        return set()
    newer = Certification.__table__
    return set(
        session.execute(select(newer.c.renews_id).where(newer.c.renews_id.in_(ids))).scalars()
    )


def _send_one(marks, smtp, settings, row, worker, now, report, renewed: set[int]) -> None:
    if row.certification_id in renewed and row.kind != "digest":
        # "A renewed certification stops all further reminders for the older one",
        # also those queued before the renewal and still waiting for SMTP.
        _finish(
            marks,
            row,
            worker,
            now,
            status="skipped",
            last_error="not sent: the certification was renewed before delivery",
        )
        report.skipped += 1
        return
    to = [a.strip() for a in row.to_addrs.split(",") if a.strip()]
    cc = [a.strip() for a in row.cc_addrs.split(",") if a.strip()]
    message = messages.build_email(
        mail_from=settings.mail_from,
        to=to,
        cc=cc,
        subject=row.subject,
        text=row.body_text,
        html=row.body_html,
        message_id=row.message_id,
        ics=row.ics,
    )
    try:
        refused = smtp.send_message(message, from_addr=settings.mail_from, to_addrs=to + cc)
    except smtplib.SMTPRecipientsRefused as exc:
        # Every recipient refused: permanent only if every refusal is a 5xx.
        codes = [code for code, _ in exc.recipients.values()]
        detail = "; ".join(
            f"{addr}: {code} {msg.decode(errors='replace')}"
            for addr, (code, msg) in exc.recipients.items()
        )
        if codes and all(500 <= c < 600 for c in codes):
            _finish(
                marks,
                row,
                worker,
                now,
                status="failed",
                attempts=row.attempts + 1,
                last_error=detail[:2000],
            )
            report.failed += 1
        else:
            _retry(marks, row, worker, now, detail, report)
        return
    except (smtplib.SMTPException, OSError) as exc:
        # Classified by the server's reply code, not by exception class (every
        # SMTPException is an OSError): no code means the connection broke.
        code = _code_of(exc)
        if code is None or code == 421:
            # Refused, timed out, dropped, or 421 "closing": the rest of the batch waits.
            raise _ConnectionLost(f"connection lost: {_describe(exc)}") from exc
        if 500 <= code < 600:
            _finish(
                marks,
                row,
                worker,
                now,
                status="failed",
                attempts=row.attempts + 1,
                last_error=_describe(exc)[:2000],
            )
            report.failed += 1
        else:
            _retry(marks, row, worker, now, _describe(exc), report)
        return
    # Accepted for at least one recipient: sent. Those refused alone are noted,
    # not retried, so the others never get the notice twice.
    note = (
        "; ".join(
            f"{addr}: {code} {msg.decode(errors='replace')}"
            for addr, (code, msg) in refused.items()
        )
        or None
    )
    _finish(
        marks,
        row,
        worker,
        now,
        status="sent",
        sent_at=now,
        attempts=row.attempts + 1,
        last_error=f"refused: {note}" if note else None,
    )
    report.sent += 1


def retry_failed(session: Session, notification: Notification, now: dt.datetime) -> None:
    """Put a failed row back in the queue (an admin's retry)."""
    if notification.status != "failed":
        raise ValidationError({"status": "only a failed notice can be retried"})
    notification.status = "pending"
    notification.next_attempt_at = now
    session.flush()
