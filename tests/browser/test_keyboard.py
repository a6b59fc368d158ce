"""The main forms by keyboard alone, and tables too wide for the window scrolled by keyboard."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.browser.conftest import DEMO_PASSWORD, snap


def focused(page, selector: str) -> bool:
    return page.evaluate("(s) => document.activeElement.matches(s)", selector)


def tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        if focused(page, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never got the focus with Tab")


def test_sign_in_log_hours_and_record_an_exam_with_the_keyboard_alone(page):
    # Sign in: the email field has the focus on arrival; Enter submits.
    page.goto("/login")
    # The browser applies autofocus at its next rendering step, which may come after "load".
    expect(page.locator("#email")).to_be_focused()
    page.keyboard.type("aisha@example.com")
    page.keyboard.press("Tab")
    assert focused(page, "#password")
    page.keyboard.type(DEMO_PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url("**/dashboard")
    snap(page, "signed in by keyboard")

    # To the hours form through the menu, then every field by Tab; Enter submits.
    tab_to(page, "header nav a[href='/hours']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/hours")
    tab_to(page, "#course")
    page.keyboard.type("Intro")
    assert page.locator("#course option:checked").inner_text().startswith("Introduction to AI")
    tab_to(page, "#hours")
    page.keyboard.type("1.5")
    page.keyboard.press("Tab")
    assert focused(page, "#note")
    page.keyboard.type("typed without a mouse")
    page.keyboard.press("Enter")
    # The form posts to its own URL: wait for the answer's message, not the address.
    expect(page.locator("[role=status]")).to_contain_text(
        "Logged 1.5 h on Introduction to AI Infrastructure."
    )
    expect(page.get_by_role("cell", name="typed without a mouse")).to_have_count(1)
    snap(page, "hours logged by keyboard")

    # The exam form: choose, type, toggle with Space, submit with Space on the button.
    tab_to(page, "header nav a[href='/exams']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/exams")
    tab_to(page, "#exam")
    page.keyboard.type("NCA")
    assert page.locator("#exam option:checked").inner_text().startswith("NCA-AIIO")
    tab_to(page, "#score")
    page.keyboard.type("83")
    page.keyboard.press("Tab")
    assert focused(page, "#passed")
    page.keyboard.press("Space")
    assert page.locator("#passed").is_checked()
    tab_to(page, "form[action='/exams'] button[type=submit]")
    page.keyboard.press("Space")
    page.wait_for_url("**/exams")
    assert "NCA-AIIO passed: certified, valid through" in page.locator("[role=status]").inner_text()
    snap(page, "exam recorded by keyboard")


def test_a_table_too_wide_for_the_window_scrolls_by_keyboard(crawler):
    page = crawler.signed_in("manager").page
    page.set_viewport_size({"width": 480, "height": 900})
    try:
        team = urlsplit(crawler.crawl("manager").url_of("readiness.team")).path
        skills = team.replace("/teams/", "/careers/teams/") + "/skills"
        for url, region in ((team, "Certification heat map"), (skills, "Skills coverage")):
            page.goto(url)
            tab_to(page, f"[role=region][aria-label='{region}']", limit=300)
            scroller = page.get_by_role("region", name=region)
            assert scroller.evaluate("(el) => el.scrollWidth > el.clientWidth"), url
            page.keyboard.press("ArrowRight")
            page.wait_for_function("(el) => el.scrollLeft > 0", arg=scroller.element_handle())
            # Scrolled to its end, the table still shows what each row is about, in a
            # column that leaves most of the width to the cells scrolling beside it.
            scroller.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
            edge, width = scroller.evaluate(
                "(el) => [el.getBoundingClientRect().left, el.clientWidth]"
            )
            for name in scroller.locator("tbody th[scope=row]").all():
                box = name.bounding_box()
                assert box is not None and abs(box["x"] - edge) < 1, (url, box, edge)
                assert box["width"] <= width / 2, (url, box, width)
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_the_admins_wide_tables_scroll_by_keyboard(crawler):
    page = crawler.signed_in("admin").page
    page.set_viewport_size({"width": 480, "height": 900})
    try:
        page.goto("/admin/people")
        tab_to(page, "[role=region][aria-label='People']", limit=300)
        scroller = page.get_by_role("region", name="People")
        assert scroller.evaluate("(el) => el.scrollWidth > el.clientWidth")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(el) => el.scrollLeft > 0", arg=scroller.element_handle())
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
