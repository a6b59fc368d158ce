"""The issuer's key and the credentials it signed."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.clock import utcnow
from tracker.db import Base
from tracker.issuer.rules import MAX_TOKEN_LENGTH
from tracker.people.models import Engineer
from tracker.progress.models import Certification


class IssuerKey(Base):
    """An Ed25519 key of the deployment; the newest signs, every one stays published."""

    __tablename__ = "issuer_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    # The private key as encrypted PKCS#8 (by the deployment's secret key); never shown.
    private_key: Mapped[bytes] = mapped_column(LargeBinary)
    # The public key as a multibase multikey (z6Mk...).
    public_key: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class IssuedCredential(Base):
    """An Open Badges 3.0 credential signed for an internal-track certification."""

    __tablename__ = "issued_credentials"

    id: Mapped[int] = mapped_column(primary_key=True)
    # Cleared when the certification is deleted: the credential then counts as revoked.
    certification_id: Mapped[int | None] = mapped_column(
        ForeignKey("certifications.id", ondelete="SET NULL"), unique=True
    )
    engineer_id: Mapped[int | None] = mapped_column(ForeignKey("engineers.id", ondelete="SET NULL"))
    credential_uri: Mapped[str] = mapped_column(String(64), unique=True)
    public_token: Mapped[str] = mapped_column(String(MAX_TOKEN_LENGTH), unique=True)
    status_index: Mapped[int] = mapped_column(Integer, unique=True)
    document: Mapped[str] = mapped_column(Text)
    show_name: Mapped[bool] = mapped_column(Boolean, default=False)
    issued_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    revoked_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="SET NULL")
    )

    certification: Mapped[Certification | None] = relationship()
    engineer: Mapped[Engineer | None] = relationship(foreign_keys=[engineer_id])
