"""The admin catalog page and the internal certification track created from the web."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy import select

from tests import factories
from tests.admin.helpers import field_error, text
from tests.factories import TODAY
from tests.helpers import count
from tracker.catalog.models.credentials import Course, Credential, Exam, LearningPath, PathCourse
from tracker.catalog.services.internal_track import create_internal_track
from tracker.errors import ValidationError
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.hours import log_hours
from tracker.progress.services.paths import logged_hours, path_progress

TABLES = (Credential, Exam, Course, LearningPath, PathCourse)

TRACK = {
    "exam_code": "ACME-OPS",
    "exam_name": "ACME GPU Operations",
    "validity_months": "12",
    "prerequisites": ["NCA-AIIO"],
    "experience_months": "6",
    "retake_wait_days": "30",
    "courses": "ACME-101 | Our cluster runbook | 6\n\nACME-102 | On-call & <escalation> | 2.5\n",
    "path_code": "ACME-PATH",
    "path_name": "ACME operations path",
    "target_months": "2",
}


def counts(db):
    return tuple(count(db, model) for model in TABLES)


def test_catalog_page_shows_the_seed_catalog(admin_client):
    page = text(admin_client.get("/admin/catalog"))
    assert "NCA-AIIO" in page and "Fundamentals of Deep Learning" in page
    assert "Foundations" in page and "Kubernetes" in page
    assert "New internal certification track" in page


def test_create_internal_track(admin_client, db):
    before = counts(db)
    response = admin_client.post("/admin/catalog", data=TRACK)
    assert response.status_code == 302
    assert counts(db) == (before[0] + 1, before[1] + 1, before[2] + 2, before[3] + 1, before[4] + 2)

    path = db.scalars(select(LearningPath).where(LearningPath.code == "ACME-PATH")).one()
    assert (path.name, path.target_months, path.origin) == ("ACME operations path", 2, "internal")
    assert [(c.code, c.title, c.hours, c.origin) for c in path.courses] == [
        ("ACME-101", "Our cluster runbook", Decimal("6.00"), "internal"),
        ("ACME-102", "On-call & <escalation>", Decimal("2.50"), "internal"),
    ]
    exam = path.exam
    assert exam.code == "ACME-OPS" and exam.name == "ACME GPU Operations"
    assert (exam.credential.kind, exam.credential.origin, exam.validity_months) == (
        "exam",
        "internal",
        12,
    )
    assert [c.code for c in exam.prerequisites] == ["NCA-AIIO"]
    assert (exam.experience_months, exam.retake_wait_days) == (6, 30)

    page = admin_client.get("/admin/catalog").text
    assert "ACME-OPS <mark>internal</mark>" in page
    assert "On-call &amp; &lt;escalation&gt;" in page  # escaped


def test_the_new_track_works_like_a_seeded_one(admin_client, db):
    admin_client.post("/admin/catalog", data=TRACK)
    who = factories.engineer(db, hired_on=dt.date(2021, 1, 1))
    course = factories.course(db, "ACME-101")
    log_hours(db, who, course, dt.date(2026, 11, 2), Decimal(6), TODAY)
    path = db.scalars(select(LearningPath).where(LearningPath.code == "ACME-PATH")).one()
    assert path_progress(path, logged_hours(db, who.id)).percent == pytest.approx(600 / 8.5)

    exam = factories.exam(db, "ACME-OPS")
    with pytest.raises(ValidationError, match="requires a valid NCA-AIIO"):
        record_attempt(db, who, exam, dt.date(2026, 11, 3), 80, True, TODAY)
    factories.certification(db, who, "NCA-AIIO", dt.date(2026, 1, 1), dt.date(2028, 1, 1))
    attempt = record_attempt(db, who, exam, dt.date(2026, 11, 3), 80, True, TODAY)
    assert attempt.certification.expires_on == dt.date(2027, 11, 3)  # 12 months


BAD_TRACKS = [
    ("exam_code", "NCA-AIIO", "NCA-AIIO is already taken by a credential"),
    ("exam_code", "fdl", "FDL is already taken by a course"),
    ("exam_code", "bad code!", "code must be 1 to 40 letters"),
    ("exam_code", "", "an exam code is required"),
    ("exam_name", "", "an exam name is required"),
    ("exam_name", "x" * 201, "“Exam name” must be at most 200 characters"),
    ("validity_months", "0", "validity must be from 1 to 120 months"),
    ("validity_months", "", "a validity is required"),
    ("prerequisites", ["NOPE"], "choose prerequisites among the catalog's credentials"),
    ("experience_months", "-3", "experience must be from 0 to 600 months"),
    ("retake_wait_days", "400", "retake wait must be from 0 to 365 days"),
    ("path_code", "FOUNDATIONS", "FOUNDATIONS is already taken by a learning path"),
    ("path_code", "ACME-OPS", "the path code must differ from the exam code"),
    ("path_name", "", "a path name is required"),
    ("target_months", "0", "target duration must be from 1 to 120 months"),
    ("courses", "", "list at least one course"),
    ("courses", "ACME-101 | Runbook", "line 1: write CODE | Title | hours"),
    ("courses", "ACME-101 | Runbook | 0", "line 1: hours must be more than 0 and at most 1000"),
    ("courses", "ACME-101 | Runbook | six", "line 1: hours must be a number, e.g. 8 or 1.5"),
    ("courses", "ACME-101 | Runbook | 1.00.0", "line 1: hours must be a number"),
    ("courses", "ACME-101 | Runbook | 1.125", "line 1: hours must have at most 2 decimals"),
    ("courses", "ACME-101 |  | 3", "line 1: title must be 1 to 200 characters"),
    ("courses", "GPU-ARCH | Ours | 3", "line 1: GPU-ARCH is already taken by a course"),
    ("courses", "NCP-AII | Ours | 3", "line 1: NCP-AII is already taken by a credential"),
    ("courses", "ACME-OPS | Ours | 3", "line 1: ACME-OPS is also the exam code"),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD_TRACKS)
def test_internal_track_refuses_bad_input(admin_client, db, field, value, message):
    before = counts(db)
    response = admin_client.post("/admin/catalog", data={**TRACK, field: value})
    assert response.status_code == 400
    assert message in field_error(response.text, field)
    assert counts(db) == before


def test_course_hours_are_read_as_an_english_reader_writes_them(admin_client, db):
    courses = "ACME-101 | Runbook | 1,000\nACME-102 | On-call | 2.5\n"
    response = admin_client.post("/admin/catalog", data={**TRACK, "courses": courses})
    assert response.status_code == 302
    path = db.scalars(select(LearningPath).where(LearningPath.code == "ACME-PATH")).one()
    assert [c.hours for c in path.courses] == [Decimal("1000"), Decimal("2.5")]


def test_every_bad_course_line_is_reported(admin_client, db):
    before = counts(db)
    courses = "ACME-1 | Good | 4\nACME-2 | Bad hours | -1\nACME-1 | Twice | 2\nno pipes here\n"
    response = admin_client.post("/admin/catalog", data={**TRACK, "courses": courses})
    assert response.status_code == 400
    message = field_error(response.text, "courses")
    assert "line 2: hours must be more than 0" in message
    assert "line 3: code ACME-1 appears twice" in message
    assert "line 4: write CODE | Title | hours" in message
    assert counts(db) == before


def test_track_is_all_or_nothing(db):
    """A taken course code stops the exam and the path too."""
    before = counts(db)
    with pytest.raises(ValidationError) as exc:
        create_internal_track(
            db,
            exam_code="NEW-EXAM",
            exam_name="New exam",
            validity_months=24,
            courses="NEW-1 | Fine | 3\nFDL | Taken | 3",
            path_code="NEW-PATH",
            path_name="New path",
            target_months=3,
        )
    assert exc.value.errors == {"courses": "line 2: FDL is already taken by a course"}
    assert counts(db) == before


# --- the track's words in Spanish ------------------------------------------------------

SPANISH_TRACK = {
    **TRACK,
    "exam_name_es": "Operaciones GPU de ACME",
    "courses": "ACME-101 | Our cluster runbook | 6 | Nuestro manual del clúster\n"
    "ACME-102 | On-call | 2.5\n",
    "path_name_es": "Ruta de operaciones de ACME",
}


def test_the_track_takes_optional_spanish_names_shown_to_spanish_readers(admin_client, db):
    response = admin_client.post("/admin/catalog", data=SPANISH_TRACK)
    assert response.status_code == 302
    admin_client.get("/admin/catalog")  # shows (and so drops) the flashed confirmation
    path = db.scalars(select(LearningPath).where(LearningPath.code == "ACME-PATH")).one()
    assert (path.name, path.name_es) == ("ACME operations path", "Ruta de operaciones de ACME")
    assert (path.exam.name, path.exam.name_es) == ("ACME GPU Operations", "Operaciones GPU de ACME")
    assert [(c.title, c.title_es) for c in path.courses] == [
        ("Our cluster runbook", "Nuestro manual del clúster"),
        ("On-call", ""),
    ]

    spanish = text(admin_client.get("/", headers={"Accept-Language": "es"}))
    assert "Ruta de operaciones de ACME" in spanish and "ACME operations path" not in spanish
    assert "Nuestro manual del clúster" in spanish and "Our cluster runbook" not in spanish
    assert "Operaciones GPU de ACME" in spanish
    assert "On-call" in spanish  # no Spanish given: its own title
    english = text(admin_client.get("/", headers={"Accept-Language": "en"}))
    assert "ACME operations path" in english and "Ruta de operaciones" not in english


def test_without_spanish_names_spanish_readers_see_the_tracks_own(admin_client, db):
    assert admin_client.post("/admin/catalog", data=TRACK).status_code == 302
    admin_client.get("/admin/catalog")
    path = db.scalars(select(LearningPath).where(LearningPath.code == "ACME-PATH")).one()
    assert (path.name_es, path.exam.name_es) == ("", "")
    spanish = text(admin_client.get("/", headers={"Accept-Language": "es"}))
    assert "ACME operations path" in spanish and "Our cluster runbook" in spanish


@pytest.mark.parametrize("field", ["exam_name_es", "path_name_es"])
def test_the_form_refuses_a_spanish_name_too_long(admin_client, db, field):
    before = counts(db)
    response = admin_client.post("/admin/catalog", data={**TRACK, field: "x" * 201})
    assert response.status_code == 400
    assert "200" in field_error(response.text, field)
    assert counts(db) == before


def test_the_track_refuses_spanish_too_long_naming_the_field(db):
    before = counts(db)
    with pytest.raises(ValidationError) as exc:
        create_internal_track(
            db,
            exam_code="NEW-EXAM",
            exam_name="New exam",
            exam_name_es="x" * 201,
            validity_months=24,
            courses=f"NEW-1 | Fine | 3 | {'y' * 201}",
            path_code="NEW-PATH",
            path_name="New path",
            path_name_es="z" * 201,
            target_months=3,
        )
    assert exc.value.errors == {
        "exam_name_es": "the Spanish name must be at most 200 characters",
        "courses": "line 1: the Spanish title must be at most 200 characters",
        "path_name_es": "the Spanish name must be at most 200 characters",
    }
    assert counts(db) == before


def test_a_course_line_holds_at_most_four_parts(admin_client, db):
    courses = "ACME-101 | Runbook | 6 | Manual | extra"
    response = admin_client.post("/admin/catalog", data={**TRACK, "courses": courses})
    assert response.status_code == 400
    assert "line 1: write CODE | Title | hours" in field_error(response.text, "courses")
