"""Weekly digests: each manager's people's expiries within the horizon, and what each lapse does."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, Select, and_, exists, or_, select
from sqlalchemy.orm import Session, aliased

from tracker.catalog.models.credentials import Credential
from tracker.i18n import ngettext
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification
from tracker.readiness.models import LapseImpact
from tracker.readiness.services.current import refresh
from tracker.readiness.services.lapses import impact_message
from tracker.readiness.services.organisation import rows_of_managers
from tracker.reminders import messages
from tracker.reminders.rules import CERTIFICATIONS_PER_BATCH, DIGEST_HORIZON_DAYS
from tracker.reminders.services.queueing import Mail, PassReport, due_at, insert_new
from tracker.reminders.services.unsubscribe import unsubscribe_url


@dataclass(frozen=True)
class Named:
    """A person in a digest line: what the digest shows of them."""

    id: int
    name: str


_OwnManager = aliased(Engineer, name="own_manager")
_TeamManager = aliased(Engineer, name="team_manager")


def _owed_columns() -> tuple[Any, ...]:
    """Columns of an owed certification: its holder, credential and managers' addresses."""
    return (
        Certification.id,
        Certification.engineer_id,
        Engineer.name,
        Engineer.email,
        Certification.credential_id,
        Credential.code,
        Certification.expires_on,
        Engineer.team_id,
        _OwnManager.id,
        _OwnManager.email,
        _TeamManager.id,
        _TeamManager.email,
    )


def _owed_from(query: Select[Any]) -> Select[Any]:
    return (
        query.join(Engineer, Engineer.id == Certification.engineer_id)
        .join(Credential, Credential.id == Certification.credential_id)
        .outerjoin(Team, Team.id == Engineer.team_id)
        # The managers who get the digest: active, and not turned off by them.
        .outerjoin(
            _OwnManager,
            and_(
                _OwnManager.id == Engineer.manager_id,
                _OwnManager.active.is_(True),
                _OwnManager.weekly_digest.is_(True),
            ),
        )
        .outerjoin(
            _TeamManager,
            and_(
                _TeamManager.id == Team.manager_id,
                _TeamManager.active.is_(True),
                _TeamManager.weekly_digest.is_(True),
            ),
        )
    )


@dataclass
class _Owed:
    """A certification that is owed a notice on the day, as plain values."""

    id: int
    engineer_id: int
    engineer_name: str
    email: str
    credential_id: int
    code: str
    expires_on: dt.date
    team_id: int | None
    managers: tuple[tuple[int, str], ...]
    impact: str | None = None

    @classmethod
    def of(cls, row: Row[Any]) -> _Owed:
        cid, eid, name, email, credential, code, expires, team_id, m1, e1, m2, e2 = row[:12]
        managers: list[tuple[int, str]] = []
        for manager_id, address in ((m1, e1), (m2, e2)):
            if manager_id is not None and manager_id != eid and manager_id not in dict(managers):
                managers.append((manager_id, address))
        return cls(
            cid, eid, name, email, credential, code, expires, team_id, tuple(managers), *row[12:]
        )


@dataclass(frozen=True)
class DigestItem:
    """One certification in a manager's digest."""

    engineer: Named
    credential: Credential
    expires_on: dt.date
    days_left: int
    impact: str


def queue_digests(
    session: Session, report: PassReport, today: dt.date, week_key: str, mail: Mail
) -> None:
    """Queue, at the week's first pass, one digest per manager of their people's expiries.

    A digest lists the certifications expiring within DIGEST_HORIZON_DAYS and
    what each lapse does to readiness, then the readiness of the manager's
    teams today (the stored readiness, brought up to date first). The week is
    the ISO week. A manager who turned the digest off gets none; each digest
    carries the link that turns it off (its List-Unsubscribe header too).
    """
    refresh(session, today)
    newer = aliased(Certification)
    rows = session.execute(
        _owed_from(select(*_owed_columns(), LapseImpact.impact))
        .outerjoin(
            LapseImpact,
            and_(
                LapseImpact.certification_id == Certification.id,
                LapseImpact.team_id == Engineer.team_id,
            ),
        )
        .where(
            Engineer.active.is_(True),
            Certification.expires_on >= today,
            Certification.expires_on <= today + dt.timedelta(days=DIGEST_HORIZON_DAYS),
            ~exists().where(newer.renews_id == Certification.id),
            Certification.revoked_on.is_(None),
            or_(_OwnManager.id.is_not(None), _TeamManager.id.is_not(None)),
        )
        .order_by(Certification.expires_on, Certification.id)
    ).all()
    owed = [o for o in map(_Owed.of, rows) if o.managers]
    credentials = {
        c.id: c
        for c in session.scalars(
            select(Credential).where(Credential.id.in_({o.credential_id for o in owed}))
        )
    }
    by_manager: dict[int, list[DigestItem]] = {}
    for o in owed:
        item = DigestItem(
            Named(o.engineer_id, o.engineer_name),
            credentials[o.credential_id],
            o.expires_on,
            (o.expires_on - today).days,
            # The marked message: each digest shows it in its manager's language.
            impact_message(o.impact or ""),
        )
        for manager_id, _ in o.managers:
            by_manager.setdefault(manager_id, []).append(item)
    # What a digest needs of its manager, as plain rows.
    managers = {
        m.id: m
        for start in range(0, len(by_manager), CERTIFICATIONS_PER_BATCH)
        for m in session.execute(
            select(Engineer.id, Engineer.name, Engineer.email, Engineer.locale).where(
                Engineer.id.in_(list(by_manager)[start : start + CERTIFICATIONS_PER_BATCH])
            )
        )
    }
    teams = {
        manager_id: rows
        for start in range(0, len(by_manager), CERTIFICATIONS_PER_BATCH)
        for manager_id, rows in rows_of_managers(
            session, list(by_manager)[start : start + CERTIFICATIONS_PER_BATCH]
        ).items()
    }
    notices = []
    for manager_id, items in by_manager.items():
        manager = managers[manager_id]
        key = f"digest:{manager.id}:{week_key}"
        locale = messages.reader_locale(manager.locale, mail.locale)
        unsubscribe = unsubscribe_url(mail.base_url, mail.signing_key, manager.id)
        text, html = messages.render(
            "digest",
            locale,
            manager=manager,
            items=items,
            teams=teams.get(manager_id, []),
            today=today,
            horizon=DIGEST_HORIZON_DAYS,
            base_url=mail.base_url.rstrip("/"),
            link=f"{mail.base_url.rstrip('/')}/teams",
            unsubscribe=unsubscribe,
        )
        notices.append(
            {
                "dedupe_key": key,
                "kind": "digest",
                "certification_id": None,
                "window_days": None,
                "engineer_id": manager.id,
                "to_addrs": manager.email,
                "cc_addrs": "",
                "subject": ngettext(
                    "Weekly digest: %(count)s certification expiring within %(days)s days",
                    "Weekly digest: %(count)s certifications expiring within %(days)s days",
                    len(items),
                    locale,
                    count=messages.mail_number(len(items), locale),
                    days=messages.mail_number(DIGEST_HORIZON_DAYS, locale),
                ),
                "locale": locale,
                "body_text": text,
                "body_html": html,
                "ics": None,
                "unsubscribe_url": unsubscribe,
                "message_id": mail.message_id(key),
                "next_attempt_at": due_at(today),
            }
        )
    insert_new(session, report, notices)
