"""The hours page's read: an engineer's hour log a page at a time, newest first."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from tracker.db import CountedPage, page_count, within_pages
from tracker.progress.models import HourLog
from tracker.progress.rules import HOUR_LOG_PAGE_SIZE


@dataclass(frozen=True)
class HourLogPage(CountedPage[HourLog]):
    """One page of an engineer's entries, and where it sits among the pages."""

    hours: Decimal  # over every page


def hour_log_page(
    session: Session, engineer_id: int, page: int = 1, per_page: int = HOUR_LOG_PAGE_SIZE
) -> HourLogPage:
    """Return a page of the engineer's entries, newest first, with how many and how long in all.

    By date, then the entry logged last. A page past the end shows the last.
    """
    mine = HourLog.engineer_id == engineer_id
    total, hours = session.execute(
        select(func.count(), func.coalesce(func.sum(HourLog.hours), 0)).where(mine)
    ).one()
    page = within_pages(page, total, per_page)
    rows = session.scalars(
        select(HourLog)
        .where(mine)
        .options(selectinload(HourLog.course))
        .order_by(HourLog.logged_on.desc(), HourLog.id.desc())
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).all()
    return HourLogPage(list(rows), total, page, per_page, Decimal(hours))


def hour_log_pages(session: Session, engineer_id: int, per_page: int = HOUR_LOG_PAGE_SIZE) -> int:
    """Return how many pages the engineer's entries fill (one when there are none)."""
    total = session.scalar(select(func.count()).where(HourLog.engineer_id == engineer_id))
    return page_count(total or 0, per_page)
