"""People: engineers (who are also the accounts), teams, job roles and levels over time, tokens."""

from __future__ import annotations

import datetime as dt

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
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.catalog.models.levels import Level
from tracker.catalog.models.skills import JobRole
from tracker.catalog.rules import MAX_LEVEL, MIN_LEVEL
from tracker.clock import utcnow
from tracker.db import Base
from tracker.people.rules import (
    ACCESS_ROLES,
    BROWSER_LOCALE,
    LOCALES,
    MANAGER_ROLES,
    MAX_EMAIL_LENGTH,
    MAX_NAME_LENGTH,
    MAX_TEAM_NAME_LENGTH,
    MAX_TOKEN_NAME_LENGTH,
    MAX_TOKEN_SCOPE_LENGTH,
    TOKEN_SCOPES,
    TOTP_STORED_LENGTH,
    WRITE_SCOPE,
)

_ROLE_LIST = ", ".join(f"'{role}'" for role in ACCESS_ROLES)
_SCOPE_LIST = ", ".join(f"'{scope}'" for scope in TOKEN_SCOPES)
_LOCALE_LIST = ", ".join(f"'{locale}'" for locale in (BROWSER_LOCALE, *LOCALES))


class Team(Base):
    """A team responsible for a GPU fleet."""

    __tablename__ = "teams"
    __table_args__ = (CheckConstraint("gpus >= 0", name="gpus_not_negative"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(MAX_TEAM_NAME_LENGTH), unique=True)
    gpus: Mapped[int] = mapped_column(Integer)
    manager_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="SET NULL", use_alter=True), index=True
    )
    # Secret for the team's iCalendar feed; replacing it revokes the old URL.
    calendar_token: Mapped[str | None] = mapped_column(String(64), unique=True)
    # Bumped by every change that can move the team's readiness (its fleet, its
    # members' roles, levels and certifications, the catalog); the reminder pass
    # re-judges lapses only for teams whose revision it has not judged yet.
    readiness_revision: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    judged_revision: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    manager: Mapped[Engineer | None] = relationship(foreign_keys=[manager_id])
    members: Mapped[list[Engineer]] = relationship(
        back_populates="team",
        foreign_keys=lambda: [Engineer.team_id],
        order_by=lambda: Engineer.name,
    )


class Engineer(Base):
    """A person of the organisation; also the sign-in account."""

    __tablename__ = "engineers"
    __table_args__ = (
        CheckConstraint(f"access_role IN ({_ROLE_LIST})", name="access_role_known"),
        CheckConstraint(f"level BETWEEN {MIN_LEVEL} AND {MAX_LEVEL}", name="level_1_to_5"),
        CheckConstraint("experience_months >= 0", name="experience_not_negative"),
        CheckConstraint("manager_id IS NULL OR manager_id <> id", name="not_own_manager"),
        CheckConstraint(f"locale IN ({_LOCALE_LIST})", name="locale_known"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME_LENGTH))
    # Stored lower-cased, so uniqueness is case-insensitive on every dialect.
    email: Mapped[str] = mapped_column(String(MAX_EMAIL_LENGTH), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    access_role: Mapped[str] = mapped_column(String(16), default="engineer")
    level: Mapped[int] = mapped_column(
        ForeignKey("levels.number", ondelete="RESTRICT"), default=MIN_LEVEL
    )
    team_id: Mapped[int | None] = mapped_column(
        ForeignKey("teams.id", ondelete="SET NULL"), index=True
    )
    manager_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="SET NULL"), index=True
    )
    hired_on: Mapped[dt.date | None] = mapped_column(Date)
    # Documented hands-on GPU-infrastructure experience from before joining.
    experience_text: Mapped[str] = mapped_column(Text, default="")
    experience_months: Mapped[int] = mapped_column(Integer, default=0)
    active: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    # Bumped on sign-out everywhere, password change or deactivation, so
    # that every session cookie issued before stops working.
    session_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    calendar_token: Mapped[str | None] = mapped_column(String(64), unique=True)
    # The interface language; BROWSER_LOCALE lets the browser's Accept-Language choose.
    locale: Mapped[str] = mapped_column(
        String(8), default=BROWSER_LOCALE, server_default=BROWSER_LOCALE
    )
    # Whether the person gets the weekly digest their manager role brings (they may turn
    # it off on their profile, or with the one-click link every digest carries).
    weekly_digest: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    # Two-step sign-in: the TOTP secret once set up, encrypted (services/totp.py; plain
    # base32 in a row stored before that), and the last time step that signed in,
    # which never signs in again (a code seen over a shoulder is spent).
    totp_secret: Mapped[str | None] = mapped_column(String(TOTP_STORED_LENGTH))
    totp_last_step: Mapped[int | None] = mapped_column(Integer)
    # When the person's personal data was erased (tracker/privacy/services/erasure.py):
    # the record stays, pseudonymous, and can never be reactivated.
    erased_at: Mapped[dt.datetime | None] = mapped_column(DateTime, server_default=None)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)

    level_row: Mapped[Level] = relationship()
    team: Mapped[Team | None] = relationship(back_populates="members", foreign_keys=[team_id])
    manager: Mapped[Engineer | None] = relationship(remote_side=[id], foreign_keys=[manager_id])
    role_assignments: Mapped[list[JobRoleAssignment]] = relationship(
        back_populates="engineer",
        order_by=lambda: JobRoleAssignment.started_on,
        cascade="all, delete-orphan",
    )

    # Flask-Login's user protocol, without importing Flask into the models.
    is_authenticated = True
    is_anonymous = False

    @property
    def is_active(self) -> bool:
        return self.active

    def get_id(self) -> str:
        """Return the session identity; it changes when the session epoch is bumped."""
        return f"{self.id}:{self.session_epoch}"

    @property
    def is_admin(self) -> bool:
        return self.access_role == "admin"

    @property
    def is_manager(self) -> bool:
        return self.access_role in MANAGER_ROLES

    @property
    def job_roles(self) -> list[JobRole]:
        """Return the job roles held now (assignments not ended)."""
        return [a.job_role for a in self.role_assignments if a.ended_on is None]

    @property
    def job_role_codes(self) -> frozenset[str]:
        return frozenset(r.code for r in self.job_roles)


class JobRoleAssignment(Base):
    """An engineer holding a job role over a period; the rotation history."""

    __tablename__ = "job_role_assignments"
    __table_args__ = (
        CheckConstraint("ended_on IS NULL OR ended_on >= started_on", name="period_ordered"),
        # One open assignment per engineer and role.
        Index(
            "uq_job_role_assignments_open",
            "engineer_id",
            "job_role_id",
            unique=True,
            sqlite_where=text("ended_on IS NULL"),
            postgresql_where=text("ended_on IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    job_role_id: Mapped[int] = mapped_column(ForeignKey("job_roles.id", ondelete="RESTRICT"))
    started_on: Mapped[dt.date] = mapped_column(Date)
    ended_on: Mapped[dt.date | None] = mapped_column(Date)

    engineer: Mapped[Engineer] = relationship(back_populates="role_assignments")
    job_role: Mapped[JobRole] = relationship()


class ApiToken(Base):
    """A bearer token for the JSON API, stored as a hash; read or write, revocable, may expire."""

    __tablename__ = "api_tokens"
    __table_args__ = (CheckConstraint(f"scope IN ({_SCOPE_LIST})", name="scope_known"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(MAX_TOKEN_NAME_LENGTH), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    scope: Mapped[str] = mapped_column(
        String(MAX_TOKEN_SCOPE_LENGTH), default=WRITE_SCOPE, server_default=WRITE_SCOPE
    )
    # The last day the token works; None: until revoked.
    expires_on: Mapped[dt.date | None] = mapped_column(Date)

    engineer: Mapped[Engineer] = relationship()


class RecoveryCode(Base):
    """A one-time code that stands in for the authenticator app, stored as a hash."""

    __tablename__ = "recovery_codes"
    # Also the index of a person's codes.
    __table_args__ = (UniqueConstraint("engineer_id", "code_hash"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(ForeignKey("engineers.id", ondelete="CASCADE"))
    code_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # Set when it signed someone in: it never works again.
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class LevelChange(Base):
    """A manager setting an engineer's level: who, when, from, to."""

    __tablename__ = "level_changes"
    __table_args__ = (
        CheckConstraint(
            f"from_level IS NULL OR from_level BETWEEN {MIN_LEVEL} AND {MAX_LEVEL}",
            name="from_1_to_5",
        ),
        CheckConstraint(f"to_level BETWEEN {MIN_LEVEL} AND {MAX_LEVEL}", name="to_1_to_5"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engineer_id: Mapped[int] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    from_level: Mapped[int | None] = mapped_column(Integer)
    to_level: Mapped[int] = mapped_column(Integer)
    changed_on: Mapped[dt.date] = mapped_column(Date)
    changed_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="SET NULL")
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    engineer: Mapped[Engineer] = relationship(foreign_keys=[engineer_id])
    changed_by: Mapped[Engineer | None] = relationship(foreign_keys=[changed_by_id])
