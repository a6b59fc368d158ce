"""The catalog: levels, job roles, credentials, courses, paths, exams, templates, strategies."""

from __future__ import annotations

import secrets
from decimal import Decimal
from typing import Protocol

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    event,
    update,
)
from sqlalchemy.orm import Mapped, ORMExecuteState, Session, mapped_column, relationship

from tracker.catalog import rules
from tracker.db import Base, Fixed
from tracker.i18n import in_locale


def _one_of(column: str, values: tuple[str, ...]) -> str:
    """Return the SQL condition "column IN ('a', 'b')"."""
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


_ORIGIN_CHECK = _one_of("origin", rules.ORIGINS)
_LEVEL_RANGE = f"BETWEEN {rules.MIN_LEVEL} AND {rules.MAX_LEVEL}"
_PERCENT_RANGE = f"BETWEEN {rules.MIN_PERCENT} AND {rules.MAX_PERCENT}"


def _spanish(length: int | None = None) -> Mapped[str]:
    """Return the column of a text's Spanish: empty when not given (the English is shown)."""
    return mapped_column(Text if length is None else String(length), default="", server_default="")


class Worded:
    """An entry whose words are stored in English with their Spanish beside them (`name_es`)."""

    def in_locale(self, locale: str, field: str | None = None) -> str:
        """Return the entry's name (or `field`) in `locale`, else its English."""
        return in_locale(self, locale, field)


class Level(Worded, Base):
    """A rung of the skill ladder (1 Foundations .. 5 Architect)."""

    __tablename__ = "levels"
    __table_args__ = (
        CheckConstraint(f"number {_LEVEL_RANGE}", name="number_1_to_5"),
        CheckConstraint("salary_min >= 0 AND salary_min <= salary_max", name="salary_band"),
        CheckConstraint("min_experience_months >= 0", name="experience_not_negative"),
    )

    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(rules.MAX_SHORT_NAME_LENGTH))
    name_es: Mapped[str] = _spanish(rules.MAX_SHORT_NAME_LENGTH)
    experience_label: Mapped[str] = mapped_column(String(rules.MAX_SHORT_NAME_LENGTH), default="")
    experience_label_es: Mapped[str] = _spanish(rules.MAX_SHORT_NAME_LENGTH)
    summary: Mapped[str] = mapped_column(Text, default="")
    summary_es: Mapped[str] = _spanish()
    salary_min: Mapped[int] = mapped_column(Integer)
    salary_max: Mapped[int] = mapped_column(Integer)
    # The promotion rule for reaching this level (docs/domain.md section 1).
    min_experience_months: Mapped[int] = mapped_column(Integer, default=0)
    requires_evidence: Mapped[bool] = mapped_column(Boolean, default=False)

    required_credentials: Mapped[list[Credential]] = relationship(
        secondary=lambda: level_credentials, order_by=lambda: Credential.code
    )

    @property
    def salary_midpoint(self) -> int:
        return (self.salary_min + self.salary_max) // 2


class JobRole(Worded, Base):
    """A kind of work an engineer does (operations, network, storage, ...)."""

    __tablename__ = "job_roles"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_SHORT_NAME_LENGTH))
    name_es: Mapped[str] = _spanish(rules.MAX_SHORT_NAME_LENGTH)


credential_group_members: Table = Table(
    "credential_group_members",
    Base.metadata,
    Column("group_id", ForeignKey("credentials.id", ondelete="CASCADE"), primary_key=True),
    Column("member_id", ForeignKey("credentials.id", ondelete="CASCADE"), primary_key=True),
)

level_credentials: Table = Table(
    "level_credentials",
    Base.metadata,
    Column("level_number", ForeignKey("levels.number", ondelete="CASCADE"), primary_key=True),
    Column("credential_id", ForeignKey("credentials.id", ondelete="CASCADE"), primary_key=True),
)


class Credential(Worded, Base):
    """Anything an engineer can hold: an exam's certification, an external one, or a group."""

    __tablename__ = "credentials"
    __table_args__ = (
        CheckConstraint(_one_of("kind", rules.CREDENTIAL_KINDS), name="kind_known"),
        CheckConstraint(_ORIGIN_CHECK, name="origin_known"),
        CheckConstraint("validity_months IS NULL OR validity_months > 0", name="validity_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    # Given for the tracker's own words (groups, the internal track); a vendor's
    # title has none and stays as the vendor writes it.
    name_es: Mapped[str] = _spanish(rules.MAX_TITLE_LENGTH)
    issuer: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH), default="")
    # Given where the tracker words the issuer itself ("various"); a company's name has none.
    issuer_es: Mapped[str] = _spanish(rules.MAX_NAME_LENGTH)
    kind: Mapped[str] = mapped_column(String(rules.MAX_KIND_LENGTH))
    origin: Mapped[str] = mapped_column(
        String(rules.MAX_KIND_LENGTH), default="seed", server_default="seed"
    )
    # None: does not expire (or, for externals, the holder enters the expiry).
    validity_months: Mapped[int | None] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(Text, default="")
    description_es: Mapped[str] = _spanish()

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
        CheckConstraint(_ORIGIN_CHECK, name="origin_known"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    title: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    # Only the internal track's courses have one: vendors' courses keep their titles.
    title_es: Mapped[str] = _spanish(rules.MAX_TITLE_LENGTH)
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
        CheckConstraint(_ORIGIN_CHECK, name="origin_known"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    name_es: Mapped[str] = _spanish(rules.MAX_TITLE_LENGTH)
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
        CheckConstraint(f"passing_score {_PERCENT_RANGE}", name="passing_score_0_to_100"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    credential_id: Mapped[int] = mapped_column(
        ForeignKey("credentials.id", ondelete="CASCADE"), unique=True
    )
    level_label: Mapped[str] = mapped_column(String(rules.MAX_LABEL_LENGTH), default="")
    questions: Mapped[int | None] = mapped_column(Integer)
    minutes: Mapped[int | None] = mapped_column(Integer)
    delivery: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH), default="")
    delivery_es: Mapped[str] = _spanish(rules.MAX_NAME_LENGTH)
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


slot_credentials: Table = Table(
    "template_slot_credentials",
    Base.metadata,
    Column("slot_id", ForeignKey("template_slots.id", ondelete="CASCADE"), primary_key=True),
    Column("credential_id", ForeignKey("credentials.id", ondelete="RESTRICT"), primary_key=True),
)

template_credentials: Table = Table(
    "team_template_credentials",
    Base.metadata,
    Column("template_id", ForeignKey("team_templates.id", ondelete="CASCADE"), primary_key=True),
    Column("credential_id", ForeignKey("credentials.id", ondelete="RESTRICT"), primary_key=True),
)


class TeamTemplate(Worded, Base):
    """The team a fleet-size band needs: slots, team-wide credentials and a cost range."""

    __tablename__ = "team_templates"
    __table_args__ = (
        CheckConstraint("min_gpus >= 0", name="min_gpus_not_negative"),
        CheckConstraint("max_gpus IS NULL OR max_gpus >= min_gpus", name="gpu_band"),
        CheckConstraint("cost_min >= 0 AND cost_min <= cost_max", name="cost_range"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH))
    name_es: Mapped[str] = _spanish(rules.MAX_NAME_LENGTH)
    # Inclusive band; None means no upper bound.
    min_gpus: Mapped[int] = mapped_column(Integer)
    max_gpus: Mapped[int | None] = mapped_column(Integer)
    cost_min: Mapped[int] = mapped_column(Integer)
    cost_max: Mapped[int] = mapped_column(Integer)

    slots: Mapped[list[TemplateSlot]] = relationship(
        back_populates="template",
        order_by=lambda: TemplateSlot.position,
        cascade="all, delete-orphan",
    )
    team_credentials: Mapped[list[Credential]] = relationship(
        secondary=template_credentials, order_by=lambda: Credential.code
    )

    @property
    def slot_total(self) -> int:
        return sum(s.count for s in self.slots)


class TemplateSlot(Worded, Base):
    """`count` seats for one job role within a level range, each needing credentials."""

    __tablename__ = "template_slots"
    __table_args__ = (
        UniqueConstraint("template_id", "position"),
        CheckConstraint("count > 0", name="count_positive"),
        CheckConstraint(
            f"min_level {_LEVEL_RANGE} AND max_level {_LEVEL_RANGE} AND min_level <= max_level",
            name="level_range",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("team_templates.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH))
    title_es: Mapped[str] = _spanish(rules.MAX_NAME_LENGTH)
    count: Mapped[int] = mapped_column(Integer)
    job_role_id: Mapped[int] = mapped_column(ForeignKey("job_roles.id", ondelete="RESTRICT"))
    min_level: Mapped[int] = mapped_column(Integer)
    max_level: Mapped[int] = mapped_column(Integer)

    template: Mapped[TeamTemplate] = relationship(back_populates="slots")
    job_role: Mapped[JobRole] = relationship()
    credentials: Mapped[list[Credential]] = relationship(
        secondary=slot_credentials, order_by=lambda: Credential.code
    )


class TrainingStrategy(Worded, Base):
    """A way to train, with the figures that plans cost it by."""

    __tablename__ = "training_strategies"
    __table_args__ = (
        CheckConstraint(
            "min_weeks IS NULL OR max_weeks IS NULL OR min_weeks <= max_weeks", name="weeks_range"
        ),
        CheckConstraint(
            "cost_min IS NULL OR cost_max IS NULL OR cost_min <= cost_max", name="cost_range"
        ),
        CheckConstraint(
            f"discount_min_percent IS NULL OR (discount_min_percent {_PERCENT_RANGE}"
            f" AND discount_max_percent BETWEEN discount_min_percent AND {rules.MAX_PERCENT})",
            name="discount_range",
        ),
        CheckConstraint(
            f"productivity_loss_percent IS NULL OR productivity_loss_percent {_PERCENT_RANGE}",
            name="productivity_loss_0_to_100",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH))
    name_es: Mapped[str] = _spanish(rules.MAX_NAME_LENGTH)
    description: Mapped[str] = mapped_column(Text, default="")
    description_es: Mapped[str] = _spanish()
    min_weeks: Mapped[int | None] = mapped_column(Integer)
    max_weeks: Mapped[int | None] = mapped_column(Integer)
    # Per participant, in currency units.
    cost_min: Mapped[int | None] = mapped_column(Integer)
    cost_max: Mapped[int | None] = mapped_column(Integer)
    discount_min_percent: Mapped[int | None] = mapped_column(Integer)
    discount_max_percent: Mapped[int | None] = mapped_column(Integer)
    min_group_size: Mapped[int | None] = mapped_column(Integer)
    productivity_loss_percent: Mapped[int | None] = mapped_column(Integer)


class RoiLine(Worded, Base):
    """A line of the ROI example (docs/domain.md section 6), prefilled in the calculator."""

    __tablename__ = "roi_lines"
    __table_args__ = (
        UniqueConstraint("kind", "code"),
        CheckConstraint(_one_of("kind", rules.ROI_KINDS), name="kind_known"),
        CheckConstraint("amount >= 0", name="amount_not_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(rules.MAX_KIND_LENGTH))
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH))
    label: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    label_es: Mapped[str] = _spanish(rules.MAX_TITLE_LENGTH)
    amount: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer, default=0)


class Speciality(Worded, Base):
    """A skill no certification covers (InfiniBand/RDMA, liquid cooling, MIG, ...)."""

    __tablename__ = "specialities"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH))
    name_es: Mapped[str] = _spanish(rules.MAX_NAME_LENGTH)
    emerging: Mapped[bool] = mapped_column(Boolean, default=False)
    ramp_up_months: Mapped[str] = mapped_column(String(rules.MAX_LABEL_LENGTH), default="")
    ramp_up_months_es: Mapped[str] = _spanish(rules.MAX_LABEL_LENGTH)


class CatalogVersion(Base):
    """One row whose stamp changes with every write to the catalog.

    Pages that read the catalog keep a copy per process (tracker.catalog.services.snapshot)
    and read this one row per request to tell whether their copy is current. The
    stamp is random rather than a counter, so that it also tells one database
    from another (tests, copies) and a rolled-back write brings the old stamp
    back together with the old catalog.
    """

    __tablename__ = "catalog_version"
    __table_args__ = (CheckConstraint("id = 1", name="single_row"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    stamp: Mapped[str] = mapped_column(String(32))


def new_stamp() -> str:
    return secrets.token_hex(16)


# Every mapped class and table of the catalog: a write to any of them (or to
# their association tables) changes the catalog version.
CATALOG_CLASSES: tuple[type[Base], ...] = (
    Level,
    JobRole,
    Credential,
    Course,
    LearningPath,
    PathCourse,
    Exam,
    TeamTemplate,
    TemplateSlot,
    TrainingStrategy,
    RoiLine,
    Speciality,
)
CATALOG_TABLES: frozenset[str] = frozenset(
    [c.__tablename__ for c in CATALOG_CLASSES]
    + [
        credential_group_members.name,
        level_credentials.name,
        exam_prerequisites.name,
        slot_credentials.name,
        template_credentials.name,
    ]
)


# Where a session keeps the stamp it read in its transaction (catalog.services.snapshot).
CATALOG_STAMP_KEY = "tracker.catalog_stamp"


def bump_catalog_version(session: Session) -> None:
    """Give the catalog a new stamp, in the session's transaction (it commits with the write)."""
    session.info.pop(CATALOG_STAMP_KEY, None)
    session.connection().execute(
        update(CatalogVersion).where(CatalogVersion.id == 1).values(stamp=new_stamp())
    )


@event.listens_for(Session, "before_flush")
def _catalog_written(session: Session, flush_context, instances) -> None:
    """Bump the catalog version when a flush writes catalog rows (ORM objects)."""
    if any(isinstance(obj, CATALOG_CLASSES) for obj in (*session.new, *session.deleted)) or any(
        isinstance(obj, CATALOG_CLASSES) and session.is_modified(obj) for obj in session.dirty
    ):
        bump_catalog_version(session)


@event.listens_for(Session, "do_orm_execute")
def _catalog_statement(state: ORMExecuteState) -> None:
    """Bump the catalog version before an INSERT, UPDATE or DELETE statement on the catalog."""
    if not (state.is_insert or state.is_update or state.is_delete):
        return
    table = getattr(state.statement, "table", None)
    if getattr(table, "name", None) in CATALOG_TABLES:
        bump_catalog_version(state.session)
