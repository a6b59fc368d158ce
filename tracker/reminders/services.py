"""Renewal reminders (DOMAIN.md section 9): the daily pass, the outbox and SMTP delivery.

The pass decides what is due and writes one outbox row per notice in the same
transaction; a unique key per (certification, window) means a notice can be
queued once, ever. The sender claims rows, sends them over one SMTP
connection per batch and marks each one; a row is never lost, and a row is
sent again only when a sender died between sending and marking it (its
Message-ID stays the same, so mail systems can tell it is the same notice).
"""

from __future__ import annotations

import datetime as dt
import smtplib
import socket
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import exists, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased, selectinload, sessionmaker

from tracker.catalog.models import Credential
from tracker.db import writing
from tracker.errors import ValidationError
from tracker.people.models import Engineer
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


@dataclass
class PassReport:
    queued: list[Notification] = field(default_factory=list)

    def count(self, kind: str | None = None) -> int:
        return sum(1 for n in self.queued if kind is None or n.kind == kind)


@dataclass(frozen=True)
class Mail:
    """What a pass needs to write links and addresses."""

    base_url: str
    domain: str

    def message_id(self, key: str) -> str:
        safe = key.replace(":", ".")
        return f"<{safe}.{uuid.uuid4().hex[:12]}@{self.domain}>"


def _current_certifications(session: Session, today: dt.date, windows: Windows):
    """Return certifications that count (not renewed) and expire within reach of a window."""
    newer = aliased(Certification)
    return session.scalars(
        select(Certification)
        .join(Engineer, Engineer.id == Certification.engineer_id)
        .where(
            Engineer.active.is_(True),
            Certification.expires_on.is_not(None),
            Certification.expires_on >= today - dt.timedelta(days=windows.expired_grace_days),
            Certification.expires_on <= today + dt.timedelta(days=windows.widest),
            ~exists().where(newer.renews_id == Certification.id),
        )
        .options(
            selectinload(Certification.credential).selectinload(Credential.exam),
            selectinload(Certification.engineer).selectinload(Engineer.manager),
            selectinload(Certification.engineer).selectinload(Engineer.team),
        )
        .order_by(Certification.expires_on, Certification.id)
    ).all()


def _acknowledged(session: Session, cert: Certification, today: dt.date) -> bool:
    """Return whether a renewal exam is planned between today and the expiry."""
    exam = cert.credential.exam
    if exam is None:
        return False
    return (
        session.scalar(
            select(ExamPlan.id)
            .where(
                ExamPlan.engineer_id == cert.engineer_id,
                ExamPlan.exam_id == exam.id,
                ExamPlan.cancelled_at.is_(None),
                ExamPlan.planned_on >= today,
                ExamPlan.planned_on <= cert.expires_on,
            )
            .limit(1)
        )
        is not None
    )


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
    report.queued.append(notification)
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


def _open_courses(session: Session, cert: Certification) -> list[str]:
    from tracker.progress.services import logged_hours, path_progress, paths_with_courses

    exam = cert.credential.exam
    if exam is None:
        return []
    logged = logged_hours(session, cert.engineer_id)
    return [
        f"{c.course.title} ({c.logged.normalize():f} of {c.required.normalize():f} h)"
        for path in paths_with_courses(session)
        if path.exam_id == exam.id
        for c in path_progress(path, logged).open_courses
    ]


def _reminder(
    session: Session, cert: Certification, window: int, today: dt.date, windows: Windows, mail: Mail
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
        renew_steps=renew_steps(cert, _open_courses(session, cert)),
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
) -> PassReport:
    """Queue every notice due on `today`: reminders, expiry notices, escalations, digests.

    Writes outbox rows only (flushes); the caller commits, and the sender
    delivers after the commit.
    """
    report = PassReport()
    certs = _current_certifications(session, today, windows)
    impacts = ReadinessImpact(session, today)
    for cert in certs:
        window = due_window(cert.expires_on, today, windows)
        if window is None:
            continue
        if window != EXPIRED and _acknowledged(session, cert, today):
            continue
        _queue(session, report, _reminder(session, cert, window, today, windows, mail))
        if window != EXPIRED:
            impact = impacts.of(cert)
            if impact:
                _queue(session, report, _escalation(cert, impact, today, mail))
    _digests(session, report, certs, impacts, today, mail)
    return report


# --- readiness impact, escalation and digest --------------------------------


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
        from tracker.readiness.services import Member, readiness

        team = cert.engineer.team
        if team is None or not self.templates:
            return ""
        if team.id not in self.members:
            self.members.update(self._load_members(self.session, [team.id]))
        members = self.members.get(team.id, [])
        after = cert.expires_on + dt.timedelta(days=1)
        lapsed = readiness(team, members, self.templates, after)
        kept_cert = Certification(
            id=cert.id,
            engineer_id=cert.engineer_id,
            credential_id=cert.credential_id,
            earned_on=cert.earned_on,
            expires_on=None,
            credential=cert.credential,
        )
        kept_members = [
            Member(m.engineer, tuple(kept_cert if c.id == cert.id else c for c in m.certifications))
            if m.id == cert.engineer_id
            else m
            for m in members
        ]
        kept = readiness(team, kept_members, self.templates, after)
        reasons = []
        if kept.filled > lapsed.filled:
            reasons.append(
                f"{kept.filled - lapsed.filled} seat(s) no one else can fill "
                f"({lapsed.filled}/{lapsed.total} instead of {kept.filled}/{kept.total})"
            )
        for before, now in zip(kept.team_credentials, lapsed.team_credentials, strict=True):
            if before.met and not now.met:
                reasons.append(f"the team loses its last valid {before.credential.code}")
        return "; ".join(reasons)


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
    engineer: Engineer
    credential: Credential
    expires_on: dt.date
    days_left: int
    impact: str


def _digests(
    session: Session,
    report: PassReport,
    certs: Iterable[Certification],
    impacts: ReadinessImpact,
    today: dt.date,
    mail: Mail,
) -> None:
    """Queue one digest per manager per ISO week of their people's upcoming expiries."""
    by_manager: dict[int, tuple[Engineer, list[DigestItem]]] = {}
    for cert in certs:
        left = (cert.expires_on - today).days
        if not 0 <= left <= DIGEST_HORIZON_DAYS:
            continue
        item = DigestItem(cert.engineer, cert.credential, cert.expires_on, left, impacts.of(cert))
        for manager in managers_of(cert.engineer):
            by_manager.setdefault(manager.id, (manager, []))[1].append(item)
    year, week, _ = today.isocalendar()
    for manager, items in by_manager.values():
        key = f"digest:{manager.id}:{year}-W{week:02d}"
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


def _finish(
    factory: sessionmaker[Session], row: Notification, worker: str, now: dt.datetime, **values
) -> None:
    """Record a row's outcome, only if this worker still holds it; commit at once."""
    with writing(), factory() as session, session.begin():
        session.execute(
            update(Notification)
            .where(
                Notification.id == row.id,
                Notification.claimed_by == worker,
                Notification.status == "sending",
            )
            .values(claimed_by=None, **values)
            .execution_options(synchronize_session=False)
        )


def _retry(factory, row: Notification, worker: str, now: dt.datetime, error: str, report) -> None:
    attempts = row.attempts + 1
    _finish(
        factory,
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
        try:
            smtp = _connect(settings)
        except (OSError, smtplib.SMTPException) as exc:
            for row in rows:
                _retry(factory, row, worker, now, f"cannot connect: {_describe(exc)}", report)
            return report
        try:
            for index, row in enumerate(rows):
                try:
                    _send_one(factory, smtp, settings, row, worker, now, report)
                except _ConnectionLost as lost:
                    for rest in rows[index:]:
                        _retry(factory, rest, worker, now, str(lost), report)
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


def _superseded(factory: sessionmaker[Session], row: Notification) -> bool:
    """Return whether the certification a notice is about was renewed since it was queued."""
    if row.certification_id is None or row.kind == "digest":
        return False
    newer = aliased(Certification)
    with factory() as session:
        return session.scalar(select(exists().where(newer.renews_id == row.certification_id)))


def _send_one(factory, smtp, settings, row, worker, now, report) -> None:
    if _superseded(factory, row):
        # "A renewed certification stops all further reminders for the older one",
        # also those queued before the renewal and still waiting for SMTP.
        _finish(
            factory,
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
                factory,
                row,
                worker,
                now,
                status="failed",
                attempts=row.attempts + 1,
                last_error=detail[:2000],
            )
            report.failed += 1
        else:
            _retry(factory, row, worker, now, detail, report)
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
                factory,
                row,
                worker,
                now,
                status="failed",
                attempts=row.attempts + 1,
                last_error=_describe(exc)[:2000],
            )
            report.failed += 1
        else:
            _retry(factory, row, worker, now, _describe(exc), report)
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
        factory,
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
