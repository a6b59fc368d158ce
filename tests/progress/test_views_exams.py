"""The exams page: recording attempts, the certification a pass earns, and the refusals."""

from __future__ import annotations

import re
from html import unescape

import pytest
from sqlalchemy import select

from tests import factories
from tests.helpers import count
from tests.progress.helpers import (
    TODAY,
    YESTERDAY,
    D,
    assert_page_refused,
    attempt_form,
    counts,
    page,
)
from tracker.progress.models import Certification, ExamAttempt
from tracker.progress.services.certifications import record_attempt

pytestmark = pytest.mark.usefixtures("pinned_today")


def options(html: str, select_id: str) -> dict[int, str]:
    """Return the choices of the <select> with `select_id`: value -> label."""
    match = re.search(rf'<select[^>]*\bid="{select_id}"[^>]*>(.*?)</select>', html, re.DOTALL)
    assert match, f"no select {select_id}"
    found = re.findall(r'<option[^>]*value="(-?\d+)"[^>]*>(.*?)</option>', match[1])
    return {int(value): unescape(label) for value, label in found}


def test_a_passed_nca_aiio_creates_the_certification_with_its_expiry(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post(
        "/exams",
        data=attempt_form(
            db,
            alice,
            cost="125.50",
            voucher_code="NV-VOUCHER-7",
            proctoring="online, remotely proctored",
            note="first try",
        ),
    )

    assert response.status_code == 302
    assert response.headers["Location"] == "/exams"
    cert = db.scalars(select(Certification).where(Certification.engineer_id == alice.id)).one()
    assert (cert.earned_on, cert.expires_on) == (YESTERDAY, D(2028, 11, 28))
    attempt = db.scalars(select(ExamAttempt).where(ExamAttempt.engineer_id == alice.id)).one()
    assert attempt.passed is True
    assert attempt.score == 82
    assert attempt.recorded_by_id == alice.id
    assert cert.attempt_id == attempt.id

    exams = page(client.get("/exams"))
    assert "NCA-AIIO passed: certified, valid through 2028-11-28." in exams.flashes
    ledger_row = next(r for r in exams.rows if r.startswith("Nov 28, 2026 NCA-AIIO"))
    assert "82%" in ledger_row
    assert "passed" in ledger_row
    assert "125.50" in ledger_row
    assert "NV-VOUCHER-7" in ledger_row
    assert "online, remotely proctored" in ledger_row

    dashboard = page(client.get("/dashboard"))
    assert "Certified NCA-AIIO, valid through Nov 28, 2028" in dashboard.text
    row = next(r for r in dashboard.rows if "(NCA-AIIO)" in r)
    # 2028-11-28 - 2026-11-29 = 730 days
    assert row.endswith("Nov 28, 2026 Nov 28, 2028 ✔ valid · 730 days left")


def test_a_pass_on_29_february_expires_on_28_february(db, client, auth):
    veteran = factories.engineer(db, hired_on=D(2020, 1, 1))
    auth.sign_in(veteran)

    response = client.post(
        "/exams", data=attempt_form(db, veteran, attempted_on="2024-02-29"), follow_redirects=True
    )

    assert response.status_code == 200
    assert "NCA-AIIO passed: certified, valid through 2026-02-28." in page(response).flashes


def test_passing_again_renews_and_the_newest_counts(db, client, auth, alice):
    record_attempt(db, alice, factories.exam(db, "NCA-AIIO"), D(2025, 1, 10), 80, True, TODAY)
    auth.sign_in(alice)
    before = page(client.get("/dashboard"))
    assert "Renew NCA-AIIO: it is valid through 2027-01-10, 42 days from today" in before.next_steps

    response = client.post("/exams", data=attempt_form(db, alice), follow_redirects=True)

    assert "NCA-AIIO passed: certified, valid through 2028-11-28." in page(response).flashes
    after = page(client.get("/dashboard"))
    rows = [r for r in after.rows if "(NCA-AIIO)" in r]
    assert len(rows) == 1
    assert rows[0].endswith("Nov 28, 2026 Nov 28, 2028 ✔ valid · 730 days left")
    assert not any(step.startswith("Renew NCA-AIIO") for step in after.next_steps)
    held = page(client.get("/credentials")).rows
    assert any("Jan 10, 2025 Jan 10, 2027" in r and "(renewed)" in r for r in held)
    assert any("Nov 28, 2026 Nov 28, 2028" in r and "(renewed)" not in r for r in held)


def test_a_failed_attempt_creates_no_certification(db, client, auth, alice):
    auth.sign_in(alice)
    before = count(db, Certification)

    response = client.post(
        "/exams", data=attempt_form(db, alice, score="55", passed=None), follow_redirects=True
    )

    assert response.status_code == 200
    view = page(response)
    assert "NCA-AIIO attempt recorded (not passed)." in view.flashes
    assert count(db, Certification) == before
    attempt = db.scalars(select(ExamAttempt).where(ExamAttempt.engineer_id == alice.id)).one()
    assert attempt.passed is False
    assert any(r.startswith("Nov 28, 2026 NCA-AIIO 55%") and "not passed" in r for r in view.rows)


def test_ncp_aii_without_nca_aiio_is_refused_naming_it(db, client, auth, alice):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, alice, "NCP-AII"))

    view = assert_page_refused(response, "exam", "NCP-AII requires a valid NCA-AIIO")
    assert counts(db) == before
    assert "NCA-AIIO" in " ".join(view.errors["exam"])


def test_ncp_aii_with_an_expired_nca_aiio_is_refused_with_the_date(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2024, 10, 1), D(2026, 10, 1))
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, alice, "NCP-AII"))

    assert_page_refused(
        response, "exam", "NCP-AII requires a valid NCA-AIIO; it was valid through 2026-10-01"
    )
    assert counts(db) == before


def test_ncp_aii_without_enough_experience_is_refused(db, client, auth):
    newcomer = factories.engineer(db, hired_on=D(2026, 11, 1), experience_months=11)
    factories.certification(db, newcomer, "NCA-AIIO", D(2026, 11, 10), D(2028, 11, 10))
    auth.sign_in(newcomer)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, newcomer, "NCP-AII"))

    assert_page_refused(
        response,
        "exam",
        "NCP-AII requires 12 months of documented experience; 11 on 2026-11-28",
    )
    assert counts(db) == before


def test_ncp_aii_with_valid_nca_aiio_and_12_months_is_accepted(db, client, auth):
    newcomer = factories.engineer(db, hired_on=D(2026, 11, 1), experience_months=12)
    factories.certification(db, newcomer, "NCA-AIIO", D(2026, 11, 10), D(2028, 11, 10))
    auth.sign_in(newcomer)

    response = client.post(
        "/exams", data=attempt_form(db, newcomer, "NCP-AII"), follow_redirects=True
    )

    assert response.status_code == 200
    assert "NCP-AII passed: certified, valid through 2028-11-28." in page(response).flashes
    held = db.scalars(
        select(Certification).where(
            Certification.engineer_id == newcomer.id,
            Certification.credential_id == factories.credential(db, "NCP-AII").id,
        )
    ).one()
    assert held.expires_on == D(2028, 11, 28)


def test_a_retake_inside_14_days_is_refused_with_the_date_it_opens(db, client, auth, alice):
    auth.sign_in(alice)
    first = client.post(
        "/exams", data=attempt_form(db, alice, attempted_on="2026-11-20", score="40", passed=None)
    )
    assert first.status_code == 302
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, alice, attempted_on="2026-11-28"))

    assert_page_refused(response, "attempted_on", "a retake of NCA-AIIO opens on 2026-12-04")
    assert counts(db) == before


def test_a_retake_on_the_day_it_opens_is_accepted(db, client, auth, alice):
    auth.sign_in(alice)
    client.post(
        "/exams", data=attempt_form(db, alice, attempted_on="2026-11-14", score="40", passed=None)
    )

    response = client.post("/exams", data=attempt_form(db, alice, attempted_on="2026-11-28"))

    assert response.status_code == 302
    assert count(db, ExamAttempt) >= 2


BAD_ATTEMPTS = [
    pytest.param({"score": "101"}, "score", "0 to 100", id="score-101"),
    pytest.param({"score": "-1"}, "score", "0 to 100", id="score-negative"),
    pytest.param({"score": "abc"}, "score", "", id="score-not-a-number"),
    pytest.param({"score": None}, "score", "", id="score-missing"),
    pytest.param({"attempted_on": "2026-11-30"}, "attempted_on", "future", id="future-date"),
    pytest.param(
        {"attempted_on": "2020-12-31"}, "attempted_on", "hire date 2021-01-01", id="pre-hire"
    ),
    pytest.param({"exam": "999999"}, "exam", "", id="unknown-exam"),
    pytest.param({"cost": "-5"}, "cost", "at least 0", id="negative-cost"),
    pytest.param({"cost": "NaN"}, "cost", "", id="nan-cost"),
    pytest.param({"cost": "ten"}, "cost", "", id="cost-not-a-number"),
    pytest.param({"note": "n" * 501}, "note", "500", id="note-too-long"),
    pytest.param({"voucher_code": "v" * 81}, "voucher_code", "80", id="voucher-too-long"),
]


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_ATTEMPTS)
def test_bad_attempts_are_refused_next_to_the_field(
    db, client, auth, alice, overrides, field, message
):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, alice, **overrides))

    assert_page_refused(response, field, message)
    assert counts(db) == before


@pytest.mark.parametrize("value", ["1.005", "Infinity", "1e400", "sNaN"])
def test_a_cost_the_ledger_cannot_hold_is_refused(db, client, auth, alice, value):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, alice, cost=value))

    assert_page_refused(response, "cost", "")
    assert counts(db) == before


def test_a_manager_records_an_attempt_for_their_report(db, client, auth, boss, report):
    auth.sign_in(boss)

    response = client.post("/exams", data=attempt_form(db, report), follow_redirects=True)

    assert response.status_code == 200
    # Whose it is, since it is not the reader's own.
    assert (
        "For Rita Report: NCA-AIIO passed: certified, valid through 2028-11-28."
        in page(response).flashes
    )
    attempt = db.scalars(select(ExamAttempt).where(ExamAttempt.engineer_id == report.id)).one()
    assert attempt.recorded_by_id == boss.id
    cert = db.scalars(select(Certification).where(Certification.engineer_id == report.id)).one()
    assert cert.expires_on == D(2028, 11, 28)
    # The report sees it on their page.
    view = page(client.get(f"/engineers/{report.id}"))
    assert "Certified NCA-AIIO, valid through Nov 28, 2028" in view.text


def test_the_attempt_form_offers_a_manager_their_reports_only(db, client, auth, boss, report, bob):
    auth.sign_in(boss)

    html = client.get("/exams").get_data(as_text=True)

    assert options(html, "engineer") == {boss.id: "Maria Manager", report.id: "Rita Report"}
    assert bob.id not in options(html, "engineer")


def test_a_manager_cannot_record_for_someone_elses_report(db, client, auth, boss):
    stranger = factories.engineer(db, manager=factories.engineer(db, access_role="manager"))
    auth.sign_in(boss)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, stranger))

    # Not among the choices (400, message at the field) or forbidden (403).
    assert response.status_code in (400, 403)
    if response.status_code == 400:
        assert "engineer" in page(response).errors
    assert counts(db) == before


@pytest.mark.parametrize("target", ["bob", "unknown"])
def test_an_engineer_cannot_record_for_someone_else(db, client, auth, alice, bob, target):
    auth.sign_in(alice)
    before = counts(db)
    engineer_id = bob.id if target == "bob" else 999999

    response = client.post("/exams", data=attempt_form(db, alice, engineer=engineer_id))

    assert response.status_code in (400, 403)
    if response.status_code == 400:
        assert "engineer" in page(response).errors
    assert counts(db) == before


def test_the_ledger_shows_only_own_attempts(db, client, auth, alice, bob):
    record_attempt(
        db, bob, factories.exam(db, "NCA-AIIO"), YESTERDAY, 90, True, TODAY, voucher_code="BOBV"
    )
    auth.sign_in(alice)

    view = page(client.get("/exams"))

    assert "BOBV" not in view.text
    assert "No attempts yet." in view.text
