"""Delivery: the sender claims due outbox rows and sends them over SMTP, one connection a batch.

The pass writes one outbox row per notice in the transaction that decides it;
a unique key per (certification, window) means a notice can be queued once,
ever. The sender claims rows, sends them over one SMTP connection per batch
and marks each one before the next goes out (`marks`); a row is never lost,
and a row is sent again only when a sender died between sending and marking
it, or the database server crashed before the mark reached its disk; its
Message-ID stays the same, so mail systems can tell it is the same notice.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import smtplib
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Row, Table, exists, or_, select, text, update
from sqlalchemy.orm import Session, sessionmaker

from tracker.db import writing
from tracker.errors import ValidationError
from tracker.outbox import CLAIM_LEASE, ERROR_TEXT_LIMIT, backoff
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.reminders import messages
from tracker.reminders.models import Notification
from tracker.reminders.rules import SEND_BATCH
from tracker.reminders.services.marks import Marks, finish

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how the sender connects to the SMTP server."""

    host: str
    port: int
    mail_from: str
    username: str = ""
    password: str = ""
    starttls: bool = False
    timeout: float = 10.0


@dataclass
class DeliveryReport:
    """How many rows a delivery sent, put back for a retry, failed for good or skipped."""

    sent: int = 0
    retried: int = 0
    failed: int = 0
    skipped: int = 0


class _ConnectionLost(Exception):
    """The SMTP connection is gone; the rest of the batch waits for the next run."""


def _code_of(exc: BaseException) -> int | None:
    code = getattr(exc, "smtp_code", None)
    return code if isinstance(code, int) else None


# The columns a sender reads from the rows it claims: plain rows, not entities.
_OUTBOX = cast(Table, Notification.__table__)
# SQLite writes every column of a RETURNING unqualified, its subqueries' too:
# certification_id and engineer_id name the outbox's there, as neither table has
# a column of that name.
_NEWER = cast(Table, Certification.__table__)
_PEOPLE = cast(Table, Engineer.__table__)
_CLAIMED = (
    _OUTBOX.c.id,
    _OUTBOX.c.kind,
    _OUTBOX.c.certification_id,
    _OUTBOX.c.engineer_id,
    _OUTBOX.c.to_addrs,
    _OUTBOX.c.cc_addrs,
    _OUTBOX.c.subject,
    _OUTBOX.c.body_text,
    _OUTBOX.c.body_html,
    _OUTBOX.c.ics,
    _OUTBOX.c.unsubscribe_url,
    _OUTBOX.c.message_id,
    _OUTBOX.c.attempts,
    # Read in the claim, just before the row is sent (no lock held while sending):
    # whether its certification was renewed since it was queued (a digest's is
    # none)...
    exists().where(_NEWER.c.renews_id == _OUTBOX.c.certification_id).label("renewed"),
    # ...and whether its person (reminded, or digested for) is deactivated now.
    exists()
    .where(_PEOPLE.c.id == _OUTBOX.c.engineer_id, _PEOPLE.c.active.is_(False))
    .label("deactivated"),
    # ...and whether a digest's person turned the digest off since it was queued.
    exists()
    .where(
        _PEOPLE.c.id == _OUTBOX.c.engineer_id,
        _OUTBOX.c.kind == "digest",
        _PEOPLE.c.weekly_digest.is_(False),
    )
    .label("unsubscribed"),
)


def _claim(
    factory: sessionmaker[Session],
    worker: str,
    now: dt.datetime,
    batch: int,
    force: bool,
    skip: set[int],
) -> list[Row[Any]]:
    """Take up to `batch` due rows for this worker, atomically; commit the claim.

    Return the rows (in id order), each with whether its certification was
    renewed since it was queued, whether its person is deactivated and whether
    a digest's person turned the digest off: one round trip for the claim and
    its rows (UPDATE ... RETURNING).
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
        claimed: Any = due.scalar_subquery()
        if session.get_bind().dialect.name == "postgresql":
            # Materialized: run once. As `IN (subquery)` the planner may rescan the
            # subquery for each row it updates, and a rescan skips the rows this very
            # statement has just locked and updated, so it finds the next ones: a
            # claim of 2 took every due row.
            claimed = select(
                due.with_for_update(skip_locked=True).cte("due").prefix_with("MATERIALIZED").c.id
            )
            # Read the queue index in order and stop at the batch: every notice
            # leaves dead entries in it (claimed, then marked) until a vacuum,
            # and only an index scan marks them dead as it passes them. A bitmap
            # scan, which the planner likes for a short queue, visits each dead
            # row again at every claim: after a day's thousands of notices
            # a claim took 8-40 ms instead of 2.
            session.execute(text("SET LOCAL enable_bitmapscan = off"))
        rows = list(
            session.execute(
                update(_OUTBOX)
                .where(_OUTBOX.c.id.in_(claimed))
                .values(status="sending", claimed_by=worker, next_attempt_at=now + CLAIM_LEASE)
                .returning(*_CLAIMED)
            ).all()
        )
        rows.sort(key=lambda r: r.id)
        return rows


def _retry(
    marks: Marks, row: Row[Any], worker: str, now: dt.datetime, error: str, report: DeliveryReport
) -> None:
    attempts = row.attempts + 1
    finish(
        marks,
        row,
        worker,
        now,
        status="pending",
        attempts=attempts,
        next_attempt_at=now + backoff(attempts),
        last_error=error[:ERROR_TEXT_LIMIT],
    )
    report.retried += 1


def _fail(
    marks: Marks, row: Row[Any], worker: str, now: dt.datetime, error: str, report: DeliveryReport
) -> None:
    """Mark a row failed for good with `error`: the outbox shows it, an admin may retry it."""
    finish(
        marks,
        row,
        worker,
        now,
        status="failed",
        attempts=row.attempts + 1,
        last_error=error[:ERROR_TEXT_LIMIT],
    )
    report.failed += 1


def deliver(
    factory: sessionmaker[Session],
    settings: SmtpSettings,
    now: dt.datetime,
    *,
    force: bool = False,
    batch: int = SEND_BATCH,
    worker: str | None = None,
) -> DeliveryReport:
    """Send due outbox rows over SMTP, one connection per batch, marking each as it goes.

    Every row's mark has committed when this returns (or raises).
    """
    worker = worker or f"{socket.gethostname()}:{uuid.uuid4().hex[:8]}"
    report = DeliveryReport()
    seen: set[int] = set()
    with contextlib.closing(Marks(factory)) as marks:
        while True:
            marks.wait()
            rows = _claim(factory, worker, now, batch, force, seen)
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
                        _send_one(marks, smtp, settings, row, worker, now, report)
                    except _ConnectionLost as lost:
                        for rest in rows[index:]:
                            _retry(marks, rest, worker, now, str(lost), report)
                        return report
            finally:
                try:
                    smtp.quit()
                except (OSError, smtplib.SMTPException):
                    smtp.close()
            if len(rows) < batch:
                # Nothing else was due when this batch was claimed: what came due
                # since goes with the next run, not with a claim that finds nothing.
                return report


class _Smtp(smtplib.SMTP):
    """An SMTP connection that calls `before_data` before each message's DATA."""

    before_data: Callable[[], None] | None = None

    def data(self, msg: ReadableBuffer | str) -> tuple[int, bytes]:
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


def _why_not_sent(row: Row[Any]) -> str | None:
    """Return why a claimed row no longer goes out, None when it does."""
    if row.deactivated:
        # A deactivated account gets no mail, also what was queued before.
        return "the person's account was deactivated before delivery"
    if row.unsubscribed:
        # Stopped means stopped: a digest still waiting (or retried) goes no more.
        return "the person turned the weekly digest off before delivery"
    if row.renewed and row.kind != "digest":
        # "A renewed certification stops all further reminders for the older one",
        # also those queued before the renewal and still waiting for SMTP.
        return "the certification was renewed before delivery"
    return None


def _send_one(
    marks: Marks,
    smtp: _Smtp,
    settings: SmtpSettings,
    row: Row[Any],
    worker: str,
    now: dt.datetime,
    report: DeliveryReport,
) -> None:
    if skipped := _why_not_sent(row):
        finish(marks, row, worker, now, status="skipped", last_error=f"not sent: {skipped}")
        report.skipped += 1
        return
    to = [a.strip() for a in row.to_addrs.split(",") if a.strip()]
    cc = [a.strip() for a in row.cc_addrs.split(",") if a.strip()]
    try:
        message = messages.build_email(
            mail_from=settings.mail_from,
            to=to,
            cc=cc,
            subject=row.subject,
            text=row.body_text,
            html=row.body_html,
            message_id=row.message_id,
            ics=row.ics,
            date=now,
            unsubscribe=row.unsubscribe_url,
        )
    except ValueError as exc:
        # A notice no mail can carry (a line break in its subject, stored before the
        # rules refused one) fails alone, shown to admins, instead of stopping the batch
        # at it again on every run.
        _fail(marks, row, worker, now, f"not sent: the message cannot be written: {exc}", report)
        return
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
            _fail(marks, row, worker, now, detail, report)
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
            _fail(marks, row, worker, now, _describe(exc), report)
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
    finish(
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
