"""The account trail of people: writing who provisioned or changed whom, how; reading it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, or_, select
from sqlalchemy.orm import Session, aliased

from tracker.audit.accounts import record_account_event
from tracker.audit.models import AccountEvent
from tracker.audit.services import jsonable
from tracker.db import CountedPage, within_pages
from tracker.people.models import Engineer, Team
from tracker.people.rules import shown_name


def trail(
    session: Session,
    kind: str,
    engineer: Engineer,
    actor: Engineer | None,
    via: str | None,
    detail: dict[str, Any] | None = None,
) -> None:
    """Record a change of `engineer`'s account by `actor`, through `via` (web, api, cli...)."""
    record_account_event(
        session,
        kind,
        engineer_id=engineer.id,
        email=engineer.email,
        method=via,
        actor_id=actor.id if actor else None,
        detail=detail,
    )


def trail_fields(engineer: Engineer) -> dict[str, Any]:
    """Return what an `updated` event compares (role and level have events of their own)."""
    return jsonable(
        {
            "job_roles": sorted(engineer.job_role_codes),
            "team_id": engineer.team.id if engineer.team else None,
            "manager_id": engineer.manager.id if engineer.manager else None,
            "hired_on": engineer.hired_on,
            "experience_months": engineer.experience_months,
            "locale": engineer.locale,
        }
    )


# --- reading ----------------------------------------------------------------

TRAIL_PAGE_SIZE = 50


@dataclass(frozen=True)
class TrailRow:
    """One event with the names of its person and of who made the change."""

    event: AccountEvent
    person_name: str | None
    actor_name: str | None

    @classmethod
    def of(cls, event: AccountEvent, person_name: str | None, actor_name: str | None) -> TrailRow:
        """Return the row with its names marked: an erased person's pseudonym to translate."""
        return cls(
            event,
            shown_name(event.engineer_id, person_name)
            if person_name and event.engineer_id
            else person_name,
            shown_name(event.actor_id, actor_name) if actor_name and event.actor_id else actor_name,
        )


class TrailPage(CountedPage[TrailRow]):
    """One page of the account trail, newest first, and where it sits among the pages."""


_person = aliased(Engineer)
_actor = aliased(Engineer)


def _trail_query(
    search: str, kind: str | None, method: str | None, since: dt.date | None, until: dt.date | None
) -> Select:
    query = (
        select(AccountEvent, _person.name, _actor.name)
        .outerjoin(_person, _person.id == AccountEvent.engineer_id)
        .outerjoin(_actor, _actor.id == AccountEvent.actor_id)
    )
    search = search.strip()
    if search:
        query = query.where(
            or_(
                AccountEvent.email.icontains(search, autoescape=True),
                _person.name.icontains(search, autoescape=True),
                _person.email.icontains(search, autoescape=True),
            )
        )
    if kind:
        query = query.where(AccountEvent.kind == kind)
    if method:
        query = query.where(AccountEvent.method == method)
    # The days are whole UTC days, as the page shows the times.
    if since is not None:
        query = query.where(AccountEvent.at >= dt.datetime.combine(since, dt.time.min))
    if until is not None and until < dt.date.max:
        next_day = dt.datetime.combine(until + dt.timedelta(days=1), dt.time.min)
        query = query.where(AccountEvent.at < next_day)
    return query


def account_trail(
    session: Session,
    *,
    search: str = "",
    kind: str | None = None,
    method: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    page: int = 1,
    per_page: int = TRAIL_PAGE_SIZE,
) -> TrailPage:
    """Return a page of the account trail, newest first, filtered.

    The text matches the address the event names and the person's name and
    current address, case-insensitively, as plain text (% and _ are not
    wildcards); `since` and `until` are days, both included. A page past the
    end shows the last.
    """
    query = _trail_query(search, kind, method, since, until)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    page = within_pages(page, total, per_page)
    rows = session.execute(
        query.order_by(AccountEvent.at.desc(), AccountEvent.id.desc())
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).tuples()
    return TrailPage(
        rows=[TrailRow.of(*row) for row in rows], total=total, page=page, per_page=per_page
    )


def account_trail_rows(
    session: Session,
    *,
    search: str = "",
    kind: str | None = None,
    method: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> Iterator[TrailRow]:
    """Yield every event the filters keep, newest first (the CSV download)."""
    query = _trail_query(search, kind, method, since, until)
    for row in session.execute(
        query.order_by(AccountEvent.at.desc(), AccountEvent.id.desc()).execution_options(
            yield_per=1000
        )
    ).tuples():
        yield TrailRow.of(*row)


# The fields of an `updated` event that hold another record's id, and that record.
REFERENCES: dict[str, type[Team] | type[Engineer]] = {"team_id": Team, "manager_id": Engineer}


class ReferencedNames:
    """The names of the teams and managers `updated` events point to, read once each."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.known: dict[tuple[str, int], str | None] = {}

    def get(self, field: str, record_id: int) -> str | None:
        """Return the name of the record `field` = `record_id` names; None when it is gone."""
        key = (field, record_id)
        if key not in self.known:
            model = REFERENCES[field]
            name = self.session.scalar(select(model.name).where(model.id == record_id))
            if name is not None and model is Engineer:
                name = shown_name(record_id, name)
            self.known[key] = name
        return self.known[key]
