"""/api/v1/exam-attempts: a pass certifies until the right day; NCP-AII asks for NCA-AIIO."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene, row_counts
from tests.helpers import Api, token_for
from tracker.progress.models import Certification

D = dt.date


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
