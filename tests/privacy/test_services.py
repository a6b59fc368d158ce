"""The personal-data file: every kind of the person's records, no secret, nobody else's data."""

from __future__ import annotations

import json

from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import TODAY
from tests.privacy.conftest import DAY, NOW, Scene
from tests.reminders.helpers import EARNED, MAIL, WINDOWS
from tracker.audit.models import AccountEvent
from tracker.people.services.persons import set_level
from tracker.privacy.rules import FORMAT, SECRET_FIELDS, VERSION
from tracker.privacy.services.export import SECTIONS, filename, personal_data, record_export
from tracker.progress.models import HourLog
from tracker.progress.services.hours import log_hours, update_hours
from tracker.reminders.services.daily_pass import plan

# The date each list is ordered by (then the id).
ORDERED_BY = {
    "job_roles": "started_on",
    "level_changes": "changed_on",
    "api_tokens": "created_at",
    "identities": "linked_at",
    "hour_logs": "logged_on",
    "exam_attempts": "attempted_on",
    "exam_plans": "planned_on",
    "certifications": "earned_on",
    "evidence": "occurred_on",
    "skill_assessments": "created_at",
    "apprenticeships": "starts_on",
    "imported_badges": "verified_at",
    "issued_credentials": "issued_at",
    "notifications": "created_at",
    "audit_events": "at",
    "account_events": "at",
}


def _file(db: Session, who) -> tuple[dict, str]:
    """Return the person's data and the text the download writes of it."""
    document = personal_data(db, who, NOW)
    return document, json.dumps(document, ensure_ascii=False, indent=2)


def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_the_file_says_what_it_is_and_whose(db: Session, scene: Scene):
    document, _ = _file(db, scene.person)
    assert document["format"] == FORMAT and document["version"] == VERSION
    assert document["generated_at"] == "2026-11-29T09:00:00+00:00"
    person = document["person"]
    assert (person["id"], person["name"], person["email"]) == (
        scene.person.id,
        "Pat Person",
        "pat@example.com",
    )
    assert person["team"] == {"id": scene.team.id, "name": "Blue"}
    assert person["manager"] == {"id": scene.manager.id, "name": "Maya Manager"}
    assert person["level"] == 2 and person["hired_on"] == "2021-01-01"
    assert person["two_step_sign_in"] is True and person["recovery_codes_left"] == 10
    assert person["calendar_feed"] is True and person["weekly_digest"] is True
    assert list(document) == ["format", "version", "generated_at", "person", *SECTIONS]


def test_the_file_holds_a_row_of_every_kind(db: Session, scene: Scene):
    document, _ = _file(db, scene.person)
    empty = [key for key in SECTIONS if not document[key]]
    assert not empty, f"no row of {empty}"

    assert [e["hours"] for e in document["hour_logs"]] == [2.5, 1.25]
    assert [e["logged_on"] for e in document["hour_logs"]] == ["2026-11-26", "2026-11-28"]
    (attempt,) = document["exam_attempts"]
    assert attempt["exam"]["code"] == "NCA-AIIO" and attempt["score"] == 80
    assert attempt["cost"] == 125.5 and attempt["voucher_code"] == "VOUCHER-PAT"
    assert attempt["recorded_by"] == {"id": scene.manager.id, "name": "Maya Manager"}
    assert [p["exam"]["code"] for p in document["exam_plans"]] == ["NCP-AII"]
    held = {c["credential"]["code"] for c in document["certifications"]}
    assert {"NCA-AIIO", "NCP-AII", "INT-PRIV"} <= held and len(held) == 4
    assert [j["job_role"]["code"] for j in document["job_roles"]] == ["operations"]
    assert [(c["from_level"], c["to_level"]) for c in document["level_changes"]] == [
        (None, 1),
        (1, 2),
    ]
    assert document["level_changes"][1]["changed_by"]["name"] == "Maya Manager"
    assert [(t["name"], t["scope"]) for t in document["api_tokens"]] == [("laptop", "write")]
    assert [(i["issuer"], i["subject"]) for i in document["identities"]] == [
        ("https://id.example.com", "pat-subject")
    ]
    assert [e["title"] for e in document["evidence"]] == ["GPU fleets at scale"]
    (skill,) = document["skill_assessments"]
    assert skill["speciality"]["code"] == "infiniband-rdma" and skill["proficiency"] == 3
    (pairing,) = document["apprenticeships"]
    assert pairing["role"] == "junior"
    assert pairing["senior"] == {"id": scene.senior.id, "name": "Sasha Senior"}
    assert [b["badge_name"] for b in document["imported_badges"]] == ["Kubernetes Operator"]
    (issued,) = document["issued_credentials"]
    assert issued["document"]["type"] == ["VerifiableCredential", "OpenBadgeCredential"]
    assert issued["document"]["proof"]


def test_notices_say_what_and_when_but_not_to_whom_nor_the_body(db: Session, scene: Scene):
    document, text = _file(db, scene.person)
    (notice,) = document["notifications"]
    assert notice["kind"] == "reminder" and notice["window_days"] == 30
    assert notice["status"] == "pending" and notice["sent_to_you"] == "to"
    assert notice["subject"] and notice["composed"] is True
    assert not {"to_addrs", "cc_addrs", "body_text", "body_html", "ics"} & set(notice)
    # The reminder copied the manager: their address stays out.
    assert scene.manager.email not in text


def test_a_notice_not_composed_yet_has_no_subject(db: Session, scene: Scene):
    """Until composed, its subject is the pass's English placeholder: the file leaves it out."""
    scene.person.locale = "es"
    factories.certification(db, scene.person, "NCA-AIIO", EARNED, TODAY + 7 * DAY)
    plan(db, TODAY, WINDOWS, MAIL, compose=False)
    document, text = _file(db, scene.person)
    pending = [n for n in document["notifications"] if not n["composed"]]
    assert "es" in {n["locale"] for n in pending}
    assert {n["subject"] for n in pending} == {None}
    assert "NCA-AIIO valid through" not in text


def test_the_trails_keep_what_happened_to_the_persons_records(db: Session, scene: Scene):
    document, _ = _file(db, scene.person)
    audit = document["audit_events"]
    deleted = [e for e in audit if e["entity"] == "hour_logs" and e["action"] == "delete"]
    assert [e["before"]["note"] for e in deleted] == ["pat gone"]
    assert deleted[0]["actor"] == {"id": scene.person.id, "name": "Pat Person"}
    recorded = [e for e in audit if e["entity"] == "exam_attempts"]
    assert [e["actor"]["name"] for e in recorded] == ["Maya Manager"]
    assert all(e["about_you"] for e in audit)
    kinds = [e["kind"] for e in document["account_events"]]
    assert {"provisioned", "level_changed", "totp_enrolled"} <= set(kinds)
    changed = next(e for e in document["account_events"] if e["kind"] == "level_changed")
    assert changed["actor"] == {"id": scene.manager.id, "name": "Maya Manager"}


def test_every_list_is_ordered_by_its_date_then_id(db: Session, scene: Scene):
    document, _ = _file(db, scene.person)
    assert set(ORDERED_BY) == set(SECTIONS)
    for key, date in ORDERED_BY.items():
        rows = document[key]
        assert rows == sorted(rows, key=lambda row: (row[date], row["id"])), key


def test_no_secret_is_anywhere_in_the_file(db: Session, scene: Scene):
    document, text = _file(db, scene.person)
    for what, value in scene.secrets.items():
        assert value, f"the scene has no {what}"
        assert value not in text, f"the file holds the {what}"
    assert not _keys(document) & SECRET_FIELDS


def test_no_other_persons_data_is_in_the_file(db: Session, scene: Scene):
    _, text = _file(db, scene.person)
    for what, value in scene.others.items():
        assert value not in text, f"the file holds the {what}"
    # The manager and the senior are named where the person's records name them.
    assert "Maya Manager" in text and "Sasha Senior" in text


def test_changes_made_to_others_say_what_not_what_they_held(db: Session, scene: Scene):
    """An admin's own file lists what they did to others' records, without those records."""
    admin = factories.engineer(
        db, name="Ada Admin", email="ada.admin@example.com", access_role="admin"
    )
    fdl = factories.course(db, "FDL")
    logged = log_hours(db, scene.other, fdl, TODAY - DAY, factories.hours(1), TODAY, note="olga v1")
    update_hours(
        db,
        db.get_one(HourLog, logged.id),
        fdl,
        TODAY - DAY,
        factories.hours(2),
        TODAY,
        "olga v2",
        admin,
    )
    set_level(db, scene.other, 3, admin, TODAY, via="web")
    record_export(db, scene.other, admin, via="web", address="198.51.100.7")
    document, text = _file(db, admin)

    (edit,) = [e for e in document["audit_events"] if e["entity"] == "hour_logs"]
    assert edit["action"] == "update" and edit["entity_id"] == logged.id
    assert edit["about_you"] is False and "before" not in edit and "after" not in edit
    changes = [e for e in document["account_events"] if not e["about_you"]]
    assert [e["kind"] for e in changes] == ["level_changed", "data_exported"]
    assert all(e["person"] == {"id": scene.other.id, "name": "Olga Other"} for e in changes)
    assert not {"email", "address", "detail"} & {k for e in changes for k in e}
    for value in ("olga v1", "olga v2", scene.other.email, "olga private note"):
        assert value not in text


def test_a_download_is_noted_in_the_account_trail(db: Session, scene: Scene):
    record_export(db, scene.person, scene.person, via="web", address="203.0.113.5")
    record_export(db, scene.person, scene.manager, via="web")
    events = db.scalars(
        select(AccountEvent).where(AccountEvent.kind == "data_exported").order_by(AccountEvent.id)
    ).all()
    assert [(e.engineer_id, e.actor_id, e.method) for e in events] == [
        (scene.person.id, None, "web"),
        (scene.person.id, scene.manager.id, "web"),
    ]
    assert events[0].address == "203.0.113.5"


def test_the_file_is_named_by_the_day():
    assert filename(TODAY) == "tracker-data-2026-11-29.json"
