"""The catalog's version: a stamp every write to the catalog's tables changes."""

from __future__ import annotations

import secrets

from sqlalchemy import CheckConstraint, Integer, String, event, update
from sqlalchemy.orm import Mapped, ORMExecuteState, Session, mapped_column

from tracker.catalog.models.credentials import (
    Course,
    Credential,
    Exam,
    LearningPath,
    PathCourse,
    credential_group_members,
    exam_prerequisites,
)
from tracker.catalog.models.levels import Level, level_credentials
from tracker.catalog.models.planning import RoiLine, TrainingStrategy
from tracker.catalog.models.skills import JobRole, Speciality
from tracker.catalog.models.team_templates import (
    TeamTemplate,
    TemplateSlot,
    slot_credentials,
    template_credentials,
)
from tracker.db import Base


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
