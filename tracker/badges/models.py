"""Imported badges: the verified document behind a certification, and badge-class mappings."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import CheckConstraint, DateTime, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.badges.rules import (
    MAX_BADGE_NAME_LENGTH,
    MAX_ISSUER_NAME_LENGTH,
    MAX_REASON_LENGTH,
    MAX_RECIPIENT_LENGTH,
    MAX_URL_LENGTH,
    SOURCES,
)
from tracker.catalog.models.credentials import Credential
from tracker.clock import utcnow
from tracker.db import Base
from tracker.people.models import Engineer
from tracker.progress.models import Certification

_SOURCES_SQL = ", ".join(f"'{s}'" for s in SOURCES)


class ImportedBadge(Base):
    """A badge an engineer imported: the certification it made, and what was verified.

    `document` is the assertion (or credential) as its issuer gave it, so the
    daily pass can verify it again; an assertion is imported once, ever.
    """

    __tablename__ = "imported_badges"
    __table_args__ = (
        CheckConstraint(f"source IN ({_SOURCES_SQL})", name="known_source"),
        CheckConstraint("format IN ('ob2', 'ob3')", name="known_format"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    certification_id: Mapped[int] = mapped_column(
        ForeignKey("certifications.id", ondelete="CASCADE"), unique=True
    )
    engineer_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    format: Mapped[str] = mapped_column(String(3))
    source: Mapped[str] = mapped_column(String(8))
    assertion_id: Mapped[str] = mapped_column(String(MAX_URL_LENGTH), unique=True)
    badge_class_id: Mapped[str] = mapped_column(String(MAX_URL_LENGTH), index=True)
    badge_name: Mapped[str] = mapped_column(String(MAX_BADGE_NAME_LENGTH))
    issuer_id: Mapped[str] = mapped_column(String(MAX_URL_LENGTH))
    issuer_name: Mapped[str] = mapped_column(String(MAX_ISSUER_NAME_LENGTH))
    recipient: Mapped[str] = mapped_column(String(MAX_RECIPIENT_LENGTH))
    document: Mapped[str] = mapped_column(Text)
    verified_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    checked_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # What the last re-check found wrong, if anything ("" when it passed).
    last_problem: Mapped[str] = mapped_column(String(MAX_REASON_LENGTH), default="")
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    revocation_reason: Mapped[str] = mapped_column(String(MAX_REASON_LENGTH), default="")

    certification: Mapped[Certification] = relationship()
    engineer: Mapped[Engineer] = relationship()


class BadgeMapping(Base):
    """An admin's word that a badge class is a catalog credential."""

    __tablename__ = "badge_mappings"

    id: Mapped[int] = mapped_column(primary_key=True)
    badge_class_id: Mapped[str] = mapped_column(String(MAX_URL_LENGTH), unique=True)
    credential_id: Mapped[int] = mapped_column(ForeignKey("credentials.id", ondelete="CASCADE"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    credential: Mapped[Credential] = relationship()
