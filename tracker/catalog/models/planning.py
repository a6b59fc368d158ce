"""What plans and the ROI calculator reckon with: ways to train, the ROI example's lines."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from tracker.catalog import rules
from tracker.catalog.models.columns import PERCENT_RANGE, Worded, one_of, spanish
from tracker.db import Base


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
            f"discount_min_percent IS NULL OR (discount_min_percent {PERCENT_RANGE}"
            f" AND discount_max_percent BETWEEN discount_min_percent AND {rules.MAX_PERCENT})",
            name="discount_range",
        ),
        CheckConstraint(
            f"productivity_loss_percent IS NULL OR productivity_loss_percent {PERCENT_RANGE}",
            name="productivity_loss_0_to_100",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH))
    name_es: Mapped[str] = spanish(rules.MAX_NAME_LENGTH)
    description: Mapped[str] = mapped_column(Text, default="")
    description_es: Mapped[str] = spanish()
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
        CheckConstraint(one_of("kind", rules.ROI_KINDS), name="kind_known"),
        CheckConstraint("amount >= 0", name="amount_not_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(rules.MAX_KIND_LENGTH))
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH))
    label: Mapped[str] = mapped_column(String(rules.MAX_TITLE_LENGTH))
    label_es: Mapped[str] = spanish(rules.MAX_TITLE_LENGTH)
    amount: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer, default=0)
