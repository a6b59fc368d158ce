"""An engineer in the browser: hours move the progress bar, exams, the next level.

Tom Becker (tom@example.com) of the demo organisation joined two months ago
with no prior experience: FDL done (8 h), 6.5 of 16 h of INTRO-AI-INFRA, no
GPU-ARCH hours, no certification.
"""

from __future__ import annotations

import datetime as dt
import re

from playwright.sync_api import expect

from tests.browser.conftest import open_link, sign_in, snap
from tracker.i18n import format_day
from tracker.progress.services.validity import add_months

TOM = "tom@example.com"


def progress_value(page, element_id: str) -> float:
    return float(page.locator(f"progress#{element_id}").get_attribute("value"))


def test_logging_hours_moves_the_progress_bar(page):
    sign_in(page, TOM)
    path_before = progress_value(page, "path-FOUNDATIONS")
    course_before = progress_value(page, "course-FOUNDATIONS-GPU-ARCH")
    snap(page, "dashboard before")

    open_link(page, "Hours")
    page.get_by_label("Course").select_option(label="GPU Architecture Essentials (GPU-ARCH)")
    page.get_by_label("Hours").fill("2")
    page.get_by_label("Note").fill("browser test: lab 1")
    page.get_by_role("button", name="Log hours").click()
    # The form posts to its own URL: wait for the answer's message, not the address.
    expect(page.get_by_role("status")).to_contain_text("Logged 2 h on GPU Architecture Essentials.")
    expect(page.get_by_role("cell", name="browser test: lab 1")).to_have_count(1)
    snap(page, "hours logged")

    open_link(page, "Dashboard")
    assert progress_value(page, "course-FOUNDATIONS-GPU-ARCH") == course_before + 2
    assert progress_value(page, "path-FOUNDATIONS") == path_before + 2
    snap(page, "dashboard after")


def test_a_passed_nca_aiio_shows_with_its_expiry_and_ncp_aii_is_refused(page):
    sign_in(page, TOM)
    open_link(page, "Exams")
    form = attempt_form(page)

    # Without NCA-AIIO (and with two months of experience), NCP-AII is refused with the reason.
    form.get_by_label(label("Exam")).select_option(label=_exam_label(form, "NCP-AII"))
    form.get_by_label("Score (%)").fill("80")
    form.get_by_label("Passed").check()
    form.get_by_role("button", name="Record attempt").click()
    form = attempt_form(page)
    error = form.locator("#exam-error")
    assert "NCA-AIIO" in error.inner_text()
    assert form.get_by_label(label("Exam")).get_attribute("aria-invalid") == "true"
    snap(page, "ncp-aii refused without nca-aiio")

    # A pass of NCA-AIIO creates the certification, valid 24 months from the attempt.
    form.get_by_label(label("Exam")).select_option(label=_exam_label(form, "NCA-AIIO"))
    attempted_on = dt.date.fromisoformat(form.get_by_label(label("Date")).input_value())
    form.get_by_label("Score (%)").fill("78")
    form.get_by_label("Passed").check()
    form.get_by_role("button", name="Record attempt").click()
    expires = add_months(attempted_on, 24).isoformat()
    expect(page.get_by_role("status")).to_contain_text(
        f"NCA-AIIO passed: certified, valid through {expires}."
    )
    snap(page, "nca-aiio passed")

    open_link(page, "Dashboard")
    row = page.locator("table tr", has_text="NCA-AIIO")
    expect(row).to_have_count(1)
    # The dashboard writes dates as the page's language does: "Dec 1, 2028".
    assert format_day(add_months(attempted_on, 24), "en") in row.inner_text()
    assert "valid" in row.inner_text()
    snap(page, "certification on the dashboard")

    # With NCA-AIIO held, NCP-AII is still refused: 12 months of experience are missing.
    open_link(page, "Exams")
    form = attempt_form(page)
    form.get_by_label(label("Exam")).select_option(label=_exam_label(form, "NCP-AII"))
    form.get_by_label("Score (%)").fill("80")
    form.get_by_label("Passed").check()
    form.get_by_role("button", name="Record attempt").click()
    reason = page.locator("#exam-error").inner_text()
    assert "experience" in reason and "12" in reason, reason
    assert "NCA-AIIO" not in reason
    snap(page, "ncp-aii refused for experience")


def label(text: str) -> re.Pattern[str]:
    """Match a field's label exactly, with or without the "required" star."""
    return re.compile(rf"^{re.escape(text)}( \*)?$")


def attempt_form(page):
    return page.locator("form[action$='/exams']")


def _exam_label(form, code: str) -> str:
    labels = form.get_by_label(label("Exam")).locator("option").all_text_contents()
    (option,) = [text for text in labels if text.startswith(f"{code} ")]
    return option


def test_an_engineer_reads_what_stands_between_them_and_the_next_level(page):
    sign_in(page, "sam@example.com")
    snap(page, "dashboard")
    text = page.locator("main").inner_text()
    assert "stands between you and level" in text
    section = page.get_by_text("stands between you and level").first
    section.scroll_into_view_if_needed()
    snap(page, "next level")
