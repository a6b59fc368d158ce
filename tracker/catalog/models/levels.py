"""The ladder's levels (1 Foundations .. 5 Architect) and the credentials each requires."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Column, ForeignKey, Integer, String, Table, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.catalog import rules
from tracker.catalog.models.columns import LEVEL_RANGE, Worded, spanish
from tracker.catalog.models.credentials import Credential
from tracker.db import Base

level_credentials: Table = Table(
    "level_credentials",
    Base.metadata,
    Column("level_number", ForeignKey("levels.number", ondelete="CASCADE"), primary_key=True),
    Column("credential_id", ForeignKey("credentials.id", ondelete="CASCADE"), primary_key=True),
)


class Level(Worded, Base):
    """A rung of the skill ladder (1 Foundations .. 5 Architect)."""

    __tablename__ = "levels"
    __table_args__ = (
        CheckConstraint(f"number {LEVEL_RANGE}", name="number_1_to_5"),
        CheckConstraint("salary_min >= 0 AND salary_min <= salary_max", name="salary_band"),
        CheckConstraint("min_experience_months >= 0", name="experience_not_negative"),
    )

    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(rules.MAX_SHORT_NAME_LENGTH))
    name_es: Mapped[str] = spanish(rules.MAX_SHORT_NAME_LENGTH)
    experience_label: Mapped[str] = mapped_column(String(rules.MAX_SHORT_NAME_LENGTH), default="")
    experience_label_es: Mapped[str] = spanish(rules.MAX_SHORT_NAME_LENGTH)
    summary: Mapped[str] = mapped_column(Text, default="")
    summary_es: Mapped[str] = spanish()
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
