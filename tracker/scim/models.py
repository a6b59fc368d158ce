"""SCIM's own rows: the provisioning tokens, and what SCIM knows of people and teams.

A person or a team has a row here only once SCIM has written to it: the
identity provider's externalId, and when SCIM deleted it (it stays in the
tracker, with its history, but SCIM answers 404 for it).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.clock import utcnow
from tracker.db import Base
from tracker.people.models import Engineer, Team
from tracker.scim.rules import MAX_EXTERNAL_ID_LENGTH, MAX_SCIM_TOKEN_NAME_LENGTH


class ScimToken(Base):
    """A bearer token of an identity provider for /scim/v2, stored as a hash; revocable."""

    __tablename__ = "scim_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(MAX_SCIM_TOKEN_NAME_LENGTH), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class ScimUser(Base):
    """What SCIM keeps of a person: the provider's externalId, and whether SCIM deleted them."""

    __tablename__ = "scim_users"

    engineer_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), primary_key=True
    )
    external_id: Mapped[str | None] = mapped_column(String(MAX_EXTERNAL_ID_LENGTH), index=True)
    # Set by a SCIM DELETE: the person is deactivated and SCIM answers 404 for them.
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)

    engineer: Mapped[Engineer] = relationship()


class ScimGroup(Base):
    """What SCIM keeps of a team: the provider's externalId, and whether SCIM deleted it."""

    __tablename__ = "scim_groups"

    team_id: Mapped[int] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    external_id: Mapped[str | None] = mapped_column(String(MAX_EXTERNAL_ID_LENGTH), index=True)
    # Set by a SCIM DELETE: the team's members leave it and SCIM answers 404 for it.
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    # The last change SCIM made to the team or its members.
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)

    team: Mapped[Team] = relationship()
