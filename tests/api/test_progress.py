"""/api/v1/engineers/ID/progress: paths, exams, certifications and next steps, in words."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.helpers import Api, in_each_language
from tracker.progress.services.hours import log_hours

D = dt.date


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
