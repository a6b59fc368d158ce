"""Planning an exam on the exams page, what a plan foresees, and cancelling it."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from tests import factories
from tests.progress.helpers import (
    TODAY,
    YESTERDAY,
    D,
    assert_page_refused,
    attempt_form,
    counts,
    page,
    plan_form,
)
from tracker.progress.models import ExamPlan

pytestmark = pytest.mark.usefixtures("pinned_today")


def test_planning_ncp_aii_when_eligible_then(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2026, 6, 1), D(2028, 6, 1))
    auth.sign_in(alice)

    response = client.post("/exams/plan", data=plan_form(db), follow_redirects=True)

    assert response.status_code == 200
    view = page(response)
    assert "NCP-AII planned on 2027-03-01: you will be eligible." in view.flashes
    # The date is a <time> element: the page's text has a space where the element ends.
    eligible = r"NCP-AII on Mar 1, 2027 ?: eligible then"
    assert re.search(eligible, view.text)
    plan = db.scalars(select(ExamPlan).where(ExamPlan.engineer_id == alice.id)).one()
    assert plan.planned_on == D(2027, 3, 1)
    assert re.search(eligible, page(client.get("/dashboard")).text)


def test_an_engineer_cancels_a_planned_exam_from_either_page(db, client, auth, alice, bob):
    auth.sign_in(alice)
    client.post("/exams/plan", data=plan_form(db))
    client.post("/exams/plan", data=plan_form(db, "NCA-AIIO", "2027-02-01"))
    first, second = db.scalars(
        select(ExamPlan).where(ExamPlan.engineer_id == alice.id).order_by(ExamPlan.planned_on)
    ).all()
    assert f'href="/exams/plans/{first.id}/cancel"' in client.get("/exams").text

    response = client.post(f"/exams/plans/{first.id}/cancel", follow_redirects=True)
    assert response.request.path == "/exams"
    assert "NCA-AIIO on 2027-02-01 is no longer planned." in page(response).flashes
    db.refresh(first)
    db.refresh(second)
    assert first.cancelled_at is not None and second.cancelled_at is None
    assert f"/exams/plans/{first.id}/cancel" not in response.text
    # From the dashboard, back to the dashboard.
    response = client.post(f"/exams/plans/{second.id}/cancel", data={"back": "dashboard"})
    assert response.headers["Location"] == "/dashboard"
    assert "Planned exams" not in client.get("/dashboard").text
    # Nobody cancels another's plan, nor one twice.
    client.post("/logout")
    auth.sign_in(bob)
    client.post("/exams/plan", data=plan_form(db))
    theirs = db.scalars(select(ExamPlan).where(ExamPlan.engineer_id == bob.id)).one()
    client.post("/logout")
    auth.sign_in(alice)
    assert client.post(f"/exams/plans/{theirs.id}/cancel").status_code == 404
    assert client.post(f"/exams/plans/{first.id}/cancel").status_code == 404
    db.refresh(theirs)
    assert theirs.cancelled_at is None


def test_planning_ncp_aii_without_nca_aiio_says_not_eligible(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post("/exams/plan", data=plan_form(db), follow_redirects=True)

    assert response.status_code == 200
    view = page(response)
    assert "NCP-AII planned on 2027-03-01: you will not be eligible." in view.flashes
    assert "not eligible then (NCP-AII requires a valid NCA-AIIO" in view.text


def test_planning_ncp_aii_warns_when_nca_aiio_expires_before_the_date(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2025, 2, 1), D(2027, 2, 1))
    auth.sign_in(alice)

    response = client.post("/exams/plan", data=plan_form(db), follow_redirects=True)

    assert response.status_code == 200
    view = page(response)
    assert "NCP-AII planned on 2027-03-01: you will not be eligible." in view.flashes
    assert (
        "NCA-AIIO is valid only through 2027-02-01, before the planned date 2027-03-01: "
        "renew it first" in view.text
    )
    dashboard = page(client.get("/dashboard"))
    assert "valid only through 2027-02-01, before the planned date 2027-03-01" in dashboard.text


def test_planning_before_the_expiry_gives_no_warning(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2025, 2, 1), D(2027, 2, 1))
    auth.sign_in(alice)

    response = client.post(
        "/exams/plan", data=plan_form(db, on="2027-02-01"), follow_redirects=True
    )

    view = page(response)
    assert "NCP-AII planned on 2027-02-01: you will be eligible." in view.flashes
    assert "before the planned date" not in view.text


def test_a_new_plan_replaces_the_old_one_for_the_same_exam(db, client, auth, alice):
    auth.sign_in(alice)
    client.post("/exams/plan", data=plan_form(db, "NCA-AIIO", "2027-01-10"))

    client.post("/exams/plan", data=plan_form(db, "NCA-AIIO", "2027-02-10"))

    view = page(client.get("/exams"))
    assert "NCA-AIIO on Feb 10, 2027" in view.text
    assert "NCA-AIIO on Jan 10, 2027" not in view.text


def test_planning_a_retake_inside_the_waiting_period_says_when_it_opens(db, client, auth, alice):
    auth.sign_in(alice)
    client.post("/exams", data=attempt_form(db, alice, score="40", passed=None))

    response = client.post(
        "/exams/plan", data=plan_form(db, "NCA-AIIO", "2026-12-05"), follow_redirects=True
    )

    view = page(response)
    assert "NCA-AIIO planned on 2026-12-05: you will not be eligible." in view.flashes
    assert "not eligible then (a retake of NCA-AIIO opens on 2026-12-12)" in view.text


@pytest.mark.parametrize(
    ("on", "message"),
    [
        (TODAY.isoformat(), "after today"),
        (YESTERDAY.isoformat(), "after today"),
        ("2020-01-01", "after today"),
        ("", ""),
        ("not-a-date", ""),
    ],
)
def test_planning_today_or_in_the_past_is_refused(db, client, auth, alice, on, message):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/exams/plan", data=plan_form(db, on=on))

    assert_page_refused(response, "plan-planned_on", message)
    assert counts(db) == before


def test_planning_an_unknown_exam_is_refused(db, client, auth, alice):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post(
        "/exams/plan", data={"plan-exam": "999999", "plan-planned_on": "2027-03-01"}
    )

    assert_page_refused(response, "plan-exam", "")
    assert counts(db) == before
