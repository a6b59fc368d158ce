"""Progress: hour logs, exam attempts and plans, certifications."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.catalog.rules import DECIMAL_PLACES
from tracker.clock import utcnow
from tracker.db import Base, Fixed
from tracker.people.models import Engineer
from tracker.progress.ddl import (
    DAY_CHECK_NAME,
    DAY_CHECK_SQL,
    ENTRY_CHECK_NAME,
    ENTRY_CHECK_SQL,
    EXPIRY_ORDER_INDEX,
    EXPIRY_ORDER_SQL,
)
from tracker.progress.rules import (
    MAX_NOTE_LENGTH,
    MAX_PROCTORING_LENGTH,
    MAX_SCORE,
    MAX_VOUCHER_CODE_LENGTH,
    MIN_SCORE,
)


class HourLog(Base):
    """Hours an engineer spent on a course on a day."""

    __tablename__ = "hour_logs"
    __table_args__ = (
        # Fixed stores hundredths of an hour: the check compares those.
        CheckConstraint(ENTRY_CHECK_SQL, name=ENTRY_CHECK_NAME),
        Index("ix_hour_logs_engineer_course", "engineer_id", "course_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(ForeignKey("engineers.id", ondelete="CASCADE"))
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="RESTRICT"))
    logged_on: Mapped[dt.date] = mapped_column(Date)
    hours: Mapped[Decimal] = mapped_column(Fixed(DECIMAL_PLACES))
    note: Mapped[str] = mapped_column(String(MAX_NOTE_LENGTH), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)

    engineer: Mapped[Engineer] = relationship()
    course: Mapped[Course] = relationship()


class HourDay(Base):
    """An engineer's total hours on a day, kept by the database from hour_logs.

    Triggers on hour_logs (progress.ddl) add and subtract
    every entry written, by any path, and the check refuses a day over
    HOURS_PER_DAY: two racing writers take turns on the day's row, and the second
    sees the first's hours. Nothing in the application writes this table.
    """

    __tablename__ = "hour_days"
    __table_args__ = (CheckConstraint(DAY_CHECK_SQL, name=DAY_CHECK_NAME),)

    engineer_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), primary_key=True
    )
    logged_on: Mapped[dt.date] = mapped_column(Date, primary_key=True)
    hours: Mapped[Decimal] = mapped_column(Fixed(DECIMAL_PLACES))


class ExamAttempt(Base):
    """One sitting of an exam, with its result and its ledger details."""

    __tablename__ = "exam_attempts"
    __table_args__ = (
        CheckConstraint(f"score BETWEEN {MIN_SCORE} AND {MAX_SCORE}", name="score_0_to_100"),
        CheckConstraint("cost IS NULL OR cost >= 0", name="cost_not_negative"),
        Index("ix_exam_attempts_engineer_exam", "engineer_id", "exam_id", "attempted_on"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(ForeignKey("engineers.id", ondelete="CASCADE"))
    exam_id: Mapped[int] = mapped_column(ForeignKey("exams.id", ondelete="RESTRICT"))
    attempted_on: Mapped[dt.date] = mapped_column(Date)
    score: Mapped[int] = mapped_column(Integer)
    passed: Mapped[bool] = mapped_column(Boolean)
    cost: Mapped[Decimal | None] = mapped_column(Fixed(DECIMAL_PLACES))
    voucher_code: Mapped[str] = mapped_column(String(MAX_VOUCHER_CODE_LENGTH), default="")
    proctoring: Mapped[str] = mapped_column(String(MAX_PROCTORING_LENGTH), default="")
    note: Mapped[str] = mapped_column(String(MAX_NOTE_LENGTH), default="")
    recorded_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="SET NULL")
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    engineer: Mapped[Engineer] = relationship(foreign_keys=[engineer_id])
    exam: Mapped[Exam] = relationship()
    certification: Mapped[Certification | None] = relationship(back_populates="attempt")


class ExamPlan(Base):
    """An exam an engineer means to take on a future date (also acknowledges a reminder)."""

    __tablename__ = "exam_plans"
    __table_args__ = (Index("ix_exam_plans_engineer_exam", "engineer_id", "exam_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(ForeignKey("engineers.id", ondelete="CASCADE"))
    exam_id: Mapped[int] = mapped_column(ForeignKey("exams.id", ondelete="RESTRICT"))
    planned_on: Mapped[dt.date] = mapped_column(Date)
    # The certification whose renewal this plan acknowledges, if any.
    renews_id: Mapped[int | None] = mapped_column(
        ForeignKey("certifications.id", ondelete="SET NULL")
    )
    cancelled_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    engineer: Mapped[Engineer] = relationship()
    exam: Mapped[Exam] = relationship()


class Certification(Base):
    """A credential held by an engineer from a date, until an expiry (or for good)."""

    __tablename__ = "certifications"
    __table_args__ = (
        CheckConstraint(
            "expires_on IS NULL OR expires_on >= earned_on", name="expiry_after_earned"
        ),
        CheckConstraint(
            "attempt_id IS NOT NULL OR evidence <> ''", name="from_attempt_or_evidence"
        ),
        Index("ix_certifications_engineer_credential", "engineer_id", "credential_id", "earned_on"),
        Index("ix_certifications_expires_on", "expires_on"),
        Index(EXPIRY_ORDER_INDEX, EXPIRY_ORDER_SQL, "id").ddl_if(dialect="postgresql"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(ForeignKey("engineers.id", ondelete="CASCADE"))
    credential_id: Mapped[int] = mapped_column(ForeignKey("credentials.id", ondelete="RESTRICT"))
    earned_on: Mapped[dt.date] = mapped_column(Date)
    expires_on: Mapped[dt.date | None] = mapped_column(Date)
    attempt_id: Mapped[int | None] = mapped_column(
        ForeignKey("exam_attempts.id", ondelete="CASCADE"), unique=True
    )
    # For credentials earned elsewhere: a certificate number, a URL, a note.
    evidence: Mapped[str] = mapped_column(Text, default="")
    renews_id: Mapped[int | None] = mapped_column(
        ForeignKey("certifications.id", ondelete="SET NULL"), unique=True
    )
    recorded_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="SET NULL")
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # When its issuer's badge proved it (tracker.badges); None for one entered by hand.
    verified_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    # The day its issuer was found to have revoked it: from then it counts for nothing.
    revoked_on: Mapped[dt.date | None] = mapped_column(Date)

    engineer: Mapped[Engineer] = relationship(foreign_keys=[engineer_id])
    credential: Mapped[Credential] = relationship()
    attempt: Mapped[ExamAttempt | None] = relationship(back_populates="certification")
    renews: Mapped[Certification | None] = relationship(
        remote_side=[id], foreign_keys=[renews_id], back_populates="renewed_by"
    )
    renewed_by: Mapped[Certification | None] = relationship(
        foreign_keys=[renews_id], back_populates="renews"
    )
