"""Certification and progress rules (docs/domain.md sections 1-3) in tracker.progress.services.

Every date is fixed; TODAY is the date the services are told it is.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy import select

from tests import factories
from tests.factories import hours
from tests.helpers import count
from tracker.catalog.models.credentials import LearningPath
from tracker.catalog.services.reads import paths_with_courses
from tracker.errors import ValidationError
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.progress.services.certifications import (
    certifications_of,
    credential_for_entry,
    record_attempt,
    record_credential,
)
from tracker.progress.services.hours import log_hours
from tracker.progress.services.overview import overview
from tracker.progress.services.paths import (
    CourseProgress,
    exam_readiness,
    logged_hours,
    path_progress,
)
from tracker.progress.services.validity import (
    Status,
    add_months,
    days_left,
    experience_months,
    expiry_date,
    holding,
    is_valid_on,
    latest_for,
    newest_per_credential,
    status_on,
    whole_months_between,
)

TODAY = factories.TODAY  # 2026-11-29
D = dt.date


def cert(
    earned_on: dt.date,
    expires_on: dt.date | None = None,
    credential_id: int = 1,
    id: int | None = None,
) -> Certification:
    """A transient certification, for the pure rules that need no database."""
    return Certification(
        id=id, credential_id=credential_id, earned_on=earned_on, expires_on=expires_on
    )


def path(db, code: str) -> LearningPath:
    return next(p for p in paths_with_courses(db) if p.code == code)


# --- 1. add_months / expiry_date ------------------------------------------------


@pytest.mark.parametrize(
    ("start", "months", "expected"),
    [
        # "2024-02-29 + 24 months = 2026-02-28"
        (D(2024, 2, 29), 24, D(2026, 2, 28)),
        # "2025-01-31 + 1 month = 2025-02-28"
        (D(2025, 1, 31), 1, D(2025, 2, 28)),
        # clamped to the last day of a shorter month: a leap February has 29 days
        (D(2024, 1, 31), 1, D(2024, 2, 29)),
        (D(2023, 12, 31), 2, D(2024, 2, 29)),
        # the 31st into 30-day months
        (D(2024, 3, 31), 1, D(2024, 4, 30)),
        (D(2024, 5, 31), 1, D(2024, 6, 30)),
        (D(2024, 8, 31), 1, D(2024, 9, 30)),
        (D(2024, 10, 31), 1, D(2024, 11, 30)),
        (D(2024, 1, 31), 3, D(2024, 4, 30)),
        # a day that exists in every month is kept
        (D(2024, 1, 15), 1, D(2024, 2, 15)),
        (D(2024, 2, 28), 12, D(2025, 2, 28)),
        (D(2024, 2, 29), 48, D(2028, 2, 29)),
        # zero months is the same day
        (D(2024, 2, 29), 0, D(2024, 2, 29)),
        # negative months go back, clamped the same way
        (D(2024, 3, 31), -1, D(2024, 2, 29)),
        (D(2025, 3, 31), -1, D(2025, 2, 28)),
        (D(2024, 1, 15), -1, D(2023, 12, 15)),
        (D(2024, 1, 15), -13, D(2022, 12, 15)),
        (D(2026, 2, 28), -24, D(2024, 2, 28)),
        # year rollover
        (D(2024, 12, 15), 1, D(2025, 1, 15)),
        (D(2024, 11, 30), 2, D(2025, 1, 30)),
        (D(2024, 12, 31), 14, D(2026, 2, 28)),
        (D(2024, 6, 10), 30, D(2026, 12, 10)),
    ],
)
def test_add_months(start, months, expected):
    """Calendar months: "the same day of the month N months later, clamped to the
    last day of a shorter month"."""
    assert add_months(start, months) == expected


@pytest.mark.parametrize(
    ("earned_on", "validity", "expected"),
    [
        # "2024-02-29 + 24 months = 2026-02-28"
        (D(2024, 2, 29), 24, D(2026, 2, 28)),
        (D(2025, 1, 31), 1, D(2025, 2, 28)),
        (D(2024, 6, 10), 24, D(2026, 6, 10)),
        # validity None: the credential does not expire
        (D(2024, 6, 10), None, None),
    ],
)
def test_expiry_date(earned_on, validity, expected):
    """ "It is valid from the pass date until pass date + validity, computed in
    calendar months"."""
    assert expiry_date(earned_on, validity) == expected


# --- 2. experience --------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (D(2024, 1, 15), D(2024, 1, 15), 0),
        (D(2024, 1, 15), D(2024, 2, 14), 0),  # the day before the monthly anniversary
        (D(2024, 1, 15), D(2024, 2, 15), 1),  # the anniversary itself
        (D(2024, 3, 15), D(2024, 5, 14), 1),
        (D(2024, 3, 15), D(2024, 5, 15), 2),
        (D(2024, 1, 31), D(2024, 2, 29), 1),  # hired on the 31st: one month on Feb 29
        (D(2025, 1, 31), D(2025, 2, 28), 1),  # ... and on Feb 28 in a common year
        (D(2025, 1, 31), D(2025, 2, 27), 0),
        (D(2025, 1, 31), D(2025, 3, 30), 1),  # Jan 31 + 2 months is Mar 31
        (D(2025, 1, 31), D(2025, 3, 31), 2),
        (D(2024, 12, 15), D(2025, 12, 14), 11),  # across the year end
        (D(2024, 12, 15), D(2025, 12, 15), 12),
        (D(2021, 1, 1), D(2026, 11, 29), 70),
        (D(2024, 2, 29), D(2026, 2, 28), 24),
        (D(2024, 5, 10), D(2024, 5, 9), 0),  # end before start -> 0
        (D(2024, 5, 10), D(2023, 1, 1), 0),
    ],
)
def test_whole_months_between(start, end, expected):
    """ "whole months since the hire date": the largest n with start + n months <= end."""
    assert whole_months_between(start, end) == expected


@pytest.mark.parametrize(
    ("hired_on", "documented", "on", "expected"),
    [
        (D(2025, 1, 31), 0, D(2025, 2, 28), 1),  # hired Jan 31: one month on Feb 28
        (D(2025, 1, 31), 6, D(2025, 2, 28), 7),
        (D(2025, 3, 15), 4, D(2025, 6, 14), 6),  # the day before the anniversary
        (D(2025, 3, 15), 4, D(2025, 6, 15), 7),
        (D(2025, 3, 15), 4, D(2025, 3, 1), 4),  # before the hire date: documented only
        (None, 9, D(2025, 6, 15), 9),  # no hire date: documented only
        (None, 0, D(2025, 6, 15), 0),
    ],
)
def test_experience_months(db, hired_on, documented, on, expected):
    """ "Experience on a date = documented months before joining + whole months since
    the hire date"."""
    who = factories.engineer(
        db, hired_on=hired_on, experience_months=documented, experience_text="GPU ops"
    )
    assert experience_months(who, on) == expected


# --- 3. status on a date --------------------------------------------------------


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        (D(2024, 6, 10), Status.VALID),  # the pass date itself
        (D(2025, 1, 1), Status.VALID),
        (D(2026, 3, 11), Status.VALID),  # 91 days left
        (D(2026, 3, 12), Status.EXPIRING),  # exactly 90 days left
        (D(2026, 6, 9), Status.EXPIRING),
        (D(2026, 6, 10), Status.EXPIRING),  # the expiry date: still valid (expiring)
        (D(2026, 6, 11), Status.EXPIRED),  # the day after
        (D(2030, 1, 1), Status.EXPIRED),
        (D(2024, 6, 9), Status.MISSING),  # earned after the date asked
    ],
)
def test_status_on(on, expected):
    """ "It is valid on its expiry date and expired the day after"; expiring when the
    expiry is at most 90 days away (`<=`); missing before it was earned."""
    c = cert(D(2024, 6, 10), D(2026, 6, 10))
    assert status_on(c, on) == expected


def test_status_on_expiry_date_is_not_expired():
    """ "It is valid on its expiry date and expired the day after"."""
    c = cert(D(2024, 6, 10), D(2026, 6, 10))
    assert status_on(c, D(2026, 6, 10)) != Status.EXPIRED
    assert is_valid_on(c, D(2026, 6, 10))
    assert not is_valid_on(c, D(2026, 6, 11))


def test_status_on_none_is_missing():
    assert status_on(None, D(2025, 1, 1)) == Status.MISSING


def test_status_on_without_expiry_is_valid_for_good():
    """Externals are "recorded with an issue date and, where the holder enters one,
    an expiry": without one they never lapse."""
    c = cert(D(2020, 1, 1), None)
    assert status_on(c, D(2020, 1, 1)) == Status.VALID
    assert status_on(c, D(2099, 12, 31)) == Status.VALID
    assert status_on(c, D(2019, 12, 31)) == Status.MISSING


def test_status_on_custom_window():
    c = cert(D(2024, 6, 10), D(2026, 6, 10))
    assert status_on(c, D(2026, 5, 10), expiring_within=30) == Status.VALID  # 31 days
    assert status_on(c, D(2026, 5, 11), expiring_within=30) == Status.EXPIRING  # 30 days


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        (D(2026, 3, 12), 90),
        (D(2026, 6, 9), 1),
        (D(2026, 6, 10), 0),  # 0 on the expiry day
        (D(2026, 6, 11), -1),  # negative after
    ],
)
def test_days_left(on, expected):
    assert days_left(cert(D(2024, 6, 10), D(2026, 6, 10)), on) == expected


def test_days_left_without_expiry_is_none():
    assert days_left(cert(D(2024, 6, 10), None), D(2026, 6, 10)) is None


# --- 4. which certification counts ------------------------------------------------


def test_newest_per_credential():
    """ "Passing the same exam again renews it ... History is kept; the newest one
    counts"."""
    a_old = cert(D(2020, 1, 1), D(2022, 1, 1), credential_id=1, id=1)
    a_new = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=1, id=2)
    b_only = cert(D(2021, 5, 5), None, credential_id=2, id=3)
    # order of the input does not matter
    assert newest_per_credential([a_new, b_only, a_old]) == {1: a_new, 2: b_only}
    assert newest_per_credential([a_old, a_new, b_only]) == {1: a_new, 2: b_only}
    assert newest_per_credential([]) == {}


def test_newest_per_credential_same_day_takes_the_later_record():
    first = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=1, id=5)
    second = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=1, id=9)
    assert newest_per_credential([second, first]) == {1: second}


def test_holding_a_group_is_satisfied_by_any_member(db):
    """A group credential: "a named group any member of which satisfies it"."""
    group = factories.credential(db, "NVIDIA-ASSOCIATE+")
    assert {m.code for m in group.members} == {"NCA-AIIO", "NCP-AII", "NCP-AIO"}
    nca = factories.credential(db, "NCA-AIIO")
    ncp = factories.credential(db, "NCP-AII")
    cka = factories.credential(db, "CKA")

    associate = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=nca.id, id=1)
    professional = cert(D(2023, 1, 1), D(2025, 1, 1), credential_id=ncp.id, id=2)
    other = cert(D(2023, 1, 1), None, credential_id=cka.id, id=3)
    certs = [associate, professional, other]

    assert holding(certs, group, D(2021, 12, 31)) is None  # none earned yet
    assert holding(certs, group, D(2022, 6, 1)) is associate
    # both valid: the one valid longest wins
    assert holding(certs, group, D(2023, 6, 1)) is professional
    assert holding(certs, group, D(2024, 6, 1)) is professional  # associate lapsed
    assert holding(certs, group, D(2025, 1, 1)) is professional  # its expiry date
    assert holding(certs, group, D(2025, 1, 2)) is None  # both expired
    # a member's certification does not satisfy an unrelated credential
    assert holding(certs, cka, D(2023, 6, 1)) is other
    assert holding([associate, professional], cka, D(2023, 6, 1)) is None
    # a plain credential is satisfied only by itself
    assert holding(certs, nca, D(2023, 6, 1)) is associate
    assert holding(certs, nca, D(2024, 6, 1)) is None


def test_latest_for_returns_the_newest_valid_or_not(db):
    group = factories.credential(db, "NVIDIA-ASSOCIATE+")
    nca = factories.credential(db, "NCA-AIIO")
    ncp = factories.credential(db, "NCP-AII")
    associate = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=nca.id, id=1)
    professional = cert(D(2023, 1, 1), D(2025, 1, 1), credential_id=ncp.id, id=2)

    assert latest_for([associate, professional], group) is professional
    assert latest_for([associate, professional], nca) is associate
    assert latest_for([professional], nca) is None
    assert latest_for([], group) is None


# --- 5. course and path progress ------------------------------------------------


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


# --- 6. exam readiness ----------------------------------------------------------


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


# --- 7. record_attempt --------------------------------------------------------------


@pytest.mark.parametrize(
    ("attempted_on", "expires_on"),
    [
        (D(2024, 2, 29), D(2026, 2, 28)),  # "2024-02-29 + 24 months = 2026-02-28"
        (D(2024, 6, 10), D(2026, 6, 10)),
        (D(2025, 12, 31), D(2027, 12, 31)),
        (TODAY, D(2028, 11, 29)),  # today itself is not in the future
    ],
)
def test_pass_creates_certification_with_expiry(db, attempted_on, expires_on):
    """ "A certification is earned by a passed exam attempt ... valid from the pass date
    until pass date + validity" (NCA-AIIO: 2 years)."""
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    attempt = record_attempt(db, who, exam, attempted_on, 82, True, TODAY)
    certs = certifications_of(db, who.id)
    assert len(certs) == 1
    (c,) = certs
    assert c.credential.code == "NCA-AIIO"
    assert c.earned_on == attempted_on
    assert c.expires_on == expires_on
    assert c.attempt_id == attempt.id
    assert c.renews_id is None
    assert attempt.score == 82
    assert attempt.passed is True


def test_fail_creates_no_certification(db):
    who = factories.engineer(db)
    before = count(db, Certification)
    attempt = record_attempt(
        db, who, factories.exam(db, "NCA-AIIO"), D(2026, 1, 5), 40, False, TODAY
    )
    assert attempt.id is not None
    assert attempt.passed is False
    assert count(db, Certification) == before
    assert certifications_of(db, who.id) == []


def test_recorded_by_is_kept(db):
    who = factories.engineer(db)
    manager = factories.engineer(db, access_role="manager")
    attempt = record_attempt(
        db,
        who,
        factories.exam(db, "NCA-AIIO"),
        D(2026, 1, 5),
        90,
        True,
        TODAY,
        recorded_by=manager,
    )
    assert attempt.recorded_by_id == manager.id
    assert attempt.certification.recorded_by_id == manager.id


def assert_refused(db, call, field: str, *fragments: str) -> ValidationError:
    """Run `call`, expect a ValidationError on `field`, and check nothing was written."""
    before = (count(db, ExamAttempt), count(db, Certification), count(db, HourLog))
    with pytest.raises(ValidationError) as info:
        call()
    assert field in info.value.errors, info.value.errors
    for fragment in fragments:
        assert fragment in info.value.errors[field], info.value.errors[field]
    assert (count(db, ExamAttempt), count(db, Certification), count(db, HourLog)) == before
    return info.value


def test_ncp_aii_refused_without_nca_aiio(db):
    """ "An exam attempt whose prerequisites are not met on the attempt date is refused
    with a message naming the missing prerequisite"."""
    who = factories.engineer(db, experience_months=24)
    exam = factories.exam(db, "NCP-AII")
    error = assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 1), 85, True, TODAY),
        "exam",
        "NCA-AIIO",
    )
    assert set(error.errors) == {"exam"}
    assert "12 months" not in error.errors["exam"]  # the experience is there


def test_ncp_aii_refused_when_nca_aiio_earned_after_the_attempt_date(db):
    """Prerequisites must hold "on the attempt date"."""
    who = factories.engineer(db)
    factories.certification(db, who, "NCA-AIIO", D(2026, 3, 2), D(2028, 3, 2))
    exam = factories.exam(db, "NCP-AII")
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 1), 85, True, TODAY),
        "exam",
        "NCA-AIIO",
    )


def test_ncp_aii_refused_when_nca_aiio_expired(db):
    """NCP-AII needs "a valid NCA-AIIO": "It is valid on its expiry date and expired the
    day after"."""
    who = factories.engineer(db)
    factories.certification(db, who, "NCA-AIIO", D(2022, 1, 10), D(2024, 1, 10))
    exam = factories.exam(db, "NCP-AII")
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2024, 1, 11), 85, True, TODAY),
        "exam",
        "NCA-AIIO",
        "was valid through",
        "2024-01-10",
    )


def test_ncp_aii_accepted_on_the_nca_aiio_expiry_date(db):
    """ "It is valid on its expiry date"."""
    who = factories.engineer(db)
    factories.certification(db, who, "NCA-AIIO", D(2022, 1, 10), D(2024, 1, 10))
    attempt = record_attempt(
        db, who, factories.exam(db, "NCP-AII"), D(2024, 1, 10), 85, True, TODAY
    )
    assert attempt.certification.expires_on == D(2026, 1, 10)


def test_back_dated_ncp_aii_names_the_expiry_of_the_nca_aiio_held_then(db):
    """NCP-AII needs "a valid NCA-AIIO" on the attempt date; the NCA-AIIO held on
    2022-06-01 had expired on 2022-01-10 (it was only renewed in 2023)."""
    who = factories.engineer(db, hired_on=D(2019, 1, 1))
    factories.certification(db, who, "NCA-AIIO", D(2020, 1, 10), D(2022, 1, 10))
    factories.certification(db, who, "NCA-AIIO", D(2023, 1, 10), D(2025, 1, 10))
    exam = factories.exam(db, "NCP-AII")
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2022, 6, 1), 85, True, TODAY),
        "exam",
        "NCA-AIIO",
        "was valid through 2022-01-10",
    )


def test_ncp_aii_accepted_with_nca_aiio_entered_with_evidence(db):
    """ "A certification is earned by a passed exam attempt (or entered as an external
    credential with evidence)"."""
    who = factories.engineer(db)
    nca = factories.credential(db, "NCA-AIIO")
    record_credential(db, who, nca, D(2025, 1, 10), TODAY, "NVIDIA certificate 1234")
    attempt = record_attempt(db, who, factories.exam(db, "NCP-AII"), D(2025, 2, 1), 85, True, TODAY)
    assert attempt.passed


def test_ncp_aii_refused_with_too_few_experience_months(db):
    """ "the NCP-AII threshold is configurable in the catalog (default 12 months)";
    experience = documented months + whole months since the hire date: 3 + 5 = 8."""
    who = factories.engineer(
        db, hired_on=D(2024, 1, 1), experience_months=3, experience_text="lab admin"
    )
    factories.certification(db, who, "NCA-AIIO", D(2024, 2, 1), D(2026, 2, 1))
    exam = factories.exam(db, "NCP-AII")
    error = assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2024, 6, 15), 85, True, TODAY),
        "exam",
        "12 months",
        "8 on 2024-06-15",
    )
    assert "NCA-AIIO" not in error.errors["exam"]  # that prerequisite holds


def test_ncp_aii_names_every_missing_prerequisite(db):
    who = factories.engineer(db, hired_on=D(2026, 1, 1))
    exam = factories.exam(db, "NCP-AII")
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 1), 85, True, TODAY),
        "exam",
        "NCA-AIIO",
        "12 months",
        "2 on 2026-03-01",
    )


def test_ncp_aii_accepted_with_valid_nca_aiio_and_experience(db):
    """3 documented months + 9 months since hire (2024-01-01 -> 2024-10-01) = 12."""
    who = factories.engineer(
        db, hired_on=D(2024, 1, 1), experience_months=3, experience_text="lab admin"
    )
    factories.certification(db, who, "NCA-AIIO", D(2024, 2, 1), D(2026, 2, 1))
    exam = factories.exam(db, "NCP-AII")
    assert_refused(  # one day short of the 9th month since hire
        db,
        lambda: record_attempt(db, who, exam, D(2024, 9, 30), 85, True, TODAY),
        "exam",
        "11 on 2024-09-30",
    )
    attempt = record_attempt(db, who, exam, D(2024, 10, 1), 85, True, TODAY)
    assert attempt.certification.credential_id == exam.credential_id
    assert attempt.certification.expires_on == D(2026, 10, 1)


def test_ncp_aii_accepted_via_a_real_nca_aiio_pass(db):
    who = factories.engineer(db)  # hired 2021-01-01: years of experience
    record_attempt(db, who, factories.exam(db, "NCA-AIIO"), D(2025, 3, 1), 71, True, TODAY)
    attempt = record_attempt(db, who, factories.exam(db, "NCP-AII"), D(2025, 3, 2), 88, True, TODAY)
    assert attempt.certification.expires_on == D(2027, 3, 2)


@pytest.mark.parametrize(
    ("attempted_on", "fragment"),
    [
        (TODAY + dt.timedelta(days=1), "future"),
        (D(2030, 1, 1), "future"),
        (D(2020, 12, 31), "hire date 2021-01-01"),  # hired 2021-01-01
    ],
)
def test_attempt_refused_on_future_date_or_before_hire(db, attempted_on, fragment):
    who = factories.engineer(db, hired_on=D(2021, 1, 1))
    exam = factories.exam(db, "NCA-AIIO")
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, attempted_on, 80, True, TODAY),
        "attempted_on",
        fragment,
    )


def test_attempt_accepted_on_the_hire_date(db):
    who = factories.engineer(db, hired_on=D(2021, 1, 1))
    attempt = record_attempt(
        db, who, factories.exam(db, "NCA-AIIO"), D(2021, 1, 1), 80, True, TODAY
    )
    assert attempt.attempted_on == D(2021, 1, 1)


@pytest.mark.parametrize("score", [-1, 101, 1000, True, False, 75.5, "80", None])
def test_attempt_refused_with_score_outside_0_to_100(db, score):
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 1, 5), score, True, TODAY),
        "score",
        "0 to 100",
    )


@pytest.mark.parametrize("score", [0, 100])
def test_attempt_accepts_scores_0_and_100(db, score):
    who = factories.engineer(db)
    attempt = record_attempt(
        db, who, factories.exam(db, "NCA-AIIO"), D(2026, 1, 5), score, score == 100, TODAY
    )
    assert attempt.score == score


def test_attempt_reports_date_and_score_together(db):
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    error = assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2027, 1, 1), 101, True, TODAY),
        "attempted_on",
    )
    assert set(error.errors) == {"attempted_on", "score"}


def test_retake_within_wait_after_failure_refused_then_accepted_on_opening_day(db):
    """Retake wait (catalog: 14 days after a failed attempt)."""
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    assert exam.retake_wait_days == 14
    record_attempt(db, who, exam, D(2026, 3, 1), 55, False, TODAY)
    for day in (D(2026, 3, 1), D(2026, 3, 2), D(2026, 3, 14)):
        assert_refused(
            db,
            lambda day=day: record_attempt(db, who, exam, day, 80, True, TODAY),
            "attempted_on",
            "opens on 2026-03-15",
            "NCA-AIIO",
        )
    attempt = record_attempt(db, who, exam, D(2026, 3, 15), 80, True, TODAY)
    assert attempt.passed
    assert attempt.certification.expires_on == D(2028, 3, 15)


@pytest.mark.parametrize(
    ("score", "passed", "message"),
    [
        (69, True, "a pass of NCA-AIIO needs a score of at least 70: 69 fails it"),
        (10, True, "a pass of NCA-AIIO needs a score of at least 70: 10 fails it"),
        (70, False, "a score of 70 passes NCA-AIIO (70 or more): mark the attempt passed"),
    ],
)
def test_a_score_that_disagrees_with_the_pass_is_refused(db, score, passed, message):
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    assert exam.passing_score == 70
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 1), score, passed, TODAY),
        "score",
        message,
    )
    assert record_attempt(db, who, exam, D(2026, 3, 1), 70, True, TODAY).passed


def test_an_exam_is_sat_once_a_day(db):
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    record_attempt(db, who, exam, D(2026, 3, 1), 88, True, TODAY)
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 1), 90, True, TODAY),
        "attempted_on",
        "an attempt of NCA-AIIO on 2026-03-01 is recorded already",
    )
    # The next day is another sitting (a renewal), and another engineer's is theirs.
    assert record_attempt(db, who, exam, D(2026, 3, 2), 90, True, TODAY).passed
    assert record_attempt(db, factories.engineer(db), exam, D(2026, 3, 1), 90, True, TODAY)


@pytest.mark.parametrize("cost", [Decimal(-1), Decimal("1000000.01"), "12"])
def test_an_attempt_cost_outside_its_range_is_refused_whoever_records_it(db, cost):
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 1), 90, True, TODAY, cost=cost),
        "cost",
        "cost must be from 0 to 1,000,000",
    )
    assert record_attempt(db, who, exam, D(2026, 3, 1), 90, True, TODAY, cost=Decimal(1_000_000))


def test_retake_wait_runs_from_the_latest_failure(db):
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    record_attempt(db, who, exam, D(2026, 3, 1), 55, False, TODAY)
    record_attempt(db, who, exam, D(2026, 3, 15), 60, False, TODAY)
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 20), 80, True, TODAY),
        "attempted_on",
        "opens on 2026-03-29",
    )
    assert record_attempt(db, who, exam, D(2026, 3, 29), 80, True, TODAY).passed


def test_a_failure_entered_after_the_fact_must_not_put_a_later_sitting_inside_its_wait(db):
    """A failure back-dated to 10 days before a recorded attempt would make that one
    a retake 4 days early: refused. One 14 days before leaves it on the opening day."""
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    record_attempt(db, who, exam, D(2026, 3, 15), 80, True, TODAY)
    assert_refused(
        db,
        lambda: record_attempt(db, who, exam, D(2026, 3, 5), 50, False, TODAY),
        "attempted_on",
        "a failure of NCA-AIIO on 2026-03-05 would leave the attempt of 2026-03-15 inside"
        " the 14 days a retake waits",
    )
    # A pass back-dated there starts no wait.
    assert record_attempt(db, who, exam, D(2026, 3, 5), 90, True, TODAY).passed
    assert not record_attempt(db, who, exam, D(2026, 2, 19), 50, False, TODAY).passed
    # A later failure does not look back: the retake rule already checked it.
    assert not record_attempt(db, who, exam, D(2026, 4, 1), 50, False, TODAY).passed


def test_retake_wait_is_per_exam_and_per_engineer(db):
    who = factories.engineer(db)
    colleague = factories.engineer(db)
    nca = factories.exam(db, "NCA-AIIO")
    ncp_aio = factories.exam(db, "NCP-AIO")
    record_attempt(db, who, nca, D(2026, 3, 1), 55, False, TODAY)
    # another exam, the day after
    assert record_attempt(db, who, ncp_aio, D(2026, 3, 2), 80, True, TODAY).passed
    # another engineer, same exam
    assert record_attempt(db, colleague, nca, D(2026, 3, 2), 80, True, TODAY).passed


def test_no_retake_wait_after_a_pass(db):
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    record_attempt(db, who, exam, D(2026, 3, 1), 90, True, TODAY)
    assert record_attempt(db, who, exam, D(2026, 3, 2), 91, True, TODAY).passed


def test_renewal_links_to_the_previous_certification(db):
    """ "Passing the same exam again renews it: the new certificate's validity runs
    from the new pass date. History is kept; the newest one counts"."""
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    first = record_attempt(db, who, exam, D(2022, 5, 1), 80, True, TODAY).certification
    second = record_attempt(db, who, exam, D(2024, 4, 20), 85, True, TODAY).certification
    assert first.renews_id is None
    assert second.renews_id == first.id
    assert second.renews is first
    assert first.renewed_by is second
    assert second.expires_on == D(2026, 4, 20)  # from the new pass date
    certs = certifications_of(db, who.id)
    assert certs == [first, second]  # history kept
    assert newest_per_credential(certs) == {exam.credential_id: second}
    # the old one still runs to its own expiry (2024-05-01), then lapses
    assert is_valid_on(first, D(2024, 5, 1))
    assert not is_valid_on(first, D(2024, 5, 2))
    assert holding(certs, exam.credential, D(2024, 5, 1)) is second


def test_back_dated_pass_slots_into_the_chain(db):
    """ "the newest pass renews the one before it; a back-dated entry slots in between,
    so history entered out of order still forms one chain"."""
    who = factories.engineer(db)
    exam = factories.exam(db, "NCA-AIIO")
    oldest = record_attempt(db, who, exam, D(2021, 6, 1), 80, True, TODAY).certification
    newest = record_attempt(db, who, exam, D(2025, 6, 1), 80, True, TODAY).certification
    assert newest.renews_id == oldest.id

    middle = record_attempt(db, who, exam, D(2023, 6, 1), 80, True, TODAY).certification
    db.expire_all()
    assert oldest.renews_id is None
    assert middle.renews_id == oldest.id
    assert newest.renews_id == middle.id

    # a pass before the whole chain becomes its start
    first = record_attempt(db, who, exam, D(2021, 2, 1), 80, True, TODAY).certification
    db.expire_all()
    assert first.renews_id is None
    assert oldest.renews_id == first.id
    assert middle.renews_id == oldest.id
    assert newest.renews_id == middle.id
    assert newest_per_credential(certifications_of(db, who.id)) == {exam.credential_id: newest}


def test_renewal_chains_are_per_engineer_and_credential(db):
    who = factories.engineer(db)
    colleague = factories.engineer(db)
    nca = factories.exam(db, "NCA-AIIO")
    aio = factories.exam(db, "NCP-AIO")
    mine = record_attempt(db, who, nca, D(2024, 1, 1), 80, True, TODAY).certification
    theirs = record_attempt(db, colleague, nca, D(2025, 1, 1), 80, True, TODAY).certification
    other = record_attempt(db, who, aio, D(2025, 1, 1), 80, True, TODAY).certification
    assert mine.renews_id is None
    assert theirs.renews_id is None
    assert other.renews_id is None


# --- 8. record_credential ---------------------------------------------------------


def test_record_external_credential_with_expiry_as_entered(db):
    """External credentials: "recorded with an issue date and, where the holder enters
    one, an expiry"."""
    who = factories.engineer(db)
    cka = factories.credential(db, "CKA")
    c = record_credential(
        db, who, cka, D(2025, 3, 10), TODAY, "  cert LF-123  ", expires_on=D(2028, 3, 9)
    )
    assert c.id is not None
    assert c.earned_on == D(2025, 3, 10)
    assert c.expires_on == D(2028, 3, 9)
    assert c.evidence == "cert LF-123"
    assert c.attempt_id is None


def test_record_external_credential_without_validity_does_not_expire(db):
    """Externals in the seed have no validity: without an entered expiry, none."""
    who = factories.engineer(db)
    linux = factories.credential(db, "COMPTIA-LINUX-PLUS")
    assert linux.kind == "external"
    assert linux.validity_months is None
    c = record_credential(db, who, linux, D(2025, 3, 10), TODAY, "https://example.com/x")
    assert c.expires_on is None
    assert status_on(c, D(2099, 1, 1)) == Status.VALID


def test_record_credential_computes_expiry_from_catalog_validity(db):
    """ "entered as an external credential with evidence": an NCA-AIIO earned elsewhere
    follows the catalog validity, 2024-02-29 + 24 months = 2026-02-28."""
    who = factories.engineer(db)
    nca = factories.credential(db, "NCA-AIIO")
    assert nca.validity_months == 24
    c = record_credential(db, who, nca, D(2024, 2, 29), TODAY, "NVIDIA cert 42")
    assert c.expires_on == D(2026, 2, 28)
    # an entered expiry wins over the catalog's
    d = record_credential(
        db, who, nca, D(2025, 1, 31), TODAY, "NVIDIA cert 43", expires_on=D(2026, 1, 31)
    )
    assert d.expires_on == D(2026, 1, 31)
    assert d.renews_id == c.id


def test_record_credential_expiring_on_its_issue_day_is_accepted(db):
    who = factories.engineer(db)
    c = record_credential(
        db,
        who,
        factories.credential(db, "CKA"),
        D(2025, 3, 10),
        TODAY,
        "x",
        expires_on=D(2025, 3, 10),
    )
    assert c.expires_on == D(2025, 3, 10)


def test_record_credential_on_today_is_accepted(db):
    who = factories.engineer(db)
    c = record_credential(db, who, factories.credential(db, "RHCE"), TODAY, TODAY, "x")
    assert c.earned_on == TODAY


def test_record_credential_refuses_a_group(db):
    """A group is satisfied by its members; only a member can be held."""
    who = factories.engineer(db)
    group = factories.credential(db, "NVIDIA-ASSOCIATE+")
    assert_refused(
        db,
        lambda: record_credential(db, who, group, D(2025, 3, 10), TODAY, "x"),
        "credential",
        "NVIDIA-ASSOCIATE+",
        "group",
    )


@pytest.mark.parametrize(
    ("issued_on", "expires_on", "evidence", "field", "fragment"),
    [
        (TODAY + dt.timedelta(days=1), None, "x", "issued_on", "future"),
        (D(2025, 3, 10), D(2025, 3, 9), "x", "expires_on", "before the issue date"),
        (D(2025, 3, 10), None, "", "evidence", "required"),
        (D(2025, 3, 10), None, "   \n\t", "evidence", "required"),
    ],
)
def test_record_credential_refusals(db, issued_on, expires_on, evidence, field, fragment):
    who = factories.engineer(db)
    cka = factories.credential(db, "CKA")
    assert_refused(
        db,
        lambda: record_credential(db, who, cka, issued_on, TODAY, evidence, expires_on=expires_on),
        field,
        fragment,
    )


def test_an_exam_credential_entered_by_hand_needs_the_exams_prerequisites(db):
    """Entered by hand, NCP-AII is refused as its attempt would be: no valid NCA-AIIO
    on its issue date. A badge its issuer verified vouches for it instead."""
    who = factories.engineer(db, experience_months=24)
    ncp = factories.credential(db, "NCP-AII")
    assert_refused(
        db,
        lambda: record_credential(db, who, ncp, D(2026, 3, 1), TODAY, "NVIDIA cert 7"),
        "credential",
        "NCP-AII requires a valid NCA-AIIO",
    )
    verified = record_credential(db, who, ncp, D(2026, 3, 1), TODAY, "urn:badge:1", verified=True)
    assert verified.expires_on == D(2028, 3, 1)
    factories.certification(db, who, "NCA-AIIO", D(2025, 1, 10), D(2027, 1, 10))
    assert record_credential(db, who, ncp, D(2026, 3, 2), TODAY, "NVIDIA cert 8").id


def test_an_entered_expiry_may_not_outlast_the_catalogs_validity(db):
    who = factories.engineer(db)
    nca = factories.credential(db, "NCA-AIIO")
    assert_refused(
        db,
        lambda: record_credential(
            db, who, nca, D(2026, 11, 4), TODAY, "x", expires_on=D(2099, 1, 1)
        ),
        "expires_on",
        "NCA-AIIO is valid for 24 months: issued on 2026-11-04, it is valid through 2028-11-04"
        " at the latest",
    )
    # Sooner is the holder's to say (a certificate revoked or renewed early).
    assert record_credential(
        db, who, nca, D(2025, 12, 4), TODAY, "x", expires_on=D(2027, 12, 4)
    ).expires_on == D(2027, 12, 4)


def test_an_entered_expiry_without_a_catalog_validity_runs_at_most_ten_years(db):
    who = factories.engineer(db)
    linux = factories.credential(db, "COMPTIA-LINUX-PLUS")
    assert linux.validity_months is None
    assert_refused(
        db,
        lambda: record_credential(
            db, who, linux, D(2026, 6, 1), TODAY, "x", expires_on=D(9999, 12, 31)
        ),
        "expires_on",
        "at most 10 years after the issue date (2036-06-01)",
        "leave it empty",
    )
    assert record_credential(
        db, who, linux, D(2026, 6, 1), TODAY, "x", expires_on=D(2036, 6, 1)
    ).expires_on == D(2036, 6, 1)


def test_a_credential_is_not_dated_before_1970(db):
    who = factories.engineer(db)
    assert_refused(
        db,
        lambda: record_credential(
            db, who, factories.credential(db, "RHCE"), D(1, 6, 1), TODAY, "x"
        ),
        "issued_on",
        "must not be before 1970-01-01",
    )


def test_the_same_credential_on_the_same_day_is_recorded_once(db):
    who = factories.engineer(db)
    cka = factories.credential(db, "CKA")
    record_credential(db, who, cka, D(2026, 6, 1), TODAY, "LF-1")
    assert_refused(
        db,
        lambda: record_credential(db, who, cka, D(2026, 6, 1), TODAY, "LF-1 again"),
        "issued_on",
        "CKA earned on 2026-06-01 is recorded already",
    )
    # A pass of the exam that day counts as that day's too.
    who_else = factories.engineer(db)
    record_attempt(db, who_else, factories.exam(db, "NCA-AIIO"), D(2026, 6, 1), 90, True, TODAY)
    assert_refused(
        db,
        lambda: record_credential(
            db, who_else, factories.credential(db, "NCA-AIIO"), D(2026, 6, 1), TODAY, "x"
        ),
        "issued_on",
        "recorded already",
    )
    assert record_credential(db, who, cka, D(2026, 6, 2), TODAY, "LF-2").renews_id
    # One outside the catalog is named as it was entered.
    terraform = credential_for_entry(db, name="Terraform Associate", issuer="HashiCorp")
    record_credential(db, who, terraform, D(2026, 6, 1), TODAY, "HC-1")
    assert_refused(
        db,
        lambda: record_credential(db, who, terraform, D(2026, 6, 1), TODAY, "HC-1"),
        "issued_on",
        "Terraform Associate earned on 2026-06-01 is recorded already",
    )


# --- 9. log_hours ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (Decimal(0), "more than 0"),
        (Decimal("0.00"), "more than 0"),
        (Decimal("-1"), "more than 0"),
        (Decimal("-0.01"), "more than 0"),
        (Decimal("24.01"), "at most 24"),
        (Decimal(25), "at most 24"),
        (Decimal("1.255"), "2 decimals"),
        (Decimal("0.001"), "2 decimals"),
        (Decimal("NaN"), "a number"),
        (Decimal("sNaN"), "a number"),
        (Decimal("Infinity"), "a number"),
        (Decimal("-Infinity"), "a number"),
        (float("nan"), "a number"),
        (1.5, "a number"),
    ],
)
def test_log_hours_refuses_bad_hours(db, value, fragment):
    """Hours on a day are more than 0 and at most 24, in hundredths of an hour."""
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2026, 1, 5), value, TODAY),
        "hours",
        fragment,
    )


def test_log_hours_day_total_above_24_refused_naming_hours_already_logged(db):
    """A day holds at most 24 hours, over every course."""
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    gpu = factories.course(db, "GPU-ARCH")
    log_hours(db, who, fdl, D(2026, 1, 5), hours(8), TODAY)
    log_hours(db, who, gpu, D(2026, 1, 5), hours("12.5"), TODAY)
    assert_refused(
        db,
        lambda: log_hours(db, who, gpu, D(2026, 1, 5), hours("3.51"), TODAY),
        "hours",
        "20.5 h are already logged on 2026-01-05",
    )
    # exactly 24 in the day is accepted
    log_hours(db, who, fdl, D(2026, 1, 5), hours("3.5"), TODAY)
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2026, 1, 5), hours("0.01"), TODAY),
        "hours",
        "24 h are already logged",
    )
    # other days, and other engineers, are unaffected
    log_hours(db, who, fdl, D(2026, 1, 6), hours(24), TODAY)
    log_hours(db, factories.engineer(db), fdl, D(2026, 1, 5), hours(24), TODAY)


def test_log_hours_exactly_24_in_one_entry(db):
    who = factories.engineer(db)
    entry = log_hours(db, who, factories.course(db, "GPU-ARCH"), D(2026, 1, 5), hours(24), TODAY)
    db.expire_all()
    assert entry.hours == Decimal(24)


@pytest.mark.parametrize(
    ("logged_on", "fragment"),
    [
        (TODAY + dt.timedelta(days=1), "future"),
        (D(2024, 3, 14), "hire date 2024-03-15"),
    ],
)
def test_log_hours_refuses_future_date_or_before_hire(db, logged_on, fragment):
    who = factories.engineer(db, hired_on=D(2024, 3, 15))
    fdl = factories.course(db, "FDL")
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, logged_on, hours(1), TODAY),
        "logged_on",
        fragment,
    )


@pytest.mark.parametrize("logged_on", [D(2024, 3, 15), TODAY])
def test_log_hours_accepts_the_hire_date_and_today(db, logged_on):
    who = factories.engineer(db, hired_on=D(2024, 3, 15))
    entry = log_hours(db, who, factories.course(db, "FDL"), logged_on, hours(1), TODAY)
    assert entry.logged_on == logged_on


def test_log_hours_refuses_a_note_too_long(db):
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2026, 1, 5), hours(1), TODAY, note="x" * 501),
        "note",
        "500",
    )
    entry = log_hours(db, who, fdl, D(2026, 1, 5), hours(1), TODAY, note="x" * 500)
    assert entry.note == "x" * 500


def test_log_hours_reports_every_field_at_once(db):
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    error = assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2027, 1, 5), hours(0), TODAY, note="x" * 501),
        "hours",
    )
    assert set(error.errors) == {"hours", "logged_on", "note"}


@pytest.mark.parametrize("value", ["1.25", "0.01", "7.5", "23.99", "1.250"])
def test_log_hours_stores_decimals_exactly(db, value):
    """Hours are kept exactly (hundredths), never as floats that drift."""
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    entry = log_hours(db, who, fdl, D(2026, 1, 5), hours(value), TODAY, note=" evening ")
    db.expire_all()
    stored = db.scalar(select(HourLog.hours).where(HourLog.id == entry.id))
    assert isinstance(stored, Decimal)
    assert stored == Decimal(value)
    assert entry.hours == Decimal(value)
    assert entry.note == "evening"
    assert logged_hours(db, who.id) == {fdl.id: Decimal(value)}


def test_log_hours_stores_1_25_as_decimal_1_25(db):
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    entry = log_hours(db, who, fdl, D(2026, 1, 5), Decimal("1.25"), TODAY)
    db.expire_all()
    assert repr(entry.hours) == "Decimal('1.25')"
    # sums stay exact too: 0.1 + 0.2 is 0.3, not 0.30000000000000004
    log_hours(db, who, fdl, D(2026, 1, 6), Decimal("0.1"), TODAY)
    log_hours(db, who, fdl, D(2026, 1, 7), Decimal("0.2"), TODAY)
    assert logged_hours(db, who.id) == {fdl.id: Decimal("1.55")}


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
