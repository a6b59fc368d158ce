"""The dashboard and an engineer's progress page: bars, next steps, certifications, who sees it."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, token_for
from tests.progress.helpers import TODAY, YESTERDAY, D, log, page
from tracker.catalog.services.reads import paths_with_courses
from tracker.people.models import Engineer

pytestmark = pytest.mark.usefixtures("pinned_today")


def complete(db: Session, who: Engineer, *codes: str) -> None:
    """Log every course in `codes` to its required hours, one course a day."""
    for n, code in enumerate(codes):
        course = factories.course(db, code)
        remaining = course.hours
        day = YESTERDAY - dt.timedelta(days=10 * n)
        while remaining > 0:
            chunk = min(remaining, Decimal(20))
            log(db, who, code, chunk, day)
            remaining -= chunk
            day -= dt.timedelta(days=1)


FOUNDATIONS = ("FDL", "INTRO-AI-INFRA", "GPU-ARCH")
PROFESSIONAL = ("MULTI-GPU", "IB-NET", "AI-STORAGE", "CLUSTER-MGMT")


def test_dashboard_has_one_bar_per_path_and_per_course(db, client, auth, alice):
    log(db, alice, "FDL", 10, YESTERDAY)
    auth.sign_in(alice)

    response = client.get("/dashboard")

    assert response.status_code == 200
    view = page(response)
    expected_ids = set()
    for path in paths_with_courses(db):
        expected_ids.add(f"path-{path.code}")
        expected_ids |= {f"course-{path.code}-{c.code}" for c in path.courses}
    assert set(view.progress) == expected_ids
    assert view.progress_count == len(expected_ids)  # one bar each, no duplicates
    # 10 h on an 8-hour course count 8: the course is full and the path has 8 of 48.
    assert view.progress["course-FOUNDATIONS-FDL"] == (8, 8)
    assert view.progress["course-FOUNDATIONS-INTRO-AI-INFRA"] == (0, 16)
    assert view.progress["course-FOUNDATIONS-GPU-ARCH"] == (0, 24)
    assert view.progress["path-FOUNDATIONS"] == (8, 48)
    assert view.progress["path-PROFESSIONAL"] == (0, 136)
    for code, required in zip(PROFESSIONAL, (40, 32, 24, 40), strict=True):
        assert view.progress[f"course-PROFESSIONAL-{code}"] == (0, required)
    assert "8 / 48 h" in view.text
    # The hours logged show beside what counts, as the API's logged_hours and counted_hours.
    assert "10 h logged, 8 of 8 h required" in view.text
    assert "0 / 16 h" in view.text


def test_a_course_logged_past_its_hours_shows_what_was_logged_as_the_api_does(
    db, client, auth, alice
):
    log(db, alice, "FDL", "8.5")
    auth.sign_in(alice)
    view = page(client.get("/dashboard"))
    assert view.progress["course-FOUNDATIONS-FDL"] == (8, 8)
    assert "8.5 h logged, 8 of 8 h required" in view.text
    answer = Api(client).get(f"/api/v1/engineers/{alice.id}/progress", token_for(db, alice))
    (fdl,) = [c for p in answer.json["paths"] for c in p["courses"] if c["code"] == "FDL"]
    assert (fdl["logged_hours"], fdl["counted_hours"], fdl["required_hours"]) == (8.5, 8, 8)


def test_dashboard_next_step_names_the_course_to_study(db, client, auth, alice):
    log(db, alice, "FDL", 10)
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    assert view.next_steps == [
        "Study Introduction to AI Infrastructure (Foundations path): 0 of 16 h logged"
    ]


def test_dashboard_next_step_for_a_newcomer_is_the_first_course(client, auth, alice):
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    assert view.next_steps == [
        "Study Fundamentals of Deep Learning (Foundations path): 0 of 8 h logged"
    ]


def test_dashboard_says_nca_aiio_is_open_when_foundations_courses_are_complete(
    db, client, auth, alice
):
    complete(db, alice, *FOUNDATIONS)
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    assert view.progress["path-FOUNDATIONS"] == (48, 48)
    assert view.next_steps == ["Exam NCA-AIIO is open to you: every Foundations course is complete"]
    assert "Ready for NCA-AIIO" in view.text


def test_dashboard_professional_path_names_missing_nca_aiio(db, client, auth, alice):
    complete(db, alice, *PROFESSIONAL)
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    assert view.progress["path-PROFESSIONAL"] == (136, 136)
    # The Professional path's card: not ready, naming the missing prerequisite.
    assert "Not ready for NCP-AII:" in view.text
    assert (
        "NCP-AII requires a valid NCA-AIIO "
        "(NVIDIA Certified Associate - AI Infrastructure and Operations)" in view.text
    )


def test_dashboard_next_step_says_ncp_aii_is_blocked_and_why(db, client, auth):
    # NCA-AIIO held, Professional courses complete, but only 5 months of experience.
    junior = factories.engineer(db, hired_on=D(2026, 6, 1))
    factories.certification(db, junior, "NCA-AIIO", D(2026, 7, 1), D(2028, 7, 1))
    complete(db, junior, *PROFESSIONAL)
    auth.sign_in(junior)

    view = page(client.get("/dashboard"))

    assert view.next_steps == [
        "Exam NCP-AII is blocked: NCP-AII requires 12 months of documented experience; "
        "5 on 2026-11-29"
    ]
    assert "Certified NCA-AIIO, valid through Jul 1, 2028" in view.text


def test_dashboard_next_step_says_ncp_aii_is_open_when_ready(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2026, 7, 1), D(2028, 7, 1))
    complete(db, alice, *PROFESSIONAL)
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    assert view.next_steps == ["Exam NCP-AII is open to you: every Professional course is complete"]


def test_dashboard_says_a_lapsed_nca_aiio_must_be_taken_again(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2024, 10, 1), D(2026, 10, 1))
    complete(db, alice, *FOUNDATIONS, *PROFESSIONAL)
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    assert view.next_steps == [
        "NCA-AIIO was valid through 2026-10-01: take it again",
        "Exam NCA-AIIO is open to you: every Foundations course is complete",
    ]
    assert "NCP-AII requires a valid NCA-AIIO; it was valid through 2026-10-01" in view.text
    assert next(r for r in view.rows if "(NCA-AIIO)" in r).endswith("expired · 59 days ago")


def test_dashboard_lists_certifications_with_state_and_days_left(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2025, 6, 1), D(2027, 6, 1))
    factories.certification(db, alice, "CKA", D(2024, 1, 15), D(2027, 1, 15))
    factories.certification(db, alice, "RHCE", D(2023, 11, 1), D(2026, 11, 1))
    factories.certification(db, alice, "COMPTIA-LINUX-PLUS", D(2022, 5, 5))
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    def row(code: str) -> str:
        return next(r for r in view.rows if f"({code})" in r)

    # 2027-06-01 - 2026-11-29 = 184 days; 2027-01-15: 47 days; 2026-11-01: 28 days ago.
    assert "Jun 1, 2027" in row("NCA-AIIO")
    assert row("NCA-AIIO").endswith("valid · 184 days left")
    assert row("CKA").endswith("expiring · 47 days left")
    assert row("RHCE").endswith("expired · 28 days ago")
    assert row("COMPTIA-LINUX-PLUS").endswith("does not expire ✔ valid")
    # A name that carries its code is not followed by it again.
    assert row("CKA").startswith("Certified Kubernetes Administrator (CKA) Jan 15, 2024")
    assert row("COMPTIA-LINUX-PLUS").startswith("CompTIA Linux+ (COMPTIA-LINUX-PLUS) May")
    # The expiring one is also a next step.
    assert "Renew CKA: it is valid through 2027-01-15, 47 days from today" in view.next_steps


def test_dashboard_counts_the_expiry_day_as_valid(db, client, auth, alice):
    factories.certification(db, alice, "CKA", D(2024, 11, 29), TODAY)
    factories.certification(db, alice, "RHCE", D(2023, 11, 28), YESTERDAY)
    auth.sign_in(alice)

    view = page(client.get("/dashboard"))

    assert next(r for r in view.rows if "(CKA)" in r).endswith("expiring · 0 days left")
    assert next(r for r in view.rows if "(RHCE)" in r).endswith("expired · 1 day ago")


def test_manager_sees_their_reports_page(db, client, auth, boss, report):
    log(db, report, "FDL", 3)
    factories.certification(db, report, "NCA-AIIO", D(2025, 6, 1), D(2027, 6, 1))
    auth.sign_in(boss)

    response = client.get(f"/engineers/{report.id}")

    assert response.status_code == 200
    view = page(response)
    assert "Rita Report" in view.text
    assert view.progress["course-FOUNDATIONS-FDL"] == (3, 8)
    assert any("(NCA-AIIO)" in r and "valid · 184 days left" in r for r in view.rows)


def test_manager_sees_a_member_of_a_team_they_manage(db, client, auth, boss):
    crew = factories.team(db, manager=boss)
    member = factories.engineer(db, name="Tom Teammate", team=crew)
    auth.sign_in(boss)

    response = client.get(f"/engineers/{member.id}")

    assert response.status_code == 200
    assert "Tom Teammate" in page(response).text


PEOPLE_PAGES = {
    "boss": [
        "/teams/{team}",
        "/teams/{team}?print=1",
        "/careers/teams/{team}/skills",
        "/careers/engineers/{member}",
    ],
    "admin": [
        "/teams/{team}",
        "/careers/teams/{team}/skills",
        "/careers/engineers/{member}",
        "/admin/people",
    ],
}


@pytest.mark.parametrize(
    ("who", "url"), [(who, url) for who, urls in PEOPLE_PAGES.items() for url in urls]
)
def test_pages_showing_people_link_their_progress_pages(
    request, db, client, auth, boss, admin, who, url
):
    """A manager's and an admin's pages of people link each one's progress page,
    and every such link opens for the one who sees it."""
    crew = factories.team(db, gpus=50, name="Crew", manager=boss)
    member = factories.engineer(db, name="Tom Teammate", team=crew)
    auth.sign_in(request.getfixturevalue(who))

    response = client.get(url.format(team=crew.id, member=member.id))

    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f'href="/engineers/{member.id}"' in html
    for linked in sorted(set(re.findall(r'href="(/engineers/\d+)"', html))):
        assert client.get(linked).status_code == 200, linked


def test_an_engineers_own_career_page_does_not_link_to_a_progress_page(client, auth, alice):
    """Their own progress is the dashboard, one click away in the menu."""
    auth.sign_in(alice)
    html = client.get(f"/careers/engineers/{alice.id}").get_data(as_text=True)
    assert f'href="/engineers/{alice.id}"' not in html


def test_engineer_sees_their_own_page_by_id(client, auth, alice):
    auth.sign_in(alice)

    response = client.get(f"/engineers/{alice.id}")

    assert response.status_code == 200
    assert "Your progress" in page(response).text


def test_admin_sees_anyones_page(client, auth, admin, alice):
    auth.sign_in(admin)

    assert client.get(f"/engineers/{alice.id}").status_code == 200


def test_another_engineer_gets_403_on_a_page(client, auth, alice, bob):
    auth.sign_in(bob)

    assert client.get(f"/engineers/{alice.id}").status_code == 403


def test_a_manager_gets_403_on_someone_elses_report(db, client, auth, report):
    other_boss = factories.engineer(db, access_role="manager")
    auth.sign_in(other_boss)

    assert client.get(f"/engineers/{report.id}").status_code == 403


def test_unknown_engineer_is_404(client, auth, alice):
    auth.sign_in(alice)

    assert client.get("/engineers/999999").status_code == 404
