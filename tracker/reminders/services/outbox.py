"""The outbox page's reads: notifications by page, filtered, and how many per status."""

from __future__ import annotations

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from tracker.db import CountedPage, within_pages
from tracker.reminders.models import Notification

OUTBOX_PAGE_SIZE = 50


class OutboxPage(CountedPage[Notification]):
    """One page of outbox rows, newest first, and where it sits among the pages."""


def outbox(
    session: Session,
    *,
    status: str | None = None,
    kind: str | None = None,
    search: str = "",
    page: int = 1,
    per_page: int = OUTBOX_PAGE_SIZE,
) -> OutboxPage:
    """Return a page of notifications, newest first, filtered by status, kind and text.

    The text matches recipients (to and cc) and subjects, case-insensitively,
    as plain text (% and _ are not wildcards); a notice not composed yet has no
    subject to match (the pass's English placeholder is never shown). A page past
    the end shows the last.
    """
    query = select(Notification)
    if status:
        query = query.where(Notification.status == status)
    if kind:
        query = query.where(Notification.kind == kind)
    search = search.strip()
    if search:
        query = query.where(
            or_(
                Notification.to_addrs.icontains(search, autoescape=True),
                Notification.cc_addrs.icontains(search, autoescape=True),
                and_(
                    Notification.body_text.is_not(None),
                    Notification.subject.icontains(search, autoescape=True),
                ),
            )
        )
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    page = within_pages(page, total, per_page)
    rows = session.scalars(
        query.order_by(Notification.created_at.desc(), Notification.id.desc())
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).all()
    return OutboxPage(rows=list(rows), total=total, page=page, per_page=per_page)


def outbox_counts(session: Session) -> dict[str, int]:
    """Return how many notifications are in each status."""
    rows = session.execute(
        select(Notification.status, func.count()).group_by(Notification.status)
    ).tuples()
    return dict(rows.all())
