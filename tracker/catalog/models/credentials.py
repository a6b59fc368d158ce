"""Credentials and the ways to them: groups, the exams that grant them, courses, learning paths."""

from __future__ import annotations

from decimal import Decimal
from typing import Protocol

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.catalog import rules
from tracker.catalog.models.columns import ORIGIN_CHECK, PERCENT_RANGE, Worded, one_of, spanish
from tracker.db import Base, Fixed

credential_group_members: Table = Table(
    "credential_group_members",
    Base.metadata,
    Column("group_id", ForeignKey("credentials.id", ondelete="CASCADE"), primary_key=True),
    Column("member_id", ForeignKey("credentials.id", ondelete="CASCADE"), primary_key=True),
)


class Credential(Worded, Base):
    """Anything an engineer can hold: an exam's certification, an external one, or a group."""

    __tablename__ = "credentials"
    __table_args__ = (
        CheckConstraint(one_of("kind", rules.CREDENTIAL_KINDS), name="kind_known"),
        CheckConstraint(ORIGIN_CHECK, name="origin_known"),
        CheckConstraint("validity_months IS NULL OR validity_months > 0", name="validity_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    # Given for the tracker's own words (groups, the internal track); a vendor's
    # title has none and stays as the vendor writes it.
    name_es: Mapped[str] = spanish(rules.MAX_TITLE_LENGTH)
    issuer: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH), default="")
    # Given where the tracker words the issuer itself ("various"); a company's name has none.
    issuer_es: Mapped[str] = spanish(rules.MAX_NAME_LENGTH)
    kind: Mapped[str] = mapped_column(String(rules.MAX_KIND_LENGTH))
    origin: Mapped[str] = mapped_column(
        String(rules.MAX_KIND_LENGTH), default="seed", server_default="seed"
    )
    # None: does not expire (or, for externals, the holder enters the expiry).
    validity_months: Mapped[int | None] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(Text, default="")
    description_es: Mapped[str] = spanish()

    members: Mapped[list[Credential]] = relationship(
        secondary=credential_group_members,
        primaryjoin=lambda: Credential.id == credential_group_members.c.group_id,
        secondaryjoin=lambda: Credential.id == credential_group_members.c.member_id,
        order_by=lambda: Credential.code,
    )
    exam: Mapped[Exam | None] = relationship(back_populates="credential")

    def satisfying_ids(self) -> frozenset[int]:
        """Return the ids whose holding satisfies this credential (itself, or a member)."""
        if self.kind == "group":
            return frozenset(m.id for m in self.members)
        return frozenset({self.id})


class Course(Worded, Base):
    """A course with its hours, provider and list price."""

    __tablename__ = "courses"
    __table_args__ = (
        CheckConstraint("hours > 0", name="hours_positive"),
        CheckConstraint("list_price IS NULL OR list_price >= 0", name="price_not_negative"),
        CheckConstraint(ORIGIN_CHECK, name="origin_known"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    title: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    # Only the internal track's courses have one: vendors' courses keep their titles.
    title_es: Mapped[str] = spanish(rules.MAX_TITLE_LENGTH)
    hours: Mapped[Decimal] = mapped_column(Fixed(rules.DECIMAL_PLACES))
    provider: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH), default="")
    list_price: Mapped[Decimal | None] = mapped_column(Fixed(rules.DECIMAL_PLACES))
    origin: Mapped[str] = mapped_column(
        String(rules.MAX_KIND_LENGTH), default="seed", server_default="seed"
    )


class LearningPath(Worded, Base):
    """An ordered list of courses, a target duration and a closing exam."""

    __tablename__ = "learning_paths"
    __table_args__ = (
        CheckConstraint("target_months > 0", name="target_positive"),
        CheckConstraint(ORIGIN_CHECK, name="origin_known"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    name_es: Mapped[str] = spanish(rules.MAX_TITLE_LENGTH)
    target_months: Mapped[int] = mapped_column(Integer)
    exam_id: Mapped[int | None] = mapped_column(ForeignKey("exams.id", ondelete="SET NULL"))
    origin: Mapped[str] = mapped_column(
        String(rules.MAX_KIND_LENGTH), default="seed", server_default="seed"
    )

    exam: Mapped[Exam | None] = relationship(back_populates="paths")
    path_courses: Mapped[list[PathCourse]] = relationship(
        back_populates="path", order_by=lambda: PathCourse.position, cascade="all, delete-orphan"
    )

    @property
    def courses(self) -> list[Course]:
        return [pc.course for pc in self.path_courses]

    @property
    def total_hours(self) -> Decimal:
        return sum((c.hours for c in self.courses), Decimal(0))


class PathCourse(Base):
    """A course at its position in a path."""

    __tablename__ = "path_courses"
    __table_args__ = (
        UniqueConstraint("path_id", "course_id"),
        CheckConstraint("position >= 1", name="position_positive"),
    )

    path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="RESTRICT"))

    path: Mapped[LearningPath] = relationship(back_populates="path_courses")
    course: Mapped[Course] = relationship()


exam_prerequisites: Table = Table(
    "exam_prerequisites",
    Base.metadata,
    Column("exam_id", ForeignKey("exams.id", ondelete="CASCADE"), primary_key=True),
    Column("credential_id", ForeignKey("credentials.id", ondelete="RESTRICT"), primary_key=True),
)


class _Named(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def name_es(self) -> str: ...
    @property
    def validity_months(self) -> int | None: ...


class _LeadsToCredential(Protocol):
    @property
    def credential(self) -> _Named: ...


class NamedByCredential(Worded):
    """An exam's code, name and validity: those of the credential it leads to (`credential`)."""

    @property
    def code(self: _LeadsToCredential) -> str:
        return self.credential.code

    @property
    def name(self: _LeadsToCredential) -> str:
        return self.credential.name

    @property
    def name_es(self: _LeadsToCredential) -> str:
        return self.credential.name_es

    @property
    def validity_months(self: _LeadsToCredential) -> int | None:
        return self.credential.validity_months


class Exam(NamedByCredential, Base):
    """An exam that grants a credential, with its format and prerequisites."""

    __tablename__ = "exams"
    __table_args__ = (
        CheckConstraint("questions IS NULL OR questions > 0", name="questions_positive"),
        CheckConstraint("minutes IS NULL OR minutes > 0", name="minutes_positive"),
        CheckConstraint("experience_months >= 0", name="experience_not_negative"),
        CheckConstraint("retake_wait_days >= 0", name="retake_wait_not_negative"),
        CheckConstraint("list_price IS NULL OR list_price >= 0", name="price_not_negative"),
        CheckConstraint(f"passing_score {PERCENT_RANGE}", name="passing_score_0_to_100"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    credential_id: Mapped[int] = mapped_column(
        ForeignKey("credentials.id", ondelete="CASCADE"), unique=True
    )
    level_label: Mapped[str] = mapped_column(String(rules.MAX_LABEL_LENGTH), default="")
    questions: Mapped[int | None] = mapped_column(Integer)
    minutes: Mapped[int | None] = mapped_column(Integer)
    delivery: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH), default="")
    delivery_es: Mapped[str] = spanish(rules.MAX_NAME_LENGTH)
    # Months of documented hands-on experience required on the attempt date.
    experience_months: Mapped[int] = mapped_column(Integer, default=0)
    retake_wait_days: Mapped[int] = mapped_column(Integer, default=rules.DEFAULT_RETAKE_WAIT_DAYS)
    passing_score: Mapped[int] = mapped_column(Integer, default=rules.DEFAULT_PASSING_SCORE)
    list_price: Mapped[Decimal | None] = mapped_column(Fixed(rules.DECIMAL_PLACES))

    credential: Mapped[Credential] = relationship(back_populates="exam")
    prerequisites: Mapped[list[Credential]] = relationship(
        secondary=exam_prerequisites, order_by=lambda: Credential.code
    )
    paths: Mapped[list[LearningPath]] = relationship(back_populates="exam")
