"""The kinds of work and skill the catalog names: job roles, specialities."""

from __future__ import annotations

from sqlalchemy import Boolean, String
from sqlalchemy.orm import Mapped, mapped_column

from tracker.catalog import rules
from tracker.catalog.models.columns import Worded, spanish
from tracker.db import Base


class JobRole(Worded, Base):
    """A kind of work an engineer does (operations, network, storage, ...)."""

    __tablename__ = "job_roles"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_SHORT_NAME_LENGTH))
    name_es: Mapped[str] = spanish(rules.MAX_SHORT_NAME_LENGTH)


class Speciality(Worded, Base):
    """A skill no certification covers (InfiniBand/RDMA, liquid cooling, MIG, ...)."""

    __tablename__ = "specialities"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(rules.MAX_CODE_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(rules.MAX_NAME_LENGTH))
    name_es: Mapped[str] = spanish(rules.MAX_NAME_LENGTH)
    emerging: Mapped[bool] = mapped_column(Boolean, default=False)
    ramp_up_months: Mapped[str] = mapped_column(String(rules.MAX_LABEL_LENGTH), default="")
    ramp_up_months_es: Mapped[str] = spanish(rules.MAX_LABEL_LENGTH)
