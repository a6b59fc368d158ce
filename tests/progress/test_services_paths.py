"""Path progress and exam readiness (services.paths; docs/domain.md section 2), retake waits."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from tests import factories
from tests.factories import hours
from tests.progress.helpers import TODAY, D, cert
from tracker.catalog.models.credentials import LearningPath
from tracker.catalog.services.reads import paths_with_courses
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.hours import log_hours
from tracker.progress.services.overview import overview
from tracker.progress.services.paths import (
    CourseProgress,
    exam_readiness,
    logged_hours,
    path_progress,
)


def path(db, code: str) -> LearningPath:
    return next(p for p in paths_with_courses(db) if p.code == code)


def test_seeded_paths_have_the_documented_courses(db):
    """Section 2: Foundations 48 h, Professional 136 h."""
    foundations = path(db, "FOUNDATIONS")
    professional = path(db, "PROFESSIONAL")
    assert [(c.code, c.hours) for c in foundations.courses] == [
        ("FDL", Decimal(8)),
        ("INTRO-AI-INFRA", Decimal(16)),
        ("GPU-ARCH", Decimal(24)),
    ]
    assert [(c.code, c.hours) for c in professional.courses] == [
        ("MULTI-GPU", Decimal(40)),
        ("IB-NET", Decimal(32)),
        ("AI-STORAGE", Decimal(24)),
        ("CLUSTER-MGMT", Decimal(40)),
    ]
    assert foundations.exam.code == "NCA-AIIO"
    assert professional.exam.code == "NCP-AII"
    assert path_progress(foundations, {}).required == Decimal(48)
    assert path_progress(professional, {}).required == Decimal(136)


@pytest.mark.parametrize(
    ("logged", "counted", "remaining", "complete", "percent"),
    [
        ("0", "0", "8", False, 0.0),
        ("2", "2", "6", False, 25.0),
        ("7.99", "7.99", "0.01", False, 99.875),
        ("8", "8", "0", True, 100.0),  # "complete when the hours logged reach its hours"
        ("20", "8", "0", True, 100.0),  # over-logging counts no more than required
    ],
)
def test_course_progress_is_capped(db, logged, counted, remaining, complete, percent):
    """ "A path course is complete when the hours logged on it reach its hours"; the
    path counts min(logged, required)."""
    fdl = factories.course(db, "FDL")
    progress = CourseProgress(fdl, hours(logged))
    assert progress.required == Decimal(8)
    assert progress.counted == hours(counted)
    assert progress.remaining == hours(remaining)
    assert progress.complete is complete
    assert progress.percent == pytest.approx(percent)


def test_path_progress_percent_is_sum_of_capped_over_sum_required(db):
    """ "Path progress = sum over its courses of min(logged, required) / sum of
    required"."""
    foundations = path(db, "FOUNDATIONS")
    fdl, intro, _gpu = foundations.courses
    # FDL over-logged (20 of 8 counts 8), INTRO half done, GPU-ARCH untouched
    progress = path_progress(foundations, {fdl.id: hours(20), intro.id: hours(8)})
    assert progress.required == Decimal(48)
    assert progress.counted == Decimal(16)  # 8 + 8 + 0, not 28
    assert progress.remaining == Decimal(32)
    assert progress.percent == pytest.approx(16 / 48 * 100)
    assert not progress.complete
    assert [c.course.code for c in progress.open_courses] == ["INTRO-AI-INFRA", "GPU-ARCH"]


def test_path_progress_over_logging_one_course_does_not_complete_the_path(db):
    foundations = path(db, "FOUNDATIONS")
    fdl = foundations.courses[0]
    progress = path_progress(foundations, {fdl.id: hours(48)})  # the path's total, on one
    assert progress.counted == Decimal(8)
    assert progress.percent == pytest.approx(8 / 48 * 100)
    assert not progress.complete


def test_path_progress_complete(db):
    professional = path(db, "PROFESSIONAL")
    logged = {c.id: c.hours for c in professional.courses}
    progress = path_progress(professional, logged)
    assert progress.complete
    assert progress.open_courses == []
    assert progress.percent == pytest.approx(100.0)
    assert progress.remaining == Decimal(0)


def test_path_progress_ignores_hours_on_courses_outside_the_path(db):
    foundations = path(db, "FOUNDATIONS")
    multi = factories.course(db, "MULTI-GPU")
    progress = path_progress(foundations, {multi.id: hours(40)})
    assert progress.counted == Decimal(0)
    assert progress.percent == 0.0
    assert len(progress.open_courses) == 3


def test_path_without_courses_is_complete():
    empty = LearningPath(code="EMPTY", name="Empty", target_months=1)
    progress = path_progress(empty, {})
    assert progress.required == Decimal(0)
    assert progress.percent == 100.0
    assert progress.complete


def test_path_progress_from_logged_hours(db):
    """Hours logged with log_hours feed path_progress through logged_hours."""
    who = factories.engineer(db)
    other = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    intro = factories.course(db, "INTRO-AI-INFRA")
    gpu = factories.course(db, "GPU-ARCH")
    log_hours(db, who, fdl, D(2026, 1, 5), hours(6), TODAY)
    log_hours(db, who, fdl, D(2026, 1, 6), hours("4.5"), TODAY)  # FDL 10.5 of 8
    log_hours(db, who, intro, D(2026, 1, 6), hours("7.25"), TODAY)
    log_hours(db, other, gpu, D(2026, 1, 6), hours(24), TODAY)  # someone else's hours

    logged = logged_hours(db, who.id)
    assert logged == {fdl.id: Decimal("10.50"), intro.id: Decimal("7.25")}
    assert all(isinstance(v, Decimal) for v in logged.values())

    progress = path_progress(path(db, "FOUNDATIONS"), logged)
    assert progress.counted == Decimal("15.25")  # 8 (capped) + 7.25 + 0
    assert progress.percent == pytest.approx(float(Decimal("15.25") / 48 * 100))
    assert [c.course.code for c in progress.open_courses] == ["INTRO-AI-INFRA", "GPU-ARCH"]
    assert progress.courses[0].complete

    assert logged_hours(db, factories.engineer(db).id) == {}


def test_readiness_names_open_courses(db):
    """ "An engineer is ready for the path's exam when every course of the path is
    complete and the exam's prerequisites hold"."""
    foundations = path(db, "FOUNDATIONS")
    fdl, intro, _gpu = foundations.courses
    progress = path_progress(foundations, {fdl.id: hours(8), intro.id: hours("3.5")})
    readiness = exam_readiness(progress, [], experience=0, on=D(2026, 1, 1))
    assert not readiness.ready
    assert readiness.prerequisite_gaps == []  # NCA-AIIO has no prerequisites
    assert readiness.reasons == [
        "course INTRO-AI-INFRA (Introduction to AI Infrastructure) is open: 3.5 of 16 h logged",
        "course GPU-ARCH (GPU Architecture Essentials) is open: 0 of 24 h logged",
    ]


def test_readiness_names_missing_prerequisites(db):
    """ "An exam attempt whose prerequisites are not met ... naming the missing
    prerequisite"; NCP-AII needs a valid NCA-AIIO and 12 months."""
    professional = path(db, "PROFESSIONAL")
    progress = path_progress(professional, {c.id: c.hours for c in professional.courses})
    readiness = exam_readiness(progress, [], experience=5, on=D(2026, 1, 1))
    assert not readiness.ready
    assert readiness.open_courses == []
    assert len(readiness.reasons) == 2
    assert "NCA-AIIO" in readiness.reasons[0]
    assert "12 months" in readiness.reasons[1]
    assert "5 on 2026-01-01" in readiness.reasons[1]


def test_readiness_names_courses_and_prerequisites_together(db):
    professional = path(db, "PROFESSIONAL")
    progress = path_progress(professional, {})
    readiness = exam_readiness(progress, [], experience=0, on=D(2026, 1, 1))
    assert not readiness.ready
    assert len(readiness.reasons) == 4 + 2
    assert [r.split(" ")[1] for r in readiness.reasons[:4]] == [
        "MULTI-GPU",
        "IB-NET",
        "AI-STORAGE",
        "CLUSTER-MGMT",
    ]


def test_ready_when_courses_complete_and_prerequisites_hold(db):
    professional = path(db, "PROFESSIONAL")
    nca = factories.credential(db, "NCA-AIIO")
    progress = path_progress(professional, {c.id: c.hours for c in professional.courses})
    held = [cert(D(2025, 1, 1), D(2027, 1, 1), credential_id=nca.id, id=1)]
    readiness = exam_readiness(progress, held, experience=12, on=D(2026, 1, 1))
    assert readiness.ready
    assert readiness.reasons == []
    # the same, with the courses complete but the NCA-AIIO lapsed on the day
    readiness = exam_readiness(progress, held, experience=12, on=D(2027, 1, 2))
    assert not readiness.ready
    assert readiness.reasons == [
        "NCP-AII requires a valid NCA-AIIO; it was valid through 2027-01-01"
    ]


def test_courses_are_not_a_prerequisite_for_an_attempt(db):
    """ "Courses are the recommended preparation, not a prerequisite: an attempt is
    never refused because path courses are open"."""
    who = factories.engineer(db)
    foundations = path(db, "FOUNDATIONS")
    readiness = exam_readiness(
        path_progress(foundations, logged_hours(db, who.id)), [], 0, D(2026, 1, 1)
    )
    assert not readiness.ready  # every course is open...
    attempt = record_attempt(  # ...and the attempt is still recorded
        db, who, factories.exam(db, "NCA-AIIO"), D(2026, 1, 1), 80, True, TODAY
    )
    assert attempt.id is not None
    assert attempt.certification is not None

    # the same for NCP-AII: prerequisites met, no Professional course touched
    attempt = record_attempt(db, who, factories.exam(db, "NCP-AII"), D(2026, 2, 1), 75, True, TODAY)
    assert attempt.passed


def test_the_exam_is_not_open_during_the_retake_wait(db):
    """An exam's retake waiting period keeps the path's exam closed until the day it opens."""
    engineer = factories.engineer(db, hired_on=dt.date(2025, 1, 1))
    for day, code in enumerate(("FDL", "INTRO-AI-INFRA", "GPU-ARCH"), start=1):
        course = factories.course(db, code)
        log_hours(db, engineer, course, dt.date(2026, 11, day), course.hours, TODAY)
    nca = factories.exam(db, "NCA-AIIO")
    record_attempt(db, engineer, nca, dt.date(2026, 11, 20), 55, False, TODAY)

    foundations, readiness = overview(db, engineer, TODAY).paths[0]
    assert foundations.complete and not readiness.ready
    assert "a retake of NCA-AIIO opens on 2026-12-04" in readiness.reasons

    opening_day = overview(db, engineer, dt.date(2026, 12, 4)).paths[0][1]
    assert opening_day.ready
