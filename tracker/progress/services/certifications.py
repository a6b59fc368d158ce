"""Certifications: recording exam attempts and credentials, renewal chains."""

from __future__ import annotations

import datetime as dt
import secrets
from decimal import Decimal

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session, selectinload

from tracker.audit import services as audit
from tracker.catalog.models.credentials import Credential, Exam
from tracker.errors import ValidationError
from tracker.i18n import N_, day, grouped, join, msg
from tracker.people.models import Engineer
from tracker.people.schemas import PersonRef
from tracker.progress.models import Certification, ExamAttempt
from tracker.progress.rules import (
    EARLIEST_CERTIFICATION,
    EVIDENCE_REQUIRED,
    MAX_ATTEMPT_COST,
    MAX_CREDENTIAL_NAME_LENGTH,
    MAX_ENTERED_VALIDITY_YEARS,
    MAX_EVIDENCE_LENGTH,
    MAX_ISSUER_LENGTH,
    MAX_NOTE_LENGTH,
    MAX_PROCTORING_LENGTH,
    MAX_SCORE,
    MAX_VOUCHER_CODE_LENGTH,
    MIN_SCORE,
    SCORE_TEXT,
)
from tracker.progress.services.paths import prerequisite_gaps
from tracker.progress.services.validity import add_months, experience_months, expiry_date
from tracker.webhooks.schemas import CertificationData, CertificationRef
from tracker.webhooks.services import events as webhooks


def certifications_of(session: Session, engineer_id: int) -> list[Certification]:
    """Return every certification an engineer holds or held, with its credential."""
    return list(
        session.scalars(
            select(Certification)
            .where(Certification.engineer_id == engineer_id)
            .options(selectinload(Certification.credential))
            .order_by(Certification.earned_on, Certification.id)
        )
    )


def _link_renewal(session: Session, cert: Certification) -> None:
    """Place a new certification in its credential's renewal chain by date.

    The newest pass renews the one before it; a back-dated entry slots in
    between, so history entered out of order still forms one chain.
    """
    others = session.scalars(
        select(Certification).where(
            Certification.engineer_id == cert.engineer_id,
            Certification.credential_id == cert.credential_id,
            Certification.id != cert.id,
        )
    ).all()
    key = (cert.earned_on, cert.id)
    before = [c for c in others if (c.earned_on, c.id) < key]
    after = [c for c in others if (c.earned_on, c.id) > key]
    previous = max(before, key=lambda c: (c.earned_on, c.id), default=None)
    following = min(after, key=lambda c: (c.earned_on, c.id), default=None)
    if following is not None and following.renews_id is not None:
        following.renews_id = None
        session.flush()
    cert.renews_id = previous.id if previous else None
    session.flush()
    if following is not None:
        following.renews_id = cert.id
        session.flush()


def record_attempt(
    session: Session,
    engineer: Engineer,
    exam: Exam,
    attempted_on: dt.date,
    score: int,
    passed: bool,
    today: dt.date,
    recorded_by: Engineer | None = None,
    **details: object,
) -> ExamAttempt:
    """Record an exam attempt; a pass creates the certification with its expiry.

    Refused (ValidationError, nothing written) when the date is in the future
    or before the hire date or holds an attempt at the exam already, the score
    is outside 0-100 or disagrees with the pass (the exam's passing score), a
    retake comes inside the exam's waiting period, or a prerequisite is not met
    on the date.
    """
    errors: dict[str, str] = {}
    if attempted_on > today:
        errors["attempted_on"] = N_("date must not be in the future; plan the exam instead")
    elif engineer.hired_on and attempted_on < engineer.hired_on:
        errors["attempted_on"] = msg(
            "date must not be before the hire date %(date)s", date=day(engineer.hired_on)
        )
    if isinstance(score, bool) or not isinstance(score, int) or not MIN_SCORE <= score <= MAX_SCORE:
        errors["score"] = SCORE_TEXT
    elif passed and score < exam.passing_score:
        errors["score"] = msg(
            "a pass of %(exam)s needs a score of at least %(passing)s: %(score)s fails it",
            exam=exam.code,
            passing=exam.passing_score,
            score=score,
        )
    elif not passed and score >= exam.passing_score:
        errors["score"] = msg(
            "a score of %(score)s passes %(exam)s (%(passing)s or more): mark the attempt passed",
            exam=exam.code,
            passing=exam.passing_score,
            score=score,
        )
    cost = details.get("cost")
    if cost is not None and not (isinstance(cost, Decimal | int) and 0 <= cost <= MAX_ATTEMPT_COST):
        # Every door checks the cost as it reads it; the service keeps the rule for all.
        errors["cost"] = msg("cost must be from 0 to %(most)s", most=grouped(MAX_ATTEMPT_COST))
    for name, limit, rule in (
        (
            "voucher_code",
            MAX_VOUCHER_CODE_LENGTH,
            N_("voucher code must be at most %(most)s characters"),
        ),
        ("proctoring", MAX_PROCTORING_LENGTH, N_("proctoring must be at most %(most)s characters")),
        ("note", MAX_NOTE_LENGTH, N_("note must be at most %(most)s characters")),
    ):
        if len(str(details.get(name) or "")) > limit:
            errors[name] = msg(rule, most=limit)
    if errors:
        raise ValidationError(errors)

    certs = certifications_of(session, engineer.id)
    gaps = prerequisite_gaps(exam, certs, experience_months(engineer, attempted_on), attempted_on)
    if gaps:
        raise ValidationError({"exam": join(gaps)})

    failure = last_failure(session, engineer, exam, attempted_on)
    if failure is not None and exam.retake_wait_days:
        opens = failure.attempted_on + dt.timedelta(days=exam.retake_wait_days)
        if attempted_on < opens:
            raise ValidationError(
                {
                    "attempted_on": msg(
                        "a retake of %(exam)s opens on %(opens)s"
                        " (%(wait)s days after the attempt of %(failed)s)",
                        exam=exam.code,
                        opens=day(opens),
                        wait=exam.retake_wait_days,
                        failed=day(failure.attempted_on),
                    )
                }
            )
    if not passed and exam.retake_wait_days:
        # A failure entered after the fact must not fall inside the wait before a
        # sitting already recorded: that one would have come too early.
        closes = attempted_on + dt.timedelta(days=exam.retake_wait_days)
        later = next_attempt(session, engineer, exam, attempted_on)
        if later is not None and later.attempted_on < closes:
            raise ValidationError(
                {
                    "attempted_on": msg(
                        "a failure of %(exam)s on %(date)s would leave the attempt of"
                        " %(later)s inside the %(wait)s days a retake waits",
                        exam=exam.code,
                        date=day(attempted_on),
                        later=day(later.attempted_on),
                        wait=exam.retake_wait_days,
                    )
                }
            )
    # One sitting of an exam a day (a retake after a failure waits longer, above).
    if _attempted_that_day(session, engineer, exam, attempted_on):
        raise ValidationError(
            {
                "attempted_on": msg(
                    "an attempt of %(exam)s on %(date)s is recorded already",
                    exam=exam.code,
                    date=day(attempted_on),
                )
            }
        )

    attempt = ExamAttempt(
        engineer=engineer,
        exam=exam,
        attempted_on=attempted_on,
        score=score,
        passed=passed,
        recorded_by_id=recorded_by.id if recorded_by else None,
        **details,
    )
    session.add(attempt)
    session.flush()
    if passed:
        cert = Certification(
            engineer_id=engineer.id,
            credential_id=exam.credential_id,
            earned_on=attempted_on,
            expires_on=expiry_date(attempted_on, exam.validity_months),
            attempt_id=attempt.id,
            recorded_by_id=attempt.recorded_by_id,
        )
        session.add(cert)
        session.flush()
        _link_renewal(session, cert)
        _announce(session, cert, engineer, exam.credential)
    audit.record(session, attempt.recorded_by_id, attempt, "create")
    return attempt


def record_credential(
    session: Session,
    engineer: Engineer,
    credential: Credential,
    issued_on: dt.date,
    today: dt.date,
    evidence: str,
    expires_on: dt.date | None = None,
    recorded_by: Engineer | None = None,
    verified: bool = False,
) -> Certification:
    """Record a credential earned elsewhere, with its evidence; its expiry as entered.

    When no expiry is entered and the catalog gives the credential a validity,
    the expiry follows from it; one entered may come sooner, never later. An
    exam's credential needs the exam's prerequisites on its issue date, as a
    passed attempt does. `verified`: its issuer's badge proves it, dates and
    all, so neither rule applies to it.
    """
    errors: dict[str, str] = {}
    if credential.kind == "group":
        errors["credential"] = msg(
            "%(code)s is a group; record one of its members", code=credential.code
        )
    if issued_on > today:
        errors["issued_on"] = N_("date must not be in the future")
    elif issued_on < EARLIEST_CERTIFICATION:
        errors["issued_on"] = msg(
            "date must not be before %(earliest)s", earliest=day(EARLIEST_CERTIFICATION)
        )
    if expires_on is not None and expires_on < issued_on:
        errors["expires_on"] = N_("expiry must not be before the issue date")
    elif expires_on is not None and not verified and "issued_on" not in errors:
        refused = _expiry_refusal(credential, issued_on, expires_on)
        if refused:
            errors["expires_on"] = refused
    if not evidence.strip():
        errors["evidence"] = EVIDENCE_REQUIRED
    elif len(evidence.strip()) > MAX_EVIDENCE_LENGTH:
        errors["evidence"] = msg(
            "evidence must be at most %(most)s characters", most=MAX_EVIDENCE_LENGTH
        )
    if errors:
        raise ValidationError(errors)
    certs = certifications_of(session, engineer.id)
    if not verified and credential.exam is not None:
        gaps = prerequisite_gaps(
            credential.exam, certs, experience_months(engineer, issued_on), issued_on
        )
        if gaps:
            raise ValidationError({"credential": join(gaps)})
    if not verified and any(
        c.credential_id == credential.id and c.earned_on == issued_on for c in certs
    ):
        raise ValidationError(
            {
                "issued_on": msg(
                    "%(code)s earned on %(date)s is recorded already",
                    # One entered outside the catalog is known by its name, not its made-up code.
                    code=credential.name if credential.origin == "engineer" else credential.code,
                    date=day(issued_on),
                )
            }
        )
    cert = Certification(
        engineer_id=engineer.id,
        credential_id=credential.id,
        earned_on=issued_on,
        expires_on=expires_on or expiry_date(issued_on, credential.validity_months),
        evidence=evidence.strip(),
        recorded_by_id=recorded_by.id if recorded_by else None,
    )
    session.add(cert)
    session.flush()
    _link_renewal(session, cert)
    _announce(session, cert, engineer, credential)
    audit.record(session, cert.recorded_by_id, cert, "create")
    return cert


def _expiry_refusal(credential: Credential, issued_on: dt.date, expires_on: dt.date) -> str:
    """Return why an expiry entered by hand is too late for the credential, or ""."""
    if credential.validity_months is not None:
        latest = add_months(issued_on, credential.validity_months)
        if expires_on > latest:
            return msg(
                "%(code)s is valid for %(months)s months: issued on %(issued)s,"
                " it is valid through %(latest)s at the latest",
                code=credential.code,
                months=credential.validity_months,
                issued=day(issued_on),
                latest=day(latest),
            )
        return ""
    latest = add_months(issued_on, 12 * MAX_ENTERED_VALIDITY_YEARS)
    if expires_on > latest:
        return msg(
            "expiry must be at most %(years)s years after the issue date (%(latest)s);"
            " leave it empty for a credential that does not expire",
            years=MAX_ENTERED_VALIDITY_YEARS,
            latest=day(latest),
        )
    return ""


def _announce(
    session: Session, cert: Certification, engineer: Engineer, credential: Credential
) -> None:
    """Queue certification.renewed (it renews one) or certification.earned for its endpoints."""
    event = "certification.renewed" if cert.renews_id is not None else "certification.earned"
    if not webhooks.subscribers(session, event):
        return
    data = CertificationData(
        certification=CertificationRef(
            id=cert.id,
            code=credential.code,
            name=credential.name,
            earned_on=cert.earned_on,
            expires_on=cert.expires_on,
        ),
        engineer=PersonRef.of(engineer),
        renews=cert.renews_id,
    )
    webhooks.queue_event(session, event, data)


def credential_for_entry(
    session: Session, code: str | None = None, name: str | None = None, issuer: str | None = None
) -> Credential:
    """Return the catalog credential with `code`, or one for a credential the catalog lacks.

    One outside the catalog is created once per name and issuer (origin "engineer"),
    so two people entering the same certificate share a row.
    """
    if code:
        credential = session.scalars(
            select(Credential).where(Credential.code == code.strip().upper())
        ).one_or_none()
        if credential is None or credential.kind == "group":
            raise ValidationError({"code": msg("unknown credential code %(code)r", code=code)})
        return credential
    errors: dict[str, str] = {}
    name, issuer = (name or "").strip(), (issuer or "").strip()
    if not name:
        errors["name"] = N_("name is required for a credential outside the catalog")
    elif len(name) > MAX_CREDENTIAL_NAME_LENGTH:
        errors["name"] = msg(
            "name must be at most %(most)s characters", most=MAX_CREDENTIAL_NAME_LENGTH
        )
    if not issuer:
        errors["issuer"] = N_("issuer is required for a credential outside the catalog")
    elif len(issuer) > MAX_ISSUER_LENGTH:
        errors["issuer"] = msg("issuer must be at most %(most)s characters", most=MAX_ISSUER_LENGTH)
    if errors:
        raise ValidationError(errors)
    existing = session.scalars(
        select(Credential).where(
            Credential.origin == "engineer",
            func.lower(Credential.name) == name.lower(),
            func.lower(Credential.issuer) == issuer.lower(),
        )
    ).first()
    if existing is not None:
        return existing
    # X-<24 characters>-<8 hex digits> fits a catalog code (catalog.rules.MAX_CODE_LENGTH).
    slug = "".join(ch if ch.isalnum() else "-" for ch in name.upper())[:24].strip("-")
    # A random suffix: counting rows could collide after a deletion or a race.
    credential = Credential(
        code=f"X-{slug}-{secrets.token_hex(4).upper()}",
        name=name,
        issuer=issuer,
        kind="external",
        origin="engineer",
    )
    session.add(credential)
    session.flush()
    return credential


def _attempts(engineer: Engineer, exam: Exam) -> Select[tuple[ExamAttempt]]:
    """Select the engineer's attempts at `exam`."""
    return select(ExamAttempt).where(
        ExamAttempt.engineer_id == engineer.id, ExamAttempt.exam_id == exam.id
    )


def _attempted_that_day(session: Session, engineer: Engineer, exam: Exam, on: dt.date) -> bool:
    """Return whether the engineer has an attempt at `exam` recorded on the day `on`."""
    found = session.scalars(_attempts(engineer, exam).where(ExamAttempt.attempted_on == on))
    return found.first() is not None


def next_attempt(
    session: Session, engineer: Engineer, exam: Exam, after: dt.date
) -> ExamAttempt | None:
    """Return the engineer's first attempt at `exam` after the day `after`."""
    return session.scalars(
        _attempts(engineer, exam)
        .where(ExamAttempt.attempted_on > after)
        .order_by(ExamAttempt.attempted_on, ExamAttempt.id)
        .limit(1)
    ).first()


def last_failure(
    session: Session, engineer: Engineer, exam: Exam, on: dt.date
) -> ExamAttempt | None:
    """Return the engineer's latest failed attempt at `exam` on or before `on`."""
    return session.scalars(
        _attempts(engineer, exam)
        .where(ExamAttempt.passed.is_(False), ExamAttempt.attempted_on <= on)
        .order_by(ExamAttempt.attempted_on.desc(), ExamAttempt.id.desc())
        .limit(1)
    ).first()
