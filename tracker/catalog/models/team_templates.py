"""Team templates: the team a fleet-size band needs, its slots and team-wide credentials."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Column, ForeignKey, Integer, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.catalog import rules
from tracker.catalog.models.columns import LEVEL_RANGE, Worded, spanish
from tracker.catalog.models.credentials import Credential
from tracker.catalog.models.skills import JobRole
from tracker.db import Base

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
    name_es: Mapped[str] = spanish(rules.MAX_NAME_LENGTH)
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
            f"min_level {LEVEL_RANGE} AND max_level {LEVEL_RANGE} AND min_level <= max_level",
            name="level_range",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("team_templates.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH))
    title_es: Mapped[str] = spanish(rules.MAX_NAME_LENGTH)
    count: Mapped[int] = mapped_column(Integer)
    job_role_id: Mapped[int] = mapped_column(ForeignKey("job_roles.id", ondelete="RESTRICT"))
    min_level: Mapped[int] = mapped_column(Integer)
    max_level: Mapped[int] = mapped_column(Integer)

    template: Mapped[TeamTemplate] = relationship(back_populates="slots")
    job_role: Mapped[JobRole] = relationship()
    credentials: Mapped[list[Credential]] = relationship(
        secondary=slot_credentials, order_by=lambda: Credential.code
    )
