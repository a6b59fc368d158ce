"""The engineer's web pages (tracker.progress.views), driven through the test client.

docs/domain.md sections 2-3. Today is pinned to
factories.TODAY (2026-11-29) through app.config["TODAY"]; forms post without
CSRF tokens (the app fixture turns CSRF off), except in the CSRF tests at the end.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from html import unescape
from html.parser import HTMLParser

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import hours
from tests.helpers import Api, count, token_for
from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Credential
from tracker.catalog.services.reads import paths_with_courses
from tracker.people.models import Engineer
from tracker.progress.models import Certification, ExamAttempt, ExamPlan, HourLog
from tracker.progress.rules import HOUR_LOG_PAGE_SIZE
from tracker.progress.services.certifications import credential_for_entry, record_attempt
from tracker.progress.services.hours import log_hours

TODAY = factories.TODAY  # 2026-11-29
YESTERDAY = TODAY - dt.timedelta(days=1)  # 2026-11-28
D = dt.date
SCRIPT = "<script>alert(1)</script>"
SQL = "'; DROP TABLE hour_logs; --"


# --- fixtures -------------------------------------------------------------------


pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def alice(db: Session) -> Engineer:
    return factories.engineer(db, name="Alice Ops")


@pytest.fixture
def bob(db: Session) -> Engineer:
    return factories.engineer(db, name="Bob Other")


@pytest.fixture
def boss(db: Session) -> Engineer:
    return factories.engineer(db, name="Maria Manager", access_role="manager")


@pytest.fixture
def report(db: Session, boss: Engineer) -> Engineer:
    return factories.engineer(db, name="Rita Report", manager=boss)


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(db, name="Ada Admin", access_role="admin")


# --- helpers --------------------------------------------------------------------


class Page(HTMLParser):
    """Collect what the tests look at: progress bars, field errors, table rows, text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.progress: dict[str, tuple[Decimal, Decimal]] = {}
        self.progress_count = 0
        self.errors: dict[str, list[str]] = {}
        self.rows: list[str] = []
        self.flashes: list[str] = []
        self.next_steps: list[str] = []
        self._error_for: str | None = None
        self._row: list[str] | None = None
        self._flash: list[str] | None = None
        self._step: list[str] | None = None
        self._in_next_steps = False
        self._chunks: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if tag == "progress":
            self.progress_count += 1
            self.progress[a["id"]] = (Decimal(a["value"]), Decimal(a["max"]))
        elif tag == "small" and "field-error" in classes:
            self._error_for = a["id"].removesuffix("-error")
            self.errors.setdefault(self._error_for, []).append("")
        elif tag == "tr":
            self._row = []
        elif tag == "article" and "flash" in classes:
            self._flash = []
        elif tag == "ul" and "next-steps" in classes:
            self._in_next_steps = True
        elif tag == "li" and self._in_next_steps:
            self._step = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "small" and self._error_for is not None:
            self._error_for = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(_squash(" ".join(self._row)))
            self._row = None
        elif tag == "article" and self._flash is not None:
            self.flashes.append(_squash(" ".join(self._flash)))
            self._flash = None
        elif tag == "li" and self._step is not None:
            self.next_steps.append(_squash(" ".join(self._step)))
            self._step = None
        elif tag == "ul" and self._in_next_steps:
            self._in_next_steps = False

    def handle_data(self, data: str) -> None:
        self._chunks.append(data)
        if self._error_for is not None:
            self.errors[self._error_for][-1] += data
        for bucket in (self._row, self._flash, self._step):
            if bucket is not None:
                bucket.append(data)

    @property
    def text(self) -> str:
        return _squash(" ".join(self._chunks))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def options(html: str, select_id: str) -> dict[int, str]:
    """Return the choices of the <select> with `select_id`: value -> label."""
    match = re.search(rf'<select[^>]*\bid="{select_id}"[^>]*>(.*?)</select>', html, re.DOTALL)
    assert match, f"no select {select_id}"
    found = re.findall(r'<option[^>]*value="(-?\d+)"[^>]*>(.*?)</option>', match[1])
    return {int(value): unescape(label) for value, label in found}


def page(response) -> Page:
    return Page(response.get_data(as_text=True))


def counts(db: Session) -> dict[str, int]:
    """Rows in every table a page of this feature writes to."""
    return {
        model.__name__: count(db, model)
        for model in (HourLog, AuditEvent, ExamAttempt, Certification, ExamPlan, Credential)
    }


def log(db: Session, who: Engineer, code: str, amount: str | int, on: dt.date = YESTERDAY):
    """Log hours through the service, for setting up a scene."""
    return log_hours(
        db, who, factories.course(db, code), on, hours(amount), TODAY, note="", actor=who
    )


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


def hours_form(db: Session, **overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "course": factories.course(db, "FDL").id,
        "logged_on": YESTERDAY.isoformat(),
        "hours": "2.5",
        "note": "lab",
    }
    data.update(overrides)
    return data


def attempt_form(db: Session, who: Engineer, code: str = "NCA-AIIO", **overrides: object):
    data: dict[str, object] = {
        "engineer": who.id,
        "exam": factories.exam(db, code).id,
        "attempted_on": YESTERDAY.isoformat(),
        "score": "82",
        "passed": "y",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def credential_form(db: Session, who: Engineer, code: str | None = "CKA", **overrides: object):
    data: dict[str, object] = {
        "engineer": who.id,
        "credential": factories.credential(db, code).id if code else 0,
        "issued_on": "2026-10-01",
        "expires_on": "2029-10-01",
        "evidence": "LF-CKA-2026-0042",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


# === 1. dashboard ================================================================


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


@pytest.mark.parametrize(
    "url",
    ["/dashboard", "/engineers/1", "/hours", "/hours/1/edit", "/exams", "/credentials"],
)
def test_anonymous_is_redirected_to_login(client, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")


@pytest.mark.parametrize(
    "url",
    ["/hours", "/hours/1/edit", "/hours/1/delete", "/exams", "/exams/plan", "/credentials"],
)
def test_anonymous_posts_are_redirected_and_store_nothing(db, client, url):
    before = counts(db)

    response = client.post(url, data={"hours": "1"})

    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")
    assert counts(db) == before


# === 2. hours ====================================================================


def chosen_course(html: str) -> list[str]:
    """Return the text of the course select's chosen options."""
    select_ = re.search(r'<select[^>]*name="course".*?</select>', html, re.S)
    assert select_ is not None
    return [
        unescape(label)
        for attrs, label in re.findall(r"<option([^>]*)>([^<]*)</option>", select_.group(0))
        if re.search(r"\bselected\b", attrs)
    ]


def test_the_hours_form_opens_on_the_course_of_the_newest_entry(db, client, auth, alice):
    """Not on the alphabetically first course (Cluster Management): on what the
    top entry of the list was logged on."""
    log(db, alice, "FDL", 2, on=D(2026, 11, 20))
    log(db, alice, "IB-NET", 1, on=D(2026, 11, 27))
    log(db, alice, "GPU-ARCH", 1, on=D(2026, 11, 10))  # logged later, about an earlier day
    auth.sign_in(alice)

    assert chosen_course(client.get("/hours").get_data(as_text=True)) == [
        "InfiniBand Networking for AI (IB-NET)"
    ]


def test_the_hours_form_opens_a_newcomer_on_the_first_course_of_their_path(client, auth, alice):
    auth.sign_in(alice)

    assert chosen_course(client.get("/hours").get_data(as_text=True)) == [
        "Fundamentals of Deep Learning (FDL)"
    ]


def test_the_hours_form_opens_past_a_path_whose_exam_is_held(db, client, auth, alice):
    """NCA-AIIO recorded, nothing logged: Alice is on the Professional path."""
    factories.certification(db, alice, "NCA-AIIO", D(2026, 1, 10), D(2028, 1, 10))
    auth.sign_in(alice)

    assert chosen_course(client.get("/hours").get_data(as_text=True)) == [
        "Multi-GPU Programming (MULTI-GPU)"
    ]


def test_a_refused_entry_keeps_the_course_it_was_for(db, client, auth, alice):
    log(db, alice, "FDL", 2)
    course = factories.course(db, "AI-STORAGE")
    auth.sign_in(alice)

    response = client.post(
        "/hours", data={"course": course.id, "logged_on": "2026-11-28", "hours": "0"}
    )

    assert response.status_code == 400
    assert chosen_course(response.get_data(as_text=True)) == ["Storage Systems for AI (AI-STORAGE)"]


def test_logging_hours_shows_the_entry_and_moves_the_bar(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="2.5", note="lab one"))

    assert response.status_code == 302
    assert response.headers["Location"] == "/hours"
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert (entry.hours, entry.logged_on, entry.note) == (Decimal("2.5"), YESTERDAY, "lab one")
    created = db.scalars(select(AuditEvent).where(AuditEvent.entity_id == entry.id)).one()
    assert (created.entity, created.action, created.actor_id) == ("hour_logs", "create", alice.id)

    listing = page(client.get("/hours"))
    assert "Logged 2.5 h on Fundamentals of Deep Learning." in listing.flashes
    assert any(
        r.startswith("Nov 28, 2026 Fundamentals of Deep Learning 2.5 lab one") for r in listing.rows
    )

    bars = page(client.get("/dashboard")).progress
    assert bars["course-FOUNDATIONS-FDL"] == (Decimal("2.5"), 8)
    assert bars["path-FOUNDATIONS"] == (Decimal("2.5"), 48)


def test_a_spanish_reader_logs_one_and_a_half_hours_as_they_write_it(db, client, auth, alice):
    # An English browser's number box would have sent "1,5" as 15.
    alice.locale = "es"
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="1,5"))

    assert response.status_code == 302
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert entry.hours == Decimal("1.5")
    edit = client.get(f"/hours/{entry.id}/edit").get_data(as_text=True)
    assert re.search(r'<input[^>]*id="hours"[^>]*value="1,5"', edit), edit


def test_hours_page_lists_only_the_signed_in_engineers_entries(db, client, auth, alice, bob):
    log(db, bob, "GPU-ARCH", 3)
    log(db, alice, "FDL", 1)
    auth.sign_in(alice)

    listing = page(client.get("/hours"))

    assert any("Fundamentals of Deep Learning" in r for r in listing.rows)
    assert not any("GPU Architecture Essentials" in r for r in listing.rows)


def test_the_hours_page_lists_every_entry_a_page_at_a_time(db, client, auth, alice):
    logged = HOUR_LOG_PAGE_SIZE + 3
    for n in range(logged):
        log(db, alice, "FDL", "0.5", on=YESTERDAY - dt.timedelta(days=n))
    auth.sign_in(alice)

    first = page(client.get("/hours"))
    entries = [row for row in first.rows if "Fundamentals of Deep Learning" in row]
    assert len(entries) == HOUR_LOG_PAGE_SIZE
    assert f"{logged} entries, {logged / 2} h in all." in first.text
    assert "Page 1 of 2" in first.text
    html = client.get("/hours").get_data(as_text=True)
    assert 'href="/hours?page=2" rel="next"' in html
    assert 'rel="prev"' not in html

    # The oldest three, on the second page; a page past the end shows the last.
    for url in ("/hours?page=2", "/hours?page=99"):
        last = page(client.get(url))
        oldest = [row for row in last.rows if "Fundamentals of Deep Learning" in row]
        assert len(oldest) == 3
        assert "Page 2 of 2" in last.text
        assert "← Newer" in last.text and "Older" not in last.text


def test_owner_edits_an_entry_and_the_history_shows_both_versions(db, client, auth, alice):
    auth.sign_in(alice)
    client.post("/hours", data=hours_form(db, hours="2.5", note="first take"))
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()

    response = client.post(
        f"/hours/{entry.id}/edit",
        data=hours_form(db, hours="4", note="second take", logged_on="2026-11-27"),
    )

    assert response.status_code == 302
    db.expire_all()
    stored = db.get(HourLog, entry.id)
    assert (stored.hours, stored.logged_on, stored.note) == (
        Decimal(4),
        D(2026, 11, 27),
        "second take",
    )
    assert page(client.get("/dashboard")).progress["course-FOUNDATIONS-FDL"] == (4, 8)
    edit = page(client.get(f"/hours/{entry.id}/edit"))
    history = [r for r in edit.rows if " create " in f" {r} " or " update " in f" {r} "]
    assert len(history) == 2
    created, updated = history
    assert re.search(r"create Nov 28, 2026 · 2\.5 h · first take$", created)
    assert re.search(
        r"update Nov 28, 2026 · 2\.5 h · first take Nov 27, 2026 · 4 h · second take$", updated
    )
    events = db.scalars(
        select(AuditEvent)
        .where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry.id)
        .order_by(AuditEvent.id)
    ).all()
    assert [e.action for e in events] == ["create", "update"]
    assert events[1].before["note"] == "first take"
    assert events[1].after["note"] == "second take"


def test_edit_page_shows_the_current_values(db, client, auth, alice):
    entry = log(db, alice, "GPU-ARCH", "3.25")
    auth.sign_in(alice)

    response = client.get(f"/hours/{entry.id}/edit")

    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'value="3.25"' in html
    assert 'value="2026-11-28"' in html
    assert re.search(rf'<option selected value="{entry.course_id}">', html)


def test_owner_deletes_an_entry_and_the_audit_trail_keeps_it(db, client, auth, alice):
    auth.sign_in(alice)
    client.post("/hours", data=hours_form(db, hours="3", note="to be deleted"))
    entry_id = db.scalars(select(HourLog.id).where(HourLog.engineer_id == alice.id)).one()

    response = client.post(f"/hours/{entry_id}/delete")

    assert response.status_code == 302
    assert db.scalar(select(func.count()).where(HourLog.engineer_id == alice.id)) == 0
    deleted = db.scalars(
        select(AuditEvent).where(
            AuditEvent.entity == "hour_logs",
            AuditEvent.entity_id == entry_id,
            AuditEvent.action == "delete",
        )
    ).one()
    assert deleted.actor_id == alice.id
    assert deleted.after is None
    assert deleted.before["note"] == "to be deleted"
    assert Decimal(deleted.before["hours"]) == 3
    assert deleted.before["logged_on"] == "2026-11-28"
    assert deleted.before["engineer_id"] == alice.id
    listing = page(client.get("/hours"))
    assert "Entry deleted." in listing.flashes
    assert "No hours logged yet." in listing.text
    assert page(client.get("/dashboard")).progress["course-FOUNDATIONS-FDL"] == (0, 8)


def test_admin_may_edit_someone_elses_entry(db, client, auth, admin, alice):
    entry = log(db, alice, "FDL", 2)
    auth.sign_in(admin)

    response = client.post(f"/hours/{entry.id}/edit", data=hours_form(db, hours="5"))

    assert response.status_code == 302
    db.expire_all()
    assert db.get(HourLog, entry.id).hours == 5
    update = db.scalars(
        select(AuditEvent).where(AuditEvent.entity_id == entry.id, AuditEvent.action == "update")
    ).one()
    assert update.actor_id == admin.id


def test_admin_may_delete_someone_elses_entry(db, client, auth, admin, alice):
    entry = log(db, alice, "FDL", 2)
    auth.sign_in(admin)

    assert client.post(f"/hours/{entry.id}/delete").status_code == 302
    assert db.scalar(select(func.count()).where(HourLog.id == entry.id)) == 0
    deleted = db.scalars(
        select(AuditEvent).where(AuditEvent.entity_id == entry.id, AuditEvent.action == "delete")
    ).one()
    assert deleted.actor_id == admin.id


@pytest.mark.parametrize("who", ["bob", "boss"])
def test_only_owner_or_admin_edits_or_deletes(request, db, client, auth, report, who):
    entry = log(db, report, "FDL", 2)
    intruder = request.getfixturevalue(who)  # another engineer, or the owner's own manager
    auth.sign_in(intruder)
    before = counts(db)

    assert client.get(f"/hours/{entry.id}/edit").status_code == 403
    assert client.post(f"/hours/{entry.id}/edit", data=hours_form(db)).status_code == 403
    assert client.post(f"/hours/{entry.id}/delete").status_code == 403

    assert counts(db) == before
    db.expire_all()
    assert db.get(HourLog, entry.id).hours == 2


def test_unknown_entry_is_404(db, client, auth, alice):
    auth.sign_in(alice)

    assert client.get("/hours/999999/edit").status_code == 404
    assert client.post("/hours/999999/edit", data=hours_form(db)).status_code == 404
    assert client.post("/hours/999999/delete").status_code == 404


BAD_HOURS = [
    pytest.param({"hours": "0"}, "hours", "more than 0", id="zero"),
    pytest.param({"hours": "-1"}, "hours", "more than 0", id="negative"),
    pytest.param({"hours": "25"}, "hours", "at most 24", id="above-24"),
    pytest.param({"hours": "24.01"}, "hours", "at most 24", id="just-above-24"),
    pytest.param(
        {"hours": "abc"}, "hours", "“Hours” must be a number, written like 1.5", id="not-a-number"
    ),
    pytest.param({"hours": "NaN"}, "hours", "", id="nan"),
    pytest.param({"hours": ""}, "hours", "", id="missing"),
    pytest.param({"hours": "1.234"}, "hours", "at most 2 decimals", id="three-decimals"),
    pytest.param({"logged_on": "2026-11-30"}, "logged_on", "future", id="future-date"),
    pytest.param({"logged_on": "2020-12-31"}, "logged_on", "hire date 2021-01-01", id="pre-hire"),
    pytest.param({"logged_on": "28/11/2026"}, "logged_on", "", id="bad-date"),
    pytest.param({"course": "999999"}, "course", "choose one of the listed", id="unknown-course"),
    pytest.param({"course": "abc"}, "course", "choose one of the listed", id="course-not-an-id"),
    pytest.param(
        {"note": "x" * 501}, "note", "“Note” must be at most 500 characters", id="note-too-long"
    ),
]


def _assert_refused(response, field: str, message: str) -> Page:
    assert response.status_code == 400
    view = page(response)
    assert field in view.errors, view.errors
    assert all(text.strip() for text in view.errors[field])
    assert message in " ".join(view.errors[field])
    # The error sits next to its field: the input points at it.
    html = response.get_data(as_text=True)
    assert f'aria-describedby="{field}-error"' in html
    return view


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_HOURS)
def test_bad_hours_are_refused_next_to_the_field(
    db, client, auth, alice, overrides, field, message
):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, **overrides))

    _assert_refused(response, field, message)
    assert counts(db) == before


@pytest.mark.parametrize("value", ["sNaN", "Infinity", "-Infinity", "1e400"])
def test_special_decimal_hours_are_refused_next_to_the_field(db, client, auth, alice, value):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, hours=value))

    _assert_refused(response, "hours", "")
    assert counts(db) == before


def test_a_days_total_above_24_is_refused(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, hours="4.25"))

    view = _assert_refused(response, "hours", "a day holds at most 24 hours")
    assert "20 h are already logged on 2026-11-28" in " ".join(view.errors["hours"])
    assert counts(db) == before


def test_a_full_day_shows_with_the_forms_own_errors_in_one_round(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, hours="4.25", note="x" * 501))

    view = _assert_refused(response, "note", "“Note” must be at most 500 characters")
    assert "a day holds at most 24 hours" in " ".join(view.errors["hours"])
    assert "20 h are already logged on 2026-11-28" in " ".join(view.errors["hours"])
    assert counts(db) == before


def test_a_full_day_is_left_unsaid_while_the_hours_themselves_are_wrong(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="1.234", note="x" * 501))

    view = _assert_refused(response, "hours", "at most 2 decimals")
    assert "a day holds" not in " ".join(view.errors["hours"])
    assert "note" in view.errors


def test_a_days_total_of_exactly_24_is_accepted(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="4"))

    assert response.status_code == 302
    assert count(db, HourLog) >= 2


@pytest.mark.parametrize(
    ("amount", "on", "note"),
    [
        ("0.25", YESTERDAY, ""),
        ("24", D(2026, 11, 27), ""),
        ("23.99", D(2026, 11, 26), ""),
        ("1", TODAY, ""),
        ("1", D(2021, 1, 1), "x" * 500),
    ],
)
def test_the_limits_are_accepted(db, client, auth, alice, amount, on, note):
    auth.sign_in(alice)

    response = client.post(
        "/hours", data=hours_form(db, hours=amount, logged_on=on.isoformat(), note=note)
    )

    assert response.status_code == 302
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert (entry.hours, entry.logged_on, entry.note) == (Decimal(amount), on, note)


def test_the_smallest_amount_is_accepted(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="0.01"))

    assert response.status_code == 302
    assert db.scalars(select(HourLog.hours).where(HourLog.engineer_id == alice.id)).one() == (
        Decimal("0.01")
    )


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_HOURS)
def test_bad_edits_are_refused_and_change_nothing(
    db, client, auth, alice, overrides, field, message
):
    entry = log(db, alice, "FDL", 2, D(2026, 11, 20))
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)  # so 2.5 more on YESTERDAY breaks the day
    auth.sign_in(alice)
    before = counts(db)
    data = hours_form(db, **overrides)
    if "hours" not in overrides and "logged_on" not in overrides:
        data["hours"] = "1"  # valid on its own, so the other field is the culprit

    response = client.post(f"/hours/{entry.id}/edit", data=data)

    _assert_refused(response, field, message)
    assert counts(db) == before
    db.expire_all()
    stored = db.get(HourLog, entry.id)
    assert (stored.hours, stored.logged_on, stored.course_id) == (
        2,
        D(2026, 11, 20),
        factories.course(db, "FDL").id,
    )


def test_an_edit_may_keep_the_days_own_hours(db, client, auth, alice):
    entry = log(db, alice, "FDL", 24, YESTERDAY)
    auth.sign_in(alice)

    response = client.post(f"/hours/{entry.id}/edit", data=hours_form(db, hours="24"))

    assert response.status_code == 302


# With a note too long, the full day shows in the same round as the note's error.
@pytest.mark.parametrize("note", ["", "x" * 501], ids=["alone", "with-the-forms-own-error"])
def test_moving_an_entry_onto_a_full_day_is_refused(db, client, auth, alice, note):
    entry = log(db, alice, "FDL", 5, D(2026, 11, 20))
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)
    before = counts(db)

    response = client.post(
        f"/hours/{entry.id}/edit",
        data=hours_form(db, hours="5", logged_on="2026-11-28", note=note),
    )

    _assert_refused(response, "hours", "a day holds at most 24 hours")
    if note:
        _assert_refused(response, "note", "at most 500 characters")
    assert counts(db) == before
    db.expire_all()
    assert db.get(HourLog, entry.id).logged_on == D(2026, 11, 20)


# === 3. exams ====================================================================


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

    view = _assert_refused(response, "exam", "NCP-AII requires a valid NCA-AIIO")
    assert counts(db) == before
    assert "NCA-AIIO" in " ".join(view.errors["exam"])


def test_ncp_aii_with_an_expired_nca_aiio_is_refused_with_the_date(db, client, auth, alice):
    factories.certification(db, alice, "NCA-AIIO", D(2024, 10, 1), D(2026, 10, 1))
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, alice, "NCP-AII"))

    _assert_refused(
        response, "exam", "NCP-AII requires a valid NCA-AIIO; it was valid through 2026-10-01"
    )
    assert counts(db) == before


def test_ncp_aii_without_enough_experience_is_refused(db, client, auth):
    newcomer = factories.engineer(db, hired_on=D(2026, 11, 1), experience_months=11)
    factories.certification(db, newcomer, "NCA-AIIO", D(2026, 11, 10), D(2028, 11, 10))
    auth.sign_in(newcomer)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, newcomer, "NCP-AII"))

    _assert_refused(
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

    _assert_refused(response, "attempted_on", "a retake of NCA-AIIO opens on 2026-12-04")
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

    _assert_refused(response, field, message)
    assert counts(db) == before


@pytest.mark.parametrize("value", ["1.005", "Infinity", "1e400", "sNaN"])
def test_a_cost_the_ledger_cannot_hold_is_refused(db, client, auth, alice, value):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/exams", data=attempt_form(db, alice, cost=value))

    _assert_refused(response, "cost", "")
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


# === 4. plans ====================================================================


def plan_form(db: Session, code: str = "NCP-AII", on: str = "2027-03-01") -> dict[str, object]:
    return {"plan-exam": factories.exam(db, code).id, "plan-planned_on": on}


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

    _assert_refused(response, "plan-planned_on", message)
    assert counts(db) == before


def test_planning_an_unknown_exam_is_refused(db, client, auth, alice):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post(
        "/exams/plan", data={"plan-exam": "999999", "plan-planned_on": "2027-03-01"}
    )

    _assert_refused(response, "plan-exam", "")
    assert counts(db) == before


# === 5. credentials ==============================================================


def test_recording_a_catalog_credential_shows_it(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post("/credentials", data=credential_form(db, alice), follow_redirects=True)

    assert response.status_code == 200
    view = page(response)
    assert (
        "Certified Kubernetes Administrator (CKA) recorded, valid through 2029-10-01."
        in view.flashes
    )
    row = next(r for r in view.rows if r.startswith("Certified Kubernetes Administrator (CKA)"))
    assert "Oct 1, 2026 Oct 1, 2029" in row
    assert row.endswith("valid · 1037 days left")  # 2029-10-01 - 2026-11-29
    cert = db.scalars(select(Certification).where(Certification.engineer_id == alice.id)).one()
    assert cert.credential_id == factories.credential(db, "CKA").id
    assert (cert.earned_on, cert.expires_on, cert.evidence) == (
        D(2026, 10, 1),
        D(2029, 10, 1),
        "LF-CKA-2026-0042",
    )
    assert cert.recorded_by_id == alice.id
    # It shows on the dashboard too.
    dashboard = page(client.get("/dashboard"))
    assert any("(CKA)" in r and "valid · 1037 days left" in r for r in dashboard.rows)


def test_recording_a_credential_without_expiry(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post(
        "/credentials",
        data=credential_form(db, alice, "RHCE", expires_on=""),
        follow_redirects=True,
    )

    view = page(response)
    assert "Red Hat Certified Engineer (RHCE) recorded." in view.flashes
    row = next(r for r in view.rows if r.startswith("Red Hat Certified Engineer (RHCE)"))
    assert "does not expire" in row


def test_an_exam_credential_entered_with_evidence_gets_its_validity(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post(
        "/credentials",
        data=credential_form(db, alice, "NCA-AIIO", issued_on="2026-03-31", expires_on=""),
        follow_redirects=True,
    )

    assert response.status_code == 200
    flashes = page(response).flashes
    assert (
        f"{factories.credential(db, 'NCA-AIIO').name} recorded, valid through 2028-03-31."
        in flashes
    )


def test_an_old_credential_shows_as_expired(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post(
        "/credentials",
        data=credential_form(db, alice, issued_on="2020-01-01", expires_on="2023-01-01"),
        follow_redirects=True,
    )

    row = next(r for r in page(response).rows if r.startswith("Certified Kubernetes"))
    assert row.endswith("expired · 1428 days ago")  # 2026-11-29 - 2023-01-01


def test_other_credential_is_created_once_with_origin_engineer(db, client, auth, alice, bob):
    auth.sign_in(alice)
    before = count(db, Credential)
    data = credential_form(
        db, alice, None, name="Liquid Cooling Specialist", issuer="CoolCorp", expires_on=""
    )

    response = client.post("/credentials", data=data, follow_redirects=True)

    assert response.status_code == 200
    assert "Liquid Cooling Specialist recorded." in page(response).flashes
    assert count(db, Credential) == before + 1
    made = db.scalars(
        select(Credential).where(Credential.name == "Liquid Cooling Specialist")
    ).one()
    assert (made.origin, made.issuer, made.kind) == ("engineer", "CoolCorp", "external")

    # A second person entering the same name and issuer shares the row.
    auth.logout()
    auth.sign_in(bob)
    again = credential_form(
        db, bob, None, name="liquid cooling specialist ", issuer=" coolcorp", expires_on=""
    )
    response = client.post("/credentials", data=again)

    assert response.status_code == 302
    assert count(db, Credential) == before + 1
    held = db.scalars(select(Certification).where(Certification.credential_id == made.id)).all()
    assert sorted(c.engineer_id for c in held) == sorted([alice.id, bob.id])


def test_other_credentials_are_not_offered_as_catalog_choices(db, client, auth, alice):
    credential_for_entry(db, name="Homebrew Cert", issuer="Somebody")
    auth.sign_in(alice)

    html = client.get("/credentials").get_data(as_text=True)

    assert "Homebrew Cert" not in html
    assert 'value="0">Other (enter name and issuer)<' in html


BAD_CREDENTIALS = [
    pytest.param({"evidence": ""}, "evidence", "evidence is required", id="no-evidence"),
    pytest.param({"evidence": "   "}, "evidence", "evidence is required", id="blank-evidence"),
    pytest.param({"expires_on": "2026-09-30"}, "expires_on", "before the issue", id="expiry-first"),
    pytest.param({"issued_on": "2026-11-30"}, "issued_on", "future", id="future-issue"),
    pytest.param({"issued_on": ""}, "issued_on", "required", id="no-issue-date"),
    pytest.param({"credential": "999999"}, "credential", "", id="unknown-credential"),
    pytest.param(
        {"name": "x" * 201},
        "name",
        "“Name (other credential)” must be at most 200 characters",
        id="name-too-long",
    ),
]


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_CREDENTIALS)
def test_bad_credentials_are_refused(db, client, auth, alice, overrides, field, message):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/credentials", data=credential_form(db, alice, **overrides))

    _assert_refused(response, field, message)
    assert counts(db) == before


@pytest.mark.parametrize(
    ("overrides", "fields"),
    [
        pytest.param({}, ["name", "issuer"], id="neither"),
        pytest.param({"name": "Cool Cert"}, ["issuer"], id="no-issuer"),
        pytest.param({"issuer": "CoolCorp"}, ["name"], id="no-name"),
        pytest.param({"name": "  ", "issuer": "  "}, ["name", "issuer"], id="blank"),
    ],
)
def test_other_without_name_or_issuer_is_refused(db, client, auth, alice, overrides, fields):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/credentials", data=credential_form(db, alice, None, **overrides))

    for field in fields:
        _assert_refused(response, field, "required for a credential outside the catalog")
    assert counts(db) == before


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        pytest.param({"expires_on": "2026-09-30"}, "expires_on", id="expiry-first"),
        pytest.param({"issued_on": "2026-11-30", "expires_on": ""}, "issued_on", id="future"),
    ],
)
def test_a_refused_other_credential_leaves_no_catalog_row(
    db, client, auth, alice, overrides, field
):
    auth.sign_in(alice)
    before = counts(db)
    data = credential_form(db, alice, None, name="Brand New Cert", issuer="NewCorp", **overrides)

    response = client.post("/credentials", data=data)

    _assert_refused(response, field, "")
    assert counts(db) == before
    assert db.scalars(select(Credential).where(Credential.name == "Brand New Cert")).first() is None


def test_a_manager_records_a_credential_for_their_report(db, client, auth, boss, report):
    auth.sign_in(boss)

    response = client.post("/credentials", data=credential_form(db, report))

    assert response.status_code == 302
    cert = db.scalars(select(Certification).where(Certification.engineer_id == report.id)).one()
    assert cert.recorded_by_id == boss.id
    flashes = page(client.get(response.headers["Location"])).flashes
    assert any(f.startswith("For Rita Report: ") for f in flashes), flashes


def test_an_engineer_cannot_record_a_credential_for_someone_else(db, client, auth, alice, bob):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/credentials", data=credential_form(db, alice, engineer=bob.id))

    assert response.status_code in (400, 403)
    assert counts(db) == before


# === 6. escaping =================================================================


@pytest.mark.parametrize("note", [SCRIPT, SQL, f"{SCRIPT} {SQL}"])
def test_notes_are_stored_verbatim_and_shown_escaped(db, client, auth, alice, note):
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, note=note))

    assert response.status_code == 302
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert entry.note == note
    assert count(db, HourLog) >= 1  # the table survived

    listing = client.get("/hours").get_data(as_text=True)
    assert SCRIPT not in listing
    assert any(note in r for r in Page(listing).rows)
    if SCRIPT in note:
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in listing
    if SQL in note:
        assert "&#39;; DROP TABLE hour_logs; --" in listing

    # Change it once so the history has a before and an after carrying the note.
    client.post(f"/hours/{entry.id}/edit", data=hours_form(db, hours="3", note=note))
    edit = client.get(f"/hours/{entry.id}/edit").get_data(as_text=True)
    assert SCRIPT not in edit
    history = [r for r in Page(edit).rows if " update " in f" {r} "]
    assert len(history) == 1
    assert history[0].count(note) == 2
    if SCRIPT in note:
        # The input's value and the history's before and after cells.
        assert edit.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3


def test_other_credential_names_are_shown_escaped(db, client, auth, alice):
    auth.sign_in(alice)
    data = credential_form(db, alice, None, name=SCRIPT, issuer=SQL, expires_on="")

    response = client.post("/credentials", data=data, follow_redirects=True)

    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert SCRIPT not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    made = db.scalars(select(Credential).where(Credential.origin == "engineer")).one()
    assert (made.name, made.issuer) == (SCRIPT, SQL)


# === CSRF on the engineer's forms ===============================================


def _token(html: str, name: str = "csrf_token") -> str:
    match = re.search(rf'name="{name}"[^>]*value="([^"]+)"', html) or re.search(
        rf'value="([^"]+)"[^>]*name="{name}"', html
    )
    assert match, f"no {name} on the page"
    return match[1]


@pytest.mark.parametrize("form", ["hours", "edit", "delete", "exams", "plan", "credentials"])
def test_forms_without_a_csrf_token_are_refused(db, app, client, auth, alice, monkeypatch, form):
    entry = log(db, alice, "FDL", 1, D(2026, 11, 20))
    auth.sign_in(alice)
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", True)
    url, data = {
        "hours": ("/hours", hours_form(db)),
        "edit": (f"/hours/{entry.id}/edit", hours_form(db, hours="3")),
        "delete": (f"/hours/{entry.id}/delete", {}),
        "exams": ("/exams", attempt_form(db, alice)),
        "plan": ("/exams/plan", plan_form(db)),
        "credentials": ("/credentials", credential_form(db, alice)),
    }[form]
    before = counts(db)

    response = client.post(url, data=data)

    assert response.status_code == 400
    assert counts(db) == before
    db.expire_all()
    assert db.get(HourLog, entry.id).hours == 1


def test_forms_with_their_csrf_token_are_accepted(db, app, client, auth, alice, monkeypatch):
    auth.sign_in(alice)
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", True)

    token = _token(client.get("/hours").get_data(as_text=True))
    response = client.post("/hours", data={**hours_form(db), "csrf_token": token})
    assert response.status_code == 302

    exams = client.get("/exams").get_data(as_text=True)
    plan = {**plan_form(db), "plan-csrf_token": _token(exams, "plan-csrf_token")}
    assert client.post("/exams/plan", data=plan).status_code == 302
    attempt = {**attempt_form(db, alice), "csrf_token": _token(exams)}
    assert client.post("/exams", data=attempt).status_code == 302
