"""Erasing a departed person: nothing of them anywhere, their records kept as numbers and dates."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import JSON, String, Text, func, select
from sqlalchemy.orm import Session

from tests.privacy.conftest import NOW, Scene
from tracker.audit.models import AccountEvent, AuditEvent
from tracker.db import Base
from tracker.errors import ValidationError
from tracker.people.models import ApiToken, Engineer, RecoveryCode
from tracker.people.services.persons import set_active, set_identity
from tracker.privacy.rules import DEACTIVATE_FIRST_RULE
from tracker.privacy.services.erasure import erase_person
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.reminders.models import Notification
from tracker.scim.models import ScimUser
from tracker.webhooks.models import WebhookDelivery

NOTES = ("pat later", "pat earlier", "pat gone", "pat paper", "pat shadows", "GPU fleets at scale")


def _every_text(db: Session) -> list[tuple[str, str, str]]:
    """Return every text and JSON value of every table, as (table, column, text)."""
    found = []
    for table in Base.metadata.sorted_tables:
        columns = [c for c in table.columns if isinstance(c.type, String | Text | JSON)]
        if not columns:
            continue
        for row in db.execute(select(*columns)):
            for column, value in zip(columns, row, strict=True):
                if value is not None:
                    text = value if isinstance(value, str) else json.dumps(value)
                    found.append((table.name, column.name, text))
    return found


def _totals(db: Session, team_id: int) -> tuple:
    members = select(Engineer.id).where(Engineer.team_id == team_id)
    hours = db.scalar(select(func.sum(HourLog.hours)).where(HourLog.engineer_id.in_(members)))
    held = db.scalar(select(func.count()).where(Certification.engineer_id.in_(members)))
    tries = db.scalar(select(func.count()).where(ExamAttempt.engineer_id.in_(members)))
    return hours, held, tries


def _erase(db: Session, scene: Scene) -> bool:
    set_active(db, scene.person, False, scene.manager, via="web")
    return erase_person(db, scene.person, scene.manager, NOW, via="web")


def test_nothing_of_the_person_is_left_anywhere(db: Session, scene: Scene):
    db.add(ScimUser(engineer_id=scene.person.id, external_id="okta-pat-1"))
    # The texts the scene leaves empty: every kind holds one.
    scene.person.experience_text = "pat lab years"
    for attempt in db.scalars(
        select(ExamAttempt).where(ExamAttempt.engineer_id == scene.person.id)
    ):
        attempt.note = "pat exam note"
    for held in db.scalars(
        select(Certification).where(Certification.engineer_id == scene.person.id)
    ):
        held.evidence = "pat certificate scan"
    db.flush()
    more = ("pat lab years", "pat exam note", "pat certificate scan")
    words = ("Pat Person", "pat@example.com", "pat-subject", "okta-pat-1", *NOTES, *more)
    assert all(any(w in t for *_, t in _every_text(db)) for w in words[:3])

    assert _erase(db, scene) is True

    left = [(table, column, w) for table, column, t in _every_text(db) for w in words if w in t]
    assert not left
    person = db.get_one(Engineer, scene.person.id)
    assert (person.name, person.email) == (
        f"Former member #{person.id}",
        f"erased-{person.id}@invalid",
    )
    assert person.password_hash is None and person.totp_secret is None
    assert person.calendar_token is None and not person.weekly_digest
    assert person.erased_at == NOW and not person.active
    for model in (ApiToken, RecoveryCode):
        assert not db.scalars(select(model).where(model.engineer_id == person.id)).all()
    # Their own calendar feed's address is gone; their team's stays.
    texts = [t for *_, t in _every_text(db)]
    assert scene.secrets["calendar token"] not in texts
    assert scene.secrets["team calendar token"] in texts


def test_the_organisations_history_stays(db: Session, scene: Scene):
    before = _totals(db, scene.team.id)
    events = db.scalar(select(func.count()).select_from(AuditEvent))
    _erase(db, scene)
    assert _totals(db, scene.team.id) == before
    assert db.scalar(select(func.count()).select_from(AuditEvent)) == events
    # Another person's data is not touched.
    assert db.get_one(Engineer, scene.other.id).name == "Olga Other"
    notes = db.scalars(select(HourLog.note).where(HourLog.engineer_id == scene.other.id))
    assert list(notes) == ["olga private note"]


def test_the_erasure_is_an_account_event_naming_nobody(db: Session, scene: Scene):
    _erase(db, scene)
    event = db.scalars(select(AccountEvent).where(AccountEvent.kind == "erased")).one()
    assert (event.engineer_id, event.actor_id, event.method) == (
        scene.person.id,
        scene.manager.id,
        "web",
    )
    assert event.email == f"erased-{scene.person.id}@invalid" and event.detail is None


def test_an_active_person_is_not_erased(db: Session, scene: Scene):
    with pytest.raises(ValidationError) as refused:
        erase_person(db, scene.person, scene.manager, NOW, via="web")
    assert refused.value.errors == {"active": DEACTIVATE_FIRST_RULE}
    assert db.get_one(Engineer, scene.person.id).name == "Pat Person"
    assert db.get_one(Engineer, scene.person.id).erased_at is None


def test_erasing_twice_does_nothing_more(db: Session, scene: Scene):
    assert _erase(db, scene) is True
    assert erase_person(db, scene.person, scene.manager, NOW, via="cli") is False
    kinds = db.scalars(select(AccountEvent.kind).where(AccountEvent.kind == "erased")).all()
    assert kinds == ["erased"]


def test_an_erased_person_is_never_reactivated_nor_named_again(db: Session, scene: Scene):
    _erase(db, scene)
    with pytest.raises(ValidationError) as refused:
        set_active(db, scene.person, True, scene.manager, via="web")
    assert "erased" in str(refused.value.errors["active"])
    with pytest.raises(ValidationError):
        set_identity(db, scene.person, email="pat@example.com", name="Pat Person", via="scim")
    assert not db.get_one(Engineer, scene.person.id).active


def test_what_went_out_stays_without_them(db: Session, scene: Scene):
    notices = db.scalars(select(Notification).where(Notification.engineer_id == scene.person.id))
    sent = [n.id for n in notices]
    deliveries = [d.id for d in db.scalars(select(WebhookDelivery))]
    assert sent and deliveries
    for notice in db.scalars(select(Notification).where(Notification.id.in_(sent))):
        notice.status, notice.body_text = "sent", "Dear Pat Person (pat@example.com), renew."
    for delivery in db.scalars(select(WebhookDelivery)):
        delivery.status = "delivered"
    db.flush()

    _erase(db, scene)

    kept = db.scalars(select(Notification).where(Notification.id.in_(sent))).all()
    assert len(kept) == len(sent)
    assert kept[0].body_text == (
        f"Dear Former member #{scene.person.id} (erased-{scene.person.id}@invalid), renew."
    )
    assert db.scalar(select(func.count()).select_from(WebhookDelivery)) == len(deliveries)
    left = [(t, c) for t, c, text in _every_text(db) for w in NOTES if w in text]
    assert not left


def test_what_did_not_go_out_is_deleted(db: Session, scene: Scene):
    pending = db.scalars(select(Notification.id).where(Notification.engineer_id == scene.person.id))
    theirs = list(pending)
    assert theirs
    _erase(db, scene)
    assert not db.scalars(select(Notification).where(Notification.id.in_(theirs))).all()
