"""What each endpoint answers, for known scenes (today is pinned to 2026-11-29)."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import NOW, Scene, row_counts
from tests.helpers import Api, in_each_language, token_for
from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Credential
from tracker.people.models import ApiToken
from tracker.people.services.accounts import create_token, revoke_token
from tracker.people.services.persons import set_active
from tracker.progress.models import Certification, HourLog
from tracker.progress.services.hours import log_hours

D = dt.date


# --- tokens ---------------------------------------------------------------------


def test_me(api: Api, db: Session, scene: Scene) -> None:
    response = api.get("/api/v1/me", scene.tokens["self"])
    assert response.status_code == 200
    me = response.get_json()
    assert me["id"] == scene.target.id
    assert me["name"] == "Target"
    assert me["access_role"] == "engineer"
    assert me["manager"] == {"id": scene.manager.id, "name": "Manager"}
    assert me["hired_on"] == "2021-01-01"
    assert me["job_roles"] == ["operations"]
    # 2021-01-01 to 2026-11-29: 70 whole months.
    assert me["experience_months"] == 70
    assert "password_hash" not in me


def test_a_token_records_its_use(api: Api, db: Session, scene: Scene) -> None:
    token, secret = create_token(db, scene.target, "script")
    assert token.last_used_at is None
    assert api.get("/api/v1/me", secret).status_code == 200
    db.expire(token)
    assert token.last_used_at is not None


def test_a_revoked_token_stops_working_at_once(api: Api, db: Session, scene: Scene) -> None:
    token, secret = create_token(db, scene.target, "script")
    other_secret = token_for(db, scene.target)
    assert api.get("/api/v1/me", secret).status_code == 200

    revoke_token(db, token, NOW)

    response = api.get("/api/v1/me", secret)
    assert response.status_code == 401
    assert response.get_json() == {
        "errors": {
            "token": "the token is not valid: unknown, revoked, expired,"
            " or its account is deactivated"
        }
    }
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    # Writes too, and the engineer's other tokens keep working.
    hours = {"course": "FDL", "date": "2026-11-20", "hours": 1}
    assert api.post("/api/v1/hours", secret, hours).status_code == 401
    assert api.get("/api/v1/me", other_secret).status_code == 200


def test_deactivation_stops_every_token_of_the_account(api: Api, db: Session, scene: Scene) -> None:
    secret = scene.tokens["self"]
    assert api.get("/api/v1/me", secret).status_code == 200
    set_active(db, scene.target, False)
    assert api.get("/api/v1/me", secret).status_code == 401
    set_active(db, scene.target, True)
    assert api.get("/api/v1/me", secret).status_code == 200


def test_tokens_are_stored_hashed(db: Session, scene: Scene) -> None:
    secret = scene.tokens["self"]
    stored = db.scalars(select(ApiToken.token_hash)).all()
    assert secret not in stored


# --- hours ------------------------------------------------------------------------


def test_log_list_update_and_delete_hours(api: Api, db: Session, scene: Scene) -> None:
    token = scene.tokens["self"]
    response = api.post(
        "/api/v1/hours",
        token,
        {"course": "fdl", "date": "2026-11-20", "hours": 1.5, "note": "  chapter 1  "},
    )
    assert response.status_code == 201
    entry = response.get_json()
    assert entry["hours"] == 1.5
    assert entry["date"] == "2026-11-20"
    assert entry["note"] == "chapter 1"
    assert entry["course"]["code"] == "FDL"
    assert entry["engineer"] == {"id": scene.target.id, "name": "Target"}
    assert response.headers["Location"].endswith(f"/api/v1/hours/{entry['id']}")

    gpu = factories.course(db, "GPU-ARCH")
    response = api.post(
        "/api/v1/hours", token, {"course_id": gpu.id, "date": "2026-11-21", "hours": 8}
    )
    assert response.status_code == 201
    assert response.get_json()["hours"] == 8

    listed = api.get("/api/v1/hours", token).get_json()
    assert {e["engineer"]["id"] for e in listed["items"]} == {scene.target.id}
    assert [(e["date"], e["hours"]) for e in listed["items"]] == [
        ("2026-11-21", 8),
        ("2026-11-20", 1.5),
    ]
    assert listed["next"] is None

    url = f"/api/v1/hours/{entry['id']}"
    response = api.put(url, token, {"course": "FDL", "date": "2026-11-19", "hours": 2.25})
    assert response.status_code == 200
    assert response.get_json()["hours"] == 2.25
    assert response.get_json()["note"] == ""
    assert api.get(url, token).get_json()["date"] == "2026-11-19"

    deleted = api.delete(url, token)
    assert deleted.status_code == 204
    # No body, so nothing to name a type of.
    assert (deleted.data, deleted.headers.get("Content-Type")) == (b"", None)
    assert api.get(url, token).status_code == 404
    assert len(api.get("/api/v1/hours", token).get_json()["items"]) == 1

    events = db.scalars(
        select(AuditEvent)
        .where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry["id"])
        .order_by(AuditEvent.id)
    ).all()
    assert [e.action for e in events] == ["create", "update", "delete"]
    assert {e.actor_id for e in events} == {scene.target.id}
    assert events[1].before["hours"] == "1.50"
    assert events[2].before["logged_on"] == "2026-11-19"


def test_an_admin_logs_hours_for_someone(api: Api, db: Session, scene: Scene) -> None:
    response = api.post(
        "/api/v1/hours",
        scene.tokens["admin"],
        {"engineer": scene.target.id, "course": "FDL", "date": "2026-11-20", "hours": 2},
    )
    assert response.status_code == 201
    entry = db.get(HourLog, response.get_json()["id"])
    assert entry.engineer_id == scene.target.id
    event = db.scalars(
        select(AuditEvent).where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry.id)
    ).one()
    assert event.actor_id == scene.admin.id


def test_a_manager_reads_a_reports_hours(api: Api, db: Session, scene: Scene) -> None:
    log_hours(
        db, scene.target, factories.course(db, "FDL"), D(2026, 11, 2), factories.hours(3), D.max
    )
    response = api.get(f"/api/v1/hours?engineer={scene.target.id}", scene.tokens["manager"])
    assert response.status_code == 200
    assert [e["hours"] for e in response.get_json()["items"]] == [3]
    # Without ?engineer the manager sees their own (empty) log.
    own = api.get("/api/v1/hours", scene.tokens["manager"]).get_json()
    assert own == {"items": [], "next": None}


# --- exam attempts ---------------------------------------------------------------


def test_a_pass_creates_a_certification_expiring_on_the_right_day(
    api: Api, db: Session, scene: Scene
) -> None:
    response = api.post(
        "/api/v1/exam-attempts",
        scene.tokens["self"],
        {
            "exam": "NCA-AIIO",
            "date": "2024-02-29",
            "score": 82,
            "passed": True,
            "cost": 135.5,
            "voucher_code": " VCH-1 ",
            "proctoring": "online",
            "note": "first try",
        },
    )
    assert response.status_code == 201
    attempt = response.get_json()
    assert attempt["exam"]["code"] == "NCA-AIIO"
    assert attempt["date"] == "2024-02-29"
    assert attempt["score"] == 82
    assert attempt["passed"] is True
    assert attempt["cost"] == 135.5
    assert attempt["voucher_code"] == "VCH-1"
    assert attempt["recorded_by_id"] == scene.target.id
    cert = attempt["certification"]
    # 2024-02-29 + 24 months = 2026-02-28, clamped; expired on 2026-11-29.
    assert cert["earned_on"] == "2024-02-29"
    assert cert["expires_on"] == "2026-02-28"
    assert cert["status"] == "expired"
    assert cert["days_left"] == -274
    assert cert["credential"]["code"] == "NCA-AIIO"
    stored = db.get(Certification, cert["id"])
    assert stored.expires_on == D(2026, 2, 28)
    assert stored.attempt_id == attempt["id"]


def test_a_recent_pass_is_valid_for_two_years(api: Api, scene: Scene) -> None:
    response = api.post(
        "/api/v1/exam-attempts",
        scene.tokens["self"],
        {"exam": "nca-aiio", "date": "2026-11-20", "score": 90, "passed": True},
    )
    assert response.status_code == 201
    cert = response.get_json()["certification"]
    assert cert["expires_on"] == "2028-11-20"
    assert cert["status"] == "valid"
    assert cert["days_left"] == 722


def test_a_failed_attempt_has_no_certification(api: Api, db: Session, scene: Scene) -> None:
    before = row_counts(db)
    response = api.post(
        "/api/v1/exam-attempts",
        scene.tokens["self"],
        {"exam": "NCA-AIIO", "date": "2026-11-20", "score": 40, "passed": False},
    )
    assert response.status_code == 201
    assert response.get_json()["certification"] is None
    after = row_counts(db)
    assert after["exam_attempts"] == before["exam_attempts"] + 1
    assert after["certifications"] == before["certifications"]


def test_a_manager_records_an_attempt_for_a_report(api: Api, scene: Scene) -> None:
    response = api.post(
        "/api/v1/exam-attempts",
        scene.tokens["manager"],
        {
            "engineer": scene.target.id,
            "exam": "NCA-AIIO",
            "date": "2026-11-20",
            "score": 75,
            "passed": True,
        },
    )
    assert response.status_code == 201
    body = response.get_json()
    assert body["engineer"]["id"] == scene.target.id
    assert body["recorded_by_id"] == scene.manager.id
    assert body["certification"]["recorded_by_id"] == scene.manager.id


NCP = {"exam": "NCP-AII", "date": "2026-11-20", "score": 77, "passed": True}


def test_ncp_aii_is_refused_without_nca_aiio(api: Api, db: Session, scene: Scene) -> None:
    before = row_counts(db)
    response = api.post("/api/v1/exam-attempts", scene.tokens["self"], NCP)
    assert response.status_code == 400
    assert "NCA-AIIO" in response.get_json()["errors"]["exam"]
    assert row_counts(db) == before


def test_ncp_aii_is_refused_with_a_lapsed_nca_aiio(api: Api, db: Session, scene: Scene) -> None:
    factories.certification(db, scene.target, "NCA-AIIO", D(2022, 1, 10), D(2024, 1, 10))
    before = row_counts(db)
    response = api.post("/api/v1/exam-attempts", scene.tokens["self"], NCP)
    assert response.status_code == 400
    message = response.get_json()["errors"]["exam"]
    assert "NCA-AIIO" in message
    assert "was valid through 2024-01-10" in message
    assert row_counts(db) == before


def test_ncp_aii_is_refused_without_12_months_of_experience(
    api: Api, db: Session, scene: Scene
) -> None:
    junior = factories.engineer(db, hired_on=D(2026, 1, 5), experience_months=0)
    factories.certification(db, junior, "NCA-AIIO", D(2026, 6, 1), D(2028, 6, 1))
    before = row_counts(db)
    response = api.post("/api/v1/exam-attempts", token_for(db, junior), NCP)
    assert response.status_code == 400
    assert "12 months" in response.get_json()["errors"]["exam"]
    assert row_counts(db) == before


def test_ncp_aii_is_accepted_with_nca_aiio_and_12_months(api: Api, db: Session) -> None:
    # 2 documented months before joining + 10 whole months since 2026-01-05 = 12.
    ready = factories.engineer(db, hired_on=D(2026, 1, 5), experience_months=2)
    factories.certification(db, ready, "NCA-AIIO", D(2026, 6, 1), D(2028, 6, 1))
    response = api.post("/api/v1/exam-attempts", token_for(db, ready), NCP)
    assert response.status_code == 201, response.get_json()
    cert = response.get_json()["certification"]
    assert cert["credential"]["code"] == "NCP-AII"
    assert cert["expires_on"] == "2028-11-20"


# --- credentials -----------------------------------------------------------------


def test_record_a_catalog_credential(api: Api, db: Session, scene: Scene) -> None:
    response = api.post(
        "/api/v1/credentials",
        scene.tokens["self"],
        {
            "code": "cka",
            "issued_on": "2026-03-01",
            "expires_on": "2026-12-15",
            "evidence": "LF-1234",
        },
    )
    assert response.status_code == 201
    cert = response.get_json()
    assert cert["credential"]["code"] == "CKA"
    assert cert["earned_on"] == "2026-03-01"
    assert cert["expires_on"] == "2026-12-15"
    assert cert["status"] == "expiring"
    assert cert["days_left"] == 16
    assert cert["evidence"] == "LF-1234"
    assert cert["attempt_id"] is None


def test_record_a_credential_outside_the_catalog(api: Api, db: Session, scene: Scene) -> None:
    body = {
        "name": "Liquid Cooling Practitioner",
        "issuer": "CoolCo",
        "issued_on": "2026-05-01",
        "evidence": "https://coolco.example/cert/42",
    }
    response = api.post("/api/v1/credentials", scene.tokens["self"], body)
    assert response.status_code == 201
    cert = response.get_json()
    credential = db.get(Credential, cert["credential"]["id"])
    assert credential.kind == "external"
    assert credential.origin == "engineer"
    assert credential.code.startswith("X-LIQUID-COOLING")
    assert credential.name == "Liquid Cooling Practitioner"
    assert cert["expires_on"] is None
    assert cert["status"] == "valid"

    # The same name and issuer again (another person) reuse the row.
    again = api.post(
        "/api/v1/credentials",
        scene.tokens["other engineer"],
        {**body, "name": "liquid cooling practitioner", "issuer": "coolco"},
    )
    assert again.status_code == 201
    assert again.get_json()["credential"]["id"] == credential.id


# --- progress ----------------------------------------------------------------------


def test_progress_for_a_known_scene(api: Api, db: Session, scene: Scene) -> None:
    who = scene.target
    for code, day, amount in [
        ("FDL", 1, "8"),
        ("INTRO-AI-INFRA", 2, "4.5"),
        ("GPU-ARCH", 3, "20"),
        ("GPU-ARCH", 4, "10"),
    ]:
        log_hours(
            db, who, factories.course(db, code), D(2026, 11, day), factories.hours(amount), D.max
        )
    factories.certification(db, who, "CKA", D(2025, 6, 1), D(2026, 12, 31))

    response = api.get(f"/api/v1/engineers/{who.id}/progress", scene.tokens["manager"])
    assert response.status_code == 200
    view = response.get_json()
    assert view["engineer"] == {"id": who.id, "name": "Target"}
    assert view["on"] == "2026-11-29"
    assert view["experience_months"] == 70

    foundations, professional = view["paths"]
    assert foundations["code"] == "FOUNDATIONS"
    # (8 + 4.5 + min(30, 24)) / 48 = 36.5 / 48
    assert foundations["percent"] == 76.0
    assert foundations["required_hours"] == 48
    assert foundations["counted_hours"] == 36.5
    assert foundations["remaining_hours"] == 11.5
    assert foundations["complete"] is False
    assert [
        (c["code"], c["logged_hours"], c["required_hours"], c["percent"], c["complete"])
        for c in foundations["courses"]
    ] == [
        ("FDL", 8, 8, 100.0, True),
        ("INTRO-AI-INFRA", 4.5, 16, 28.1, False),
        ("GPU-ARCH", 30, 24, 100.0, True),
    ]
    assert foundations["exam"] == {
        "code": "NCA-AIIO",
        "name": "NVIDIA Certified Associate - AI Infrastructure and Operations",
        "ready": False,
        "reasons": [
            "course INTRO-AI-INFRA (Introduction to AI Infrastructure) is open: 4.5 of 16 h logged"
        ],
    }
    assert foundations["certification"] is None

    assert professional["code"] == "PROFESSIONAL"
    assert professional["percent"] == 0.0
    assert professional["required_hours"] == 136
    assert [c["logged_hours"] for c in professional["courses"]] == [0, 0, 0, 0]
    assert professional["exam"]["ready"] is False
    reasons = professional["exam"]["reasons"]
    assert len(reasons) == 5
    assert reasons[-1].startswith("NCP-AII requires a valid NCA-AIIO")

    [cka] = view["certifications"]
    assert cka["credential"]["code"] == "CKA"
    assert cka["status"] == "expiring"
    assert cka["days_left"] == 32
    assert view["next_steps"][0] == "Renew CKA: it is valid through 2026-12-31, 32 days from today"
    assert view["next_steps"][1].startswith("Study Introduction to AI Infrastructure")


def test_progress_words_follow_the_requests_language(api: Api, db: Session, scene: Scene):
    """The reasons and next steps follow Accept-Language; codes, keys and numbers stay."""
    who = scene.target
    log_hours(
        db,
        who,
        factories.course(db, "INTRO-AI-INFRA"),
        D(2026, 11, 2),
        factories.hours("4.5"),
        D.max,
    )
    factories.certification(db, who, "CKA", D(2025, 6, 1), D(2026, 12, 31))
    url, token = f"/api/v1/engineers/{who.id}/progress", scene.tokens["manager"]
    spanish, english, unasked = in_each_language(api, url, token)
    assert spanish["next_steps"] == [
        "Renovar CKA: es válida hasta el 31 dic 2026 inclusive, dentro de 32 días",
        "Estudiar Fundamentals of Deep Learning (ruta Fundamentos): 0 de 8 h registradas",
    ]
    assert spanish["paths"][0]["exam"]["reasons"][1] == (
        "el curso INTRO-AI-INFRA (Introduction to AI Infrastructure) está pendiente:"
        " 4,5 de 16 h registradas"
    )
    assert unasked == english  # English stays the default
    assert english["next_steps"] == [
        "Renew CKA: it is valid through 2026-12-31, 32 days from today",
        "Study Fundamentals of Deep Learning (Foundations path): 0 of 8 h logged",
    ]
    # Only the words differ: every code, key, name and number is the same in both.
    for view in (spanish, english):
        view["next_steps"] = len(view["next_steps"])
        for path in view["paths"]:
            path["exam"]["reasons"] = len(path["exam"]["reasons"])
    assert spanish == english


def test_progress_when_ready_and_certified(api: Api, db: Session, scene: Scene) -> None:
    who = scene.target
    for code, day, amount in [("FDL", 1, 8), ("INTRO-AI-INFRA", 2, 16), ("GPU-ARCH", 3, 24)]:
        log_hours(
            db, who, factories.course(db, code), D(2026, 11, day), factories.hours(amount), D.max
        )
    view = api.get(f"/api/v1/engineers/{who.id}/progress", scene.tokens["self"]).get_json()
    foundations = view["paths"][0]
    assert foundations["percent"] == 100.0
    assert foundations["exam"]["ready"] is True
    assert foundations["exam"]["reasons"] == []

    factories.certification(db, who, "NCA-AIIO", D(2026, 11, 5), D(2028, 11, 5))
    view = api.get(f"/api/v1/engineers/{who.id}/progress", scene.tokens["self"]).get_json()
    assert view["paths"][0]["certification"]["expires_on"] == "2028-11-05"


# --- certifications ----------------------------------------------------------------


@pytest.fixture
def cert_scene(db: Session, scene: Scene) -> Scene:
    """Target: a renewed NCA-AIIO (valid), CKA expiring, a renewed RHCE (expired).

    Second (also the manager's report): CKA 92 days away. Other (not the
    manager's): CISSP expiring.
    """
    certify = factories.certification
    who = scene.target
    certify(db, who, "NCA-AIIO", D(2023, 6, 10), D(2025, 6, 10))
    certify(db, who, "NCA-AIIO", D(2025, 6, 10), D(2027, 6, 10))
    certify(db, who, "CKA", D(2024, 12, 31), D(2026, 12, 31))
    certify(db, who, "RHCE", D(2022, 1, 1), D(2025, 1, 1))
    certify(db, who, "RHCE", D(2025, 1, 1), D(2026, 1, 1))
    second = factories.engineer(db, name="Second", manager=scene.manager)
    certify(db, second, "CKA", D(2025, 3, 1), D(2027, 3, 1))
    certify(db, scene.other, "CISSP", D(2023, 12, 1), D(2026, 12, 1))
    return scene


def listed(api: Api, token: str, query: str = "") -> list[tuple[str, str, str, str]]:
    response = api.get(f"/api/v1/certifications{query}", token)
    assert response.status_code == 200, response.get_json()
    return [
        (c["engineer"]["name"], c["credential"]["code"], c["expires_on"], c["status"])
        for c in response.get_json()["items"]
    ]


TARGET_NCA = ("Target", "NCA-AIIO", "2027-06-10", "valid")
TARGET_CKA = ("Target", "CKA", "2026-12-31", "expiring")
TARGET_RHCE = ("Target", "RHCE", "2026-01-01", "expired")
SECOND_CKA = ("Second", "CKA", "2027-03-01", "valid")
OTHER_CISSP = ("Other", "CISSP", "2026-12-01", "expiring")


def test_certifications_newest_per_credential_sorted_by_expiry(api: Api, cert_scene: Scene) -> None:
    assert listed(api, cert_scene.tokens["manager"]) == [
        TARGET_RHCE,
        TARGET_CKA,
        SECOND_CKA,
        TARGET_NCA,
    ]


@pytest.mark.parametrize(
    ("role", "query", "expected"),
    [
        ("manager", "?status=expiring", [TARGET_CKA]),
        ("manager", "?status=valid", [SECOND_CKA, TARGET_NCA]),
        ("manager", "?status=expired", [TARGET_RHCE]),
        (
            "manager",
            "?status=expiring&expiring_within=100",
            [TARGET_CKA, (*SECOND_CKA[:3], "expiring")],
        ),
        ("manager", "?status=expiring&expiring_within=30", []),
        ("manager", "?status=EXPIRING&expiring_within=32", [TARGET_CKA]),
        ("self", "?status=expiring", [TARGET_CKA]),
        ("self", "", [TARGET_RHCE, TARGET_CKA, TARGET_NCA]),
        ("other engineer", "", [OTHER_CISSP]),
        ("other manager", "?status=expiring", [OTHER_CISSP]),
        ("admin", "?status=expiring", [OTHER_CISSP, TARGET_CKA]),
    ],
)
def test_certifications_filter(
    api: Api, cert_scene: Scene, role: str, query: str, expected: list
) -> None:
    assert listed(api, cert_scene.tokens[role], query) == expected


def test_certifications_of_one_engineer(api: Api, db: Session, cert_scene: Scene) -> None:
    target = cert_scene.target.id
    assert listed(api, cert_scene.tokens["admin"], f"?engineer={target}&status=valid") == [
        TARGET_NCA
    ]
    response = api.get(
        f"/api/v1/certifications?engineer={target}", cert_scene.tokens["other manager"]
    )
    assert response.status_code == 403
