"""Single sign-on: a person's accounts at OpenID providers, and sign-ins under way."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.clock import utcnow
from tracker.db import Base
from tracker.identity.rules import (
    MAX_ISSUER_LENGTH,
    MAX_NEXT_LENGTH,
    MAX_STATE_LENGTH,
    MAX_SUBJECT_LENGTH,
)
from tracker.people.models import Engineer
from tracker.people.rules import MAX_EMAIL_LENGTH


class Identity(Base):
    """A person's account at an OpenID provider: the provider's (issuer, subject) pair."""

    __tablename__ = "oidc_identities"
    __table_args__ = (
        # The provider's subject names one account of the provider, forever.
        UniqueConstraint("issuer", "subject"),
        # A person is linked to at most one account of each provider.
        UniqueConstraint("engineer_id", "issuer"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(ForeignKey("engineers.id", ondelete="CASCADE"))
    issuer: Mapped[str] = mapped_column(String(MAX_ISSUER_LENGTH))
    subject: Mapped[str] = mapped_column(String(MAX_SUBJECT_LENGTH))
    # The address the provider gave at the last sign-in (the account's own may differ).
    email: Mapped[str] = mapped_column(String(MAX_EMAIL_LENGTH), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_sign_in_at: Mapped[dt.datetime | None] = mapped_column(DateTime)

    engineer: Mapped[Engineer] = relationship()


class SignInRequest(Base):
    """A sign-in sent to the provider: its state, nonce and PKCE verifier, usable once."""

    __tablename__ = "oidc_sign_in_requests"

    id: Mapped[int] = mapped_column(primary_key=True)
    state: Mapped[str] = mapped_column(String(MAX_STATE_LENGTH), unique=True)
    nonce: Mapped[str] = mapped_column(String(MAX_STATE_LENGTH))
    code_verifier: Mapped[str] = mapped_column(String(128))
    # Where to go once signed in: a path on this site, or empty for the dashboard.
    next_path: Mapped[str] = mapped_column(String(MAX_NEXT_LENGTH), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    # Set when the provider's answer comes back: a second answer with this state is refused.
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
