"""Careers: evidence, speciality proficiency, apprenticeships, bonuses."""

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
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.careers.rules import (
    DEFAULT_PRODUCTIVITY_LOSS,
    EARLIEST_DATE,
    MAX_EVIDENCE_TITLE,
    MAX_PRODUCTIVITY_LOSS,
    MAX_PROFICIENCY,
    MIN_PROFICIENCY,
    STORED_EVIDENCE_KINDS,
)
from tracker.catalog.models.credentials import Credential, LearningPath
from tracker.catalog.models.skills import Speciality
from tracker.catalog.rules import DECIMAL_PLACES
from tracker.clock import utcnow
from tracker.db import Base, Fixed
from tracker.people.models import Engineer


class Evidence(Base):
    """A patent, publication or deployment led: the level-5 evidence."""

    __tablename__ = "evidence"
    __table_args__ = (
        CheckConstraint(
            "kind IN ({})".format(", ".join(f"'{k}'" for k in STORED_EVIDENCE_KINDS)),
            name="kind_known",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(String(MAX_EVIDENCE_TITLE))
    occurred_on: Mapped[dt.date] = mapped_column(Date)
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SkillAssessment(Base):
    """A proficiency (0 none .. 4 expert) in a speciality; the newest row counts."""

    __tablename__ = "skill_assessments"
    __table_args__ = (
        CheckConstraint(
            f"proficiency BETWEEN {MIN_PROFICIENCY} AND {MAX_PROFICIENCY}",
            name="proficiency_0_to_4",
        ),
        Index("ix_skill_assessments_engineer_speciality", "engineer_id", "speciality_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(ForeignKey("engineers.id", ondelete="CASCADE"))
    speciality_id: Mapped[int] = mapped_column(ForeignKey("specialities.id", ondelete="CASCADE"))
    proficiency: Mapped[int] = mapped_column(Integer)
    assessed_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="SET NULL")
    )
    # True when the engineer's manager (or an admin) set or confirmed it.
    confirmed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    engineer: Mapped[Engineer] = relationship(foreign_keys=[engineer_id])
    speciality: Mapped[Speciality] = relationship()


class Apprenticeship(Base):
    """A junior shadowing a senior for a period."""

    __tablename__ = "apprenticeships"
    __table_args__ = (
        CheckConstraint("ends_on > starts_on", name="period_ordered"),
        CheckConstraint("junior_id <> senior_id", name="two_people"),
        CheckConstraint(
            f"productivity_loss_percent BETWEEN 0 AND {MAX_PRODUCTIVITY_LOSS}",
            name="productivity_loss_0_to_100",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    junior_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    senior_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    path_id: Mapped[int | None] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="SET NULL")
    )
    starts_on: Mapped[dt.date] = mapped_column(Date)
    ends_on: Mapped[dt.date] = mapped_column(Date)
    productivity_loss_percent: Mapped[int] = mapped_column(
        Integer, default=DEFAULT_PRODUCTIVITY_LOSS
    )
    note: Mapped[str] = mapped_column(Text, default="")

    junior: Mapped[Engineer] = relationship(foreign_keys=[junior_id])
    senior: Mapped[Engineer] = relationship(foreign_keys=[senior_id])
    path: Mapped[LearningPath | None] = relationship()


class CertificationBonus(Base):
    """What the organisation pays for earning a credential on or after `effective_on`.

    A credential's bonuses are its history: a certification earns the one in
    effect on the day it was passed, so a new amount never rewrites a ledger
    already paid.
    """

    __tablename__ = "certification_bonuses"
    __table_args__ = (
        CheckConstraint("amount >= 0", name="amount_not_negative"),
        UniqueConstraint("credential_id", "effective_on"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    credential_id: Mapped[int] = mapped_column(ForeignKey("credentials.id", ondelete="CASCADE"))
    # Bonuses set before amounts had a history apply from the start.
    effective_on: Mapped[dt.date] = mapped_column(Date, server_default=EARLIEST_DATE.isoformat())
    amount: Mapped[Decimal] = mapped_column(Fixed(DECIMAL_PLACES))
    renewals_earn: Mapped[bool] = mapped_column(Boolean, default=False)
    # Only a certification proved by its issuer's badge earns it (tracker.badges).
    verified_only: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    set_at: Mapped[dt.datetime | None] = mapped_column(DateTime, default=utcnow)

    credential: Mapped[Credential] = relationship()
