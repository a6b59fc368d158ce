"""Recording exam attempts (services.certifications): prerequisites, retakes, renewal chains."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from tests import factories
from tests.helpers import count
from tests.progress.helpers import TODAY, D, assert_refused
from tracker.progress.models import Certification
from tracker.progress.services.certifications import (
    certifications_of,
    record_attempt,
    record_credential,
)
from tracker.progress.services.validity import holding, is_valid_on, newest_per_credential


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
