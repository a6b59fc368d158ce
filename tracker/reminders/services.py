"""Renewal reminders (DOMAIN.md section 9): the daily pass, the outbox and SMTP delivery.

The pass decides what is due and writes one outbox row per notice in the same
transaction; a unique key per (certification, window) means a notice can be
queued once, ever. The sender claims rows, sends them over one SMTP
connection per batch and marks each one; a row is never lost, and a row is
sent again only when a sender died between sending and marking it (its
Message-ID stays the same, so mail systems can tell it is the same notice).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import smtplib
import socket
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import exists, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased, selectinload, sessionmaker

from tracker.catalog.models import Credential
from tracker.db import writing
from tracker.errors import ValidationError
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification, ExamPlan
from tracker.reminders import messages
from tracker.reminders.models import Notification

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
# The pass runs every day over every certification that is within reach of a
# window, so it reads them as plain rows (one query), learns in a few more
# queries what is queued already and which renewals are planned, judges the
# readiness impact team by team (a bounded number of teams at a time, so its
# memory does not grow with the organisation) and loads entities only for
# the notices it writes.

TEAMS_PER_BATCH = 25
CERTIFICATIONS_PER_BATCH = 200


@dataclass
class PassReport:
    """What a pass queued: the notices themselves (unless `keep` is off) and counts by kind."""

    queued: list[Notification] = field(default_factory=list)
    keep: bool = True
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, notification: Notification) -> None:
        self.counts[notification.kind] = self.counts.get(notification.kind, 0) + 1
        if self.keep:
            self.queued.append(notification)

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


def _in_reach(today: dt.date, windows: Windows) -> tuple:
    """Criteria of the certifications that count (not renewed) and expire within reach."""
    newer = aliased(Certification)
    return (
        Engineer.active.is_(True),
        Certification.expires_on.is_not(None),
        Certification.expires_on >= today - dt.timedelta(days=windows.expired_grace_days),
        Certification.expires_on <= today + dt.timedelta(days=windows.widest),
        ~exists().where(newer.renews_id == Certification.id),
    )


def _in_reach_ids(today: dt.date, windows: Windows):
    return (
        select(Certification.id)
        .join(Engineer, Engineer.id == Certification.engineer_id)
        .where(*_in_reach(today, windows))
    )


@dataclass(frozen=True)
class Named:
    """A person in a digest line: what the digest shows of them."""

    id: int
    name: str


@dataclass
class _Due:
    """A certification within reach of a window, as plain values, and what the pass owes it."""

    id: int
    engineer_id: int
    engineer_name: str
    credential_id: int
    expires_on: dt.date
    team_id: int | None
    gpus: int | None
    manager_ids: tuple[int | None, int | None]
    window: int | None = None
    reminder: bool = False
    escalate: bool = False
    digest_for: tuple[int, ...] = ()


def _due(session: Session, today: dt.date, windows: Windows) -> list[_Due]:
    return [
        _Due(cid, eid, name, credential, expires, team_id, gpus, (own, team_manager))
        for cid, eid, name, credential, expires, team_id, gpus, own, team_manager in (
            session.execute(
                select(
                    Certification.id,
                    Certification.engineer_id,
                    Engineer.name,
                    Certification.credential_id,
                    Certification.expires_on,
                    Engineer.team_id,
                    Team.gpus,
                    Engineer.manager_id,
                    Team.manager_id,
                )
                .join(Engineer, Engineer.id == Certification.engineer_id)
                .outerjoin(Team, Team.id == Engineer.team_id)
                .where(*_in_reach(today, windows))
                .order_by(Certification.expires_on, Certification.id)
            )
        )
    ]


def _active_managers(session: Session) -> set[int]:
    """Return the ids of active people who manage someone or a team."""
    report = aliased(Engineer)
    return set(
        session.scalars(
            select(Engineer.id).where(
                Engineer.active.is_(True),
                or_(
                    Engineer.id.in_(
                        select(report.manager_id).where(report.manager_id.is_not(None))
                    ),
                    Engineer.id.in_(select(Team.manager_id).where(Team.manager_id.is_not(None))),
                ),
            )
        )
    )


def _planned_renewals(
    session: Session, today: dt.date, windows: Windows
) -> dict[tuple[int, int], list[dt.date]]:
    """Return (engineer, exam) -> dates of open plans from today, for the people in reach."""
    engineers = (
        select(Certification.engineer_id)
        .join(Engineer, Engineer.id == Certification.engineer_id)
        .where(*_in_reach(today, windows))
    )
    plans: dict[tuple[int, int], list[dt.date]] = {}
    for engineer_id, exam_id, planned_on in session.execute(
        select(ExamPlan.engineer_id, ExamPlan.exam_id, ExamPlan.planned_on).where(
            ExamPlan.cancelled_at.is_(None),
            ExamPlan.planned_on >= today,
            ExamPlan.engineer_id.in_(engineers.scalar_subquery()),
        )
    ):
        plans.setdefault((engineer_id, exam_id), []).append(planned_on)
    return plans


def managers_of(engineer: Engineer) -> list[Engineer]:
    """Return the engineer's manager and their team's manager (once each, active only)."""
    found = []
    for manager in (engineer.manager, engineer.team.manager if engineer.team else None):
        if (
            manager is not None
            and manager.active
            and manager not in found
            and manager.id != engineer.id
        ):
            found.append(manager)
    return found


def _manager_ids(due: _Due, active: set[int]) -> list[int]:
    """`managers_of` on plain values."""
    found: list[int] = []
    for manager_id in due.manager_ids:
        if (
            manager_id is not None
            and manager_id in active
            and manager_id not in found
            and manager_id != due.engineer_id
        ):
            found.append(manager_id)
    return found


def _queue(session: Session, report: PassReport, notification: Notification) -> bool:
    """Insert a notice unless its key exists; the unique constraint settles races."""
    if session.scalar(
        select(Notification.id).where(Notification.dedupe_key == notification.dedupe_key)
    ):
        return False
    try:
        with session.begin_nested():
            session.add(notification)
            session.flush()
    except IntegrityError:
        return False
    report.add(notification)
    return True


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
    from tracker.progress.services import path_progress

    exam = cert.credential.exam
    if exam is None:
        return []
    return [
        f"{c.course.title} ({c.logged.normalize():f} of {c.required.normalize():f} h)"
        for path in paths
        if path.exam_id == exam.id
        for c in path_progress(path, logged).open_courses
    ]


def _reminder(
    cert: Certification,
    window: int,
    today: dt.date,
    windows: Windows,
    mail: Mail,
    open_courses: Sequence[str],
) -> Notification:
    engineer = cert.engineer
    days_left = (cert.expires_on - today).days
    kind = "expired" if window == EXPIRED else "reminder"
    if kind == "expired":
        subject = f"{cert.credential.code} expired on {cert.expires_on.isoformat()}"
    else:
        subject = (
            f"{cert.credential.code} expires in {days_left} day{'' if days_left == 1 else 's'}"
            f" ({cert.expires_on.isoformat()})"
        )
    copy = window == EXPIRED or window <= windows.copy_manager_from
    link = f"{mail.base_url.rstrip('/')}/dashboard"
    text, html = messages.render(
        "reminder",
        kind=kind,
        engineer=engineer,
        credential=cert.credential,
        expires_on=cert.expires_on,
        days_left=days_left,
        link=link,
        renew_steps=renew_steps(cert, open_courses),
    )
    key = f"{kind}:{cert.id}:{window}"
    return Notification(
        dedupe_key=key,
        kind=kind,
        certification_id=cert.id,
        window_days=window,
        engineer_id=engineer.id,
        to_addrs=engineer.email,
        cc_addrs=", ".join(m.email for m in managers_of(engineer)) if copy else "",
        subject=subject,
        body_text=text,
        body_html=html,
        ics=messages.expiry_calendar(
            f"cert-{cert.id}@{mail.domain}",
            f"{cert.credential.code} expires",
            f"{engineer.name}'s {cert.credential.name} is valid through this day.",
            cert.expires_on,
            link,
            stamp=cert.created_at,
        ),
        message_id=mail.message_id(key),
        next_attempt_at=_midnight(today),
    )


def _midnight(day: dt.date) -> dt.datetime:
    """Return when a notice queued on `day` becomes due: at once, in every time zone.

    `day` is the deployment's local date; the sender compares in UTC. The start
    of the day before is earlier than "now" wherever the deployment runs.
    """
    return dt.datetime.combine(day - dt.timedelta(days=1), dt.time())


def plan(
    session: Session,
    today: dt.date,
    windows: Windows,
    mail: Mail,
    *,
    keep: bool = True,
) -> PassReport:
    """Queue every notice due on `today`: reminders, expiry notices, escalations, digests.

    Writes outbox rows only (flushes); the caller commits, and the sender
    delivers after the commit. With `keep` off the report counts the notices
    without holding them (the scheduler's way: its memory stays flat).
    """
    from tracker.catalog.models import Exam

    report = PassReport(keep=keep)
    due = _due(session, today, windows)
    if not due:
        return report
    queued = set(
        session.scalars(
            select(Notification.dedupe_key).where(
                Notification.certification_id.in_(_in_reach_ids(today, windows).scalar_subquery())
            )
        )
    )
    year, week, _ = today.isocalendar()
    week_key = f"{year}-W{week:02d}"
    digested = set(
        session.scalars(
            select(Notification.dedupe_key).where(
                Notification.kind == "digest", Notification.dedupe_key.like(f"digest:%:{week_key}")
            )
        )
    )
    exam_of = dict(session.execute(select(Exam.credential_id, Exam.id)).tuples().all())
    plans = _planned_renewals(session, today, windows)
    active = _active_managers(session)

    for d in due:
        left = (d.expires_on - today).days
        window = due_window(d.expires_on, today, windows)
        exam_id = exam_of.get(d.credential_id)
        acknowledged = (
            window != EXPIRED
            and exam_id is not None
            and any(today <= p <= d.expires_on for p in plans.get((d.engineer_id, exam_id), ()))
        )
        if window is not None and not acknowledged:
            kind = "expired" if window == EXPIRED else "reminder"
            d.window = window
            d.reminder = f"{kind}:{d.id}:{window}" not in queued
            d.escalate = window != EXPIRED and f"escalation:{d.id}" not in queued
        if 0 <= left <= DIGEST_HORIZON_DAYS:
            d.digest_for = tuple(
                m for m in _manager_ids(d, active) if f"digest:{m}:{week_key}" not in digested
            )

    impacts = _impacts(session, [d for d in due if d.escalate or d.digest_for], today)
    _queue_reminders(session, report, due, impacts, today, windows, mail)
    _digests(session, report, due, impacts, today, week_key, mail)
    return report


def _queue_reminders(session, report, due, impacts, today, windows, mail) -> None:
    """Write the reminders and escalations owed, in expiry order, a batch of entities at a time."""
    from tracker.progress.services import logged_hours_for, paths_with_courses

    owed = [d for d in due if d.reminder or (d.escalate and impacts.get(d.id))]
    paths = paths_with_courses(session) if owed else []
    for start in range(0, len(owed), CERTIFICATIONS_PER_BATCH):
        batch = owed[start : start + CERTIFICATIONS_PER_BATCH]
        certs = {
            c.id: c
            for c in session.scalars(
                select(Certification)
                .where(Certification.id.in_([d.id for d in batch]))
                .options(
                    selectinload(Certification.credential).selectinload(Credential.exam),
                    selectinload(Certification.engineer).selectinload(Engineer.manager),
                    selectinload(Certification.engineer)
                    .selectinload(Engineer.team)
                    .selectinload(Team.manager),
                )
            )
        }
        logged = logged_hours_for(session, {d.engineer_id for d in batch if d.reminder})
        for d in batch:
            cert = certs[d.id]
            if d.reminder:
                courses = _open_courses(paths, logged.get(d.engineer_id, {}), cert)
                _queue(session, report, _reminder(cert, d.window, today, windows, mail, courses))
            impact = impacts.get(d.id) if d.escalate else ""
            if impact:
                _queue(session, report, _escalation(cert, impact, today, mail))


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


def _impacts(session: Session, due: list[_Due], today: dt.date) -> dict[int, str]:
    """Return certification id -> readiness impact of its lapse, judged a few teams at a time."""
    from tracker.readiness.services import choose_template, load_members, load_templates

    templates = load_templates(session)
    if not templates:
        return {}
    # A lapse can only matter to a team whose template asks for the credential.
    relevant = {}
    for template in templates:
        ids: set[int] = set()
        for credential in [c for s in template.slots for c in s.credentials]:
            ids |= credential.satisfying_ids()
        for credential in template.team_credentials:
            ids |= credential.satisfying_ids()
        relevant[template.id] = ids
    by_team: dict[int, list[_Due]] = {}
    for d in due:
        if (
            d.team_id is not None
            and d.credential_id in relevant[choose_template(templates, d.gpus or 0).id]
        ):
            by_team.setdefault(d.team_id, []).append(d)
    impacts: dict[int, str] = {}
    team_ids = list(by_team)
    for start in range(0, len(team_ids), TEAMS_PER_BATCH):
        batch = team_ids[start : start + TEAMS_PER_BATCH]
        teams = {t.id: t for t in session.scalars(select(Team).where(Team.id.in_(batch)))}
        members = load_members(session, batch)
        for team_id in batch:
            for d in by_team[team_id]:
                impact = lapse_impact(
                    teams[team_id],
                    members.get(team_id, []),
                    templates,
                    d.id,
                    d.engineer_id,
                    d.expires_on + dt.timedelta(days=1),
                )
                if impact:
                    impacts[d.id] = impact
    return impacts


class ReadinessImpact:
    """Judge what a certification's lapse does to its team's readiness (cached per team)."""

    def __init__(self, session: Session, today: dt.date) -> None:
        from tracker.readiness.services import load_members, load_templates

        self.session = session
        self.today = today
        self._load_members = load_members
        self.templates = load_templates(session)
        self.members: dict[int, list] = {}

    def of(self, cert: Certification) -> str:
        """Return how the team's readiness drops when `cert` lapses, or "" when it does not."""
        team = cert.engineer.team
        if team is None or not self.templates:
            return ""
        if team.id not in self.members:
            self.members.update(self._load_members(self.session, [team.id]))
        return lapse_impact(
            team,
            self.members.get(team.id, []),
            self.templates,
            cert.id,
            cert.engineer_id,
            cert.expires_on + dt.timedelta(days=1),
        )


def _escalation(cert: Certification, impact: str, today: dt.date, mail: Mail) -> Notification:
    engineer = cert.engineer
    managers = managers_of(engineer)
    days_left = (cert.expires_on - today).days
    link = f"{mail.base_url.rstrip('/')}/teams/{engineer.team_id}"
    text, html = messages.render(
        "reminder",
        kind="escalation",
        engineer=engineer,
        credential=cert.credential,
        expires_on=cert.expires_on,
        days_left=days_left,
        link=link,
        impact=impact,
        team_name=engineer.team.name if engineer.team else "the team",
        renew_steps=renew_steps(cert, ()),
    )
    key = f"escalation:{cert.id}"
    return Notification(
        dedupe_key=key,
        kind="escalation",
        certification_id=cert.id,
        window_days=None,
        engineer_id=engineer.id,
        to_addrs=", ".join(m.email for m in managers) or engineer.email,
        cc_addrs=engineer.email if managers else "",
        subject=f"Escalation: {engineer.name}'s {cert.credential.code} lapses on "
        f"{cert.expires_on.isoformat()} and readiness drops",
        body_text=text,
        body_html=html,
        ics=None,
        message_id=mail.message_id(key),
        next_attempt_at=_midnight(today),
    )


@dataclass(frozen=True)
class DigestItem:
    engineer: Named
    credential: Credential
    expires_on: dt.date
    days_left: int
    impact: str


def _digests(
    session: Session,
    report: PassReport,
    due: Iterable[_Due],
    impacts: dict[int, str],
    today: dt.date,
    week_key: str,
    mail: Mail,
) -> None:
    """Queue one digest per manager per ISO week of their people's upcoming expiries."""
    owed = [d for d in due if d.digest_for]
    if not owed:
        return
    credentials = {
        c.id: c
        for c in session.scalars(
            select(Credential).where(Credential.id.in_({d.credential_id for d in owed}))
        )
    }
    by_manager: dict[int, list[DigestItem]] = {}
    for d in owed:
        item = DigestItem(
            Named(d.engineer_id, d.engineer_name),
            credentials[d.credential_id],
            d.expires_on,
            (d.expires_on - today).days,
            impacts.get(d.id, ""),
        )
        for manager_id in d.digest_for:
            by_manager.setdefault(manager_id, []).append(item)
    ids = list(by_manager)
    managers: dict[int, Engineer] = {}
    for start in range(0, len(ids), CERTIFICATIONS_PER_BATCH):
        managers.update(
            (m.id, m)
            for m in session.scalars(
                select(Engineer).where(
                    Engineer.id.in_(ids[start : start + CERTIFICATIONS_PER_BATCH])
                )
            )
        )
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
        _queue(
            session,
            report,
            Notification(
                dedupe_key=key,
                kind="digest",
                certification_id=None,
                window_days=None,
                engineer_id=manager.id,
                to_addrs=manager.email,
                cc_addrs="",
                subject=f"Weekly digest: {len(items)} certification(s) expiring within "
                f"{DIGEST_HORIZON_DAYS} days",
                body_text=text,
                body_html=html,
                ics=None,
                message_id=mail.message_id(key),
                next_attempt_at=_midnight(today),
            ),
        )


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


def _claim(
    factory: sessionmaker[Session],
    worker: str,
    now: dt.datetime,
    batch: int,
    force: bool,
    skip: set[int],
) -> list[Notification]:
    """Take up to `batch` due rows for this worker, atomically; commit the claim."""
    with writing(), factory() as session, session.begin():
        due = select(Notification.id).where(
            or_(Notification.status == "pending", Notification.status == "sending")
        )
        if force:
            # `tracker remind` sends every pending row now, back-off notwithstanding,
            # but never takes a row another sender holds.
            due = due.where(
                or_(Notification.status == "pending", Notification.next_attempt_at <= now)
            )
        else:
            due = due.where(Notification.next_attempt_at <= now)
        if skip:
            due = due.where(Notification.id.not_in(skip))
        due = due.order_by(Notification.next_attempt_at, Notification.id).limit(batch)
        if session.get_bind().dialect.name == "postgresql":
            due = due.with_for_update(skip_locked=True)
        session.execute(
            update(Notification)
            .where(Notification.id.in_(due.scalar_subquery()))
            .values(status="sending", claimed_by=worker, next_attempt_at=now + CLAIM_LEASE)
            .execution_options(synchronize_session=False)
        )
    with factory() as session:
        return list(
            session.scalars(
                select(Notification)
                .where(Notification.claimed_by == worker, Notification.status == "sending")
                .order_by(Notification.id)
            )
        )


class _Marks:
    """Where a batch records each row's outcome as it goes: one commit per row.

    On PostgreSQL (an engine of its own) each mark is one statement in
    autocommit: its own transaction in one round trip, not three (BEGIN,
    UPDATE, COMMIT), once per message sent. Elsewhere, and inside a caller's
    connection (the tests'), a session commits after each mark; SQLite's
    writers take the lock at BEGIN (`writing()`).
    """

    def __init__(self, factory: sessionmaker[Session]) -> None:
        bind = factory.kw.get("bind")
        self.connection = None
        self.session = None
        if isinstance(bind, Engine) and bind.dialect.name == "postgresql":
            self.connection = bind.connect().execution_options(isolation_level="AUTOCOMMIT")
        else:
            self.session = factory()

    def execute(self, statement) -> None:
        if self.connection is not None:
            self.connection.execute(statement)
        else:
            self.session.connection().execute(statement)
            self.session.commit()

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
        if self.session is not None:
            self.session.close()


def _finish(marks: _Marks, row: Notification, worker: str, now: dt.datetime, **values) -> None:
    """Record a row's outcome, only if this worker still holds it; commit at once."""
    table = Notification.__table__
    marks.execute(
        update(table)
        .where(table.c.id == row.id, table.c.claimed_by == worker, table.c.status == "sending")
        .values(claimed_by=None, **values)
    )


def _retry(marks: _Marks, row: Notification, worker: str, now: dt.datetime, error: str, report):
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
    batch: int = 50,
    worker: str | None = None,
) -> DeliveryReport:
    """Send due outbox rows over SMTP, one connection per batch, marking each as it goes."""
    worker = worker or f"{socket.gethostname()}:{uuid.uuid4().hex[:8]}"
    report = DeliveryReport()
    seen: set[int] = set()
    while True:
        rows = _claim(factory, worker, now, batch, force, seen)
        if not rows:
            return report
        seen.update(r.id for r in rows)
        with writing(), contextlib.closing(_Marks(factory)) as marks:
            try:
                smtp = _connect(settings)
            except (OSError, smtplib.SMTPException) as exc:
                for row in rows:
                    _retry(marks, row, worker, now, f"cannot connect: {_describe(exc)}", report)
                return report
            try:
                renewed = _superseded(factory, rows)
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


def _connect(settings: SmtpSettings) -> smtplib.SMTP:
    smtp = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
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


def _superseded(factory: sessionmaker[Session], rows: Sequence[Notification]) -> set[int]:
    """Return which of the rows' certifications were renewed since they were queued.

    One read for the batch, just before it is sent (and no lock held while sending).
    """
    ids = {
        r.certification_id for r in rows if r.certification_id is not None and r.kind != "digest"
    }
    if not ids:
        return set()
    newer = aliased(Certification)
    with factory() as session:
        return set(session.scalars(select(newer.renews_id).where(newer.renews_id.in_(ids))))


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
