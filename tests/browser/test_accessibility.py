"""Keyboard-only use of the main forms, a label for every input, states readable without colour.

Also what the browser itself sees of the session cookie: script cannot read it.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DEMO_PASSWORD, sign_in, snap

UNLABELLED = """() => Array.from(document.querySelectorAll("input, select, textarea"))
  .filter((el) => el.type !== "hidden")
  .filter((el) => !(el.getAttribute("aria-label") || "").trim())
  .filter((el) => !(el.getAttribute("aria-labelledby") || "").trim())
  .filter((el) => !(el.id && document.querySelector(`label[for="${CSS.escape(el.id)}"]`)))
  .filter((el) => !el.closest("label"))
  .map((el) => el.outerHTML)"""

# A label points at one id: two visible fields with the same id leave one unlabelled.
DUPLICATE_IDS = """() => {
  const ids = Array.from(document.querySelectorAll("input[id], select[id], textarea[id]"))
    .filter((el) => el.type !== "hidden").map((el) => el.id);
  return ids.filter((id, i) => ids.indexOf(id) !== i);
}"""

NAV_LINKS = """() => Array.from(document.querySelectorAll("header nav a[href^='/']"))
  .map((a) => a.getAttribute("href"))"""


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
    page.wait_for_url("**/hours")
    assert (
        "Logged 1.5 h on Introduction to AI Infrastructure."
        in page.locator("[role=status]").inner_text()
    )
    assert page.get_by_role("cell", name="typed without a mouse").count() == 1
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
    assert "NCA-AIIO passed: certified until" in page.locator("[role=status]").inner_text()
    snap(page, "exam recorded by keyboard")


PAGES = {
    "anonymous": (None, ["/", "/catalog", "/login"]),
    "engineer": ("tom@example.com", ["/hours/{entry}/edit"]),
    "manager": ("omar@example.com", ["/teams/{team}", "/teams/{team}/plan"]),
    "admin": (
        "admin@example.com",
        ["/admin/people/new", "/admin/teams/new", "/admin/people/{person}", "/admin/teams/{team}"],
    ),
}


@pytest.mark.parametrize("role", PAGES)
def test_every_input_has_a_label(page, role):
    email, extra = PAGES[role]
    urls = list(extra)
    if email is not None:
        sign_in(page, email)
        urls += page.evaluate(NAV_LINKS)
        ids = _ids(page)
        urls = [url.format(**ids) for url in urls]
    checked = []
    for url in dict.fromkeys(urls):
        response = page.goto(url)
        assert response is not None and response.status < 400, (url, response and response.status)
        assert page.evaluate(UNLABELLED) == [], url
        assert page.evaluate(DUPLICATE_IDS) == [], url
        checked.append(url)
    snap(page, f"last page checked {checked[-1]}")
    assert len(checked) >= 3


def _ids(page) -> dict[str, str]:
    """Find an hour entry, a team and a person the signed-in user may open."""
    ids = {"entry": "0", "team": "0", "person": "0"}
    page.goto("/hours")
    edit = page.locator("a[href$='/edit']").first
    if edit.count():
        ids["entry"] = edit.get_attribute("href").split("/")[2]
    for path, key, prefix in (("/teams", "team", "/teams/"), ("/admin/people", "person", None)):
        response = page.goto(path)
        if response is None or response.status >= 400:
            continue
        links = page.locator("main a[href]").evaluate_all("(as) => as.map((a) => a.pathname)")
        prefix = prefix or "/admin/people/"
        numbers = [
            link.removeprefix(prefix) for link in links if link.removeprefix(prefix).isdigit()
        ]
        if numbers:
            ids[key] = numbers[0]
    return ids


def test_heat_map_states_are_readable_without_colour(page):
    sign_in(page, "omar@example.com")
    page.goto("/teams")
    page.get_by_role("link", name="Borealis Cluster").click()
    cells = page.locator("table.heatmap tbody td")
    assert cells.count() > 0
    seen = set()
    for i in range(cells.count()):
        cell = cells.nth(i)
        (state,) = [
            c.removeprefix("cell-") for c in cell.get_attribute("class").split() if "cell-" in c
        ]
        # The state is written in the cell, in words, visibly: not carried by colour alone.
        words = cell.locator(".status").inner_text()
        assert state in words.split(), (state, words)
        assert cell.locator(".status").is_visible()
        seen.add(state)
    assert {"valid", "missing"} <= seen
    legend = page.locator(".legend").inner_text()
    for state in ("valid", "expiring", "expired", "missing"):
        assert state in legend
    page.locator("table.heatmap").scroll_into_view_if_needed()
    snap(page, "heat map")


def test_the_session_cookie_is_out_of_reach_of_script(page):
    sign_in(page, "sam@example.com")
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["session"]
    assert session["httpOnly"] is True
    assert session["sameSite"] == "Lax"
    assert "session=" not in page.evaluate("document.cookie")
    snap(page, "signed in")
