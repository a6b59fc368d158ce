"""The audit trail names the person each event is about as it writes the event."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import TODAY
from tests.helpers import WEBHOOK_HOSTS
from tracker.audit import services as audit
from tracker.audit.models import AuditEvent
from tracker.clock import utcnow
from tracker.progress.models import HourLog
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.hours import delete_hours, log_hours, update_hours
from tracker.webhooks.services.endpoints import add_endpoint, rotate_secret


def _about(db: Session) -> list[tuple[str, str, int | None]]:
    db.flush()
    rows = db.execute(
        select(AuditEvent.entity, AuditEvent.action, AuditEvent.engineer_id).order_by(AuditEvent.id)
    )
    return [tuple(row) for row in rows]  # type: ignore[misc]


def test_each_writer_names_the_person_an_event_is_about(db: Session) -> None:
    who, boss = factories.engineer(db), factories.engineer(db, access_role="manager")
    course = factories.course(db, "FDL")
    # Inserted with its event in one statement on PostgreSQL, in two on SQLite.
    entry = log_hours(db, who, course, TODAY, Decimal("1.5"), TODAY, actor=boss)
    held = db.get(HourLog, entry.id)
    assert held is not None
    update_hours(db, held, course, TODAY, Decimal(2), TODAY, actor=boss)
    delete_hours(db, held, actor=boss)
    record_attempt(db, who, factories.exam(db, "NCA-AIIO"), TODAY, 80, True, TODAY)
    audit.record(db, boss.id, who, "update", audit.snapshot(who))
    endpoint = add_endpoint(
        db, "https://hooks.example.com/audit", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS
    )
    rotate_secret(db, endpoint, utcnow())
    about = _about(db)
    assert about[:5] == [
        ("hour_logs", "create", who.id),
        ("hour_logs", "update", who.id),
        ("hour_logs", "delete", who.id),
        ("exam_attempts", "create", who.id),
        ("engineers", "update", who.id),
    ]
    # An endpoint is nobody's.
    assert {row[2] for row in about[5:]} == {None}
    assert {row[0] for row in about[5:]} == {"webhook_endpoints"}
