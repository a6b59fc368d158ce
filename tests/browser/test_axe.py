"""axe-core's WCAG A and AA rules on every page each role reaches, and on pages showing errors."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.crawling import NOT_PAGES, ROLES, Crawl, Visit, check


def _page_endpoints(app) -> set[str]:
    """Return the endpoint of every HTML page a GET can open."""
    return {
        rule.endpoint
        for rule in app.url_map.iter_rules()
        if "GET" in rule.methods and not NOT_PAGES.search(rule.rule) and rule.endpoint != "static"
    }


def _assert_clean(visits: list[Visit], crawl: Crawl) -> None:
    problems = [p for v in visits for p in v.problems]
    problems += [f"{v.url}: answered {v.status}" for v in visits if v.status >= 500]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
    assert not crawl.csp, f"CSP violations: {crawl.csp}"


@pytest.mark.parametrize("role", ROLES)
def test_every_page_a_role_reaches_passes_axe(crawler, role):
    crawl = crawler.crawl(role)
    _assert_clean(list(crawl.visits.values()), crawl)
    assert len(crawl.visits) >= 3


# Pages no crawl meets, checked with the same checks by the test named.
CHECKED_ELSEWHERE = {
    # The demo's admin has an app already: a new admin's first sign-in shows it.
    "people.totp_setup": "tests/browser/test_totp.py",
    # The demo issues no Open Badge: a badge's public page is checked with one issued.
    "issuer.public": "tests/issuer/test_html_validity.py",
    # Linked from a deactivated person's page only; the crawl opens one person's page.
    "admin.personal_data.erase_person": "tests/test_html_validity.py",
}


def test_the_crawls_open_every_page_of_the_app(crawler):
    opened = {key.split("?")[0] for role in ROLES for key in crawler.crawl(role).visits}
    missing = _page_endpoints(crawler.app) - opened - set(CHECKED_ELSEWHERE)
    assert not missing, f"no role's crawl opened {sorted(missing)}: link them or add a start"


# The pages that answer an error, as the role meets them.
ERROR_PAGES = {
    "anonymous": [("/no-such-page", 404), ("/mail/unsubscribe/tampered", 404)],
    "engineer": [("/teams", 403), ("/admin/people", 403), ("/engineers/999999", 404)],
    "manager": [("/teams/999999", 404), ("/admin/people", 403)],
}
# Forms sent blank (every text field emptied), as (role, page, form): each answers with
# messages next to its fields.
BLANK_FORMS = [
    ("engineer", "progress.hours", "form[action='/hours']"),
    ("engineer", "progress.edit_hours", "form[action*='/edit']"),
    ("engineer", "progress.attempts", "form[action='/exams']"),
    ("engineer", "progress.attempts", "form[action='/exams/plan']"),
    ("engineer", "progress.credentials", "form[action='/credentials']"),
    ("engineer", "people.profile", "form[action='/profile/password']"),
    ("engineer", "careers.engineer", "form[action$='/evidence']"),
    ("manager", "readiness.roi", "form[action='/roi']"),
    ("manager", "careers.apprenticeships", "form[action='/careers/apprenticeships']"),
    ("admin", "admin.add_person", "form[action='/admin/people/new']"),
    ("admin", "admin.edit_person", "form[action='{path}']"),
    ("admin", "admin.add_team", "form[action='/admin/teams/new']"),
    ("admin", "admin.imports", "form[action='/admin/imports']"),
    ("admin", "admin.catalog", "form[action^='/admin/catalog']"),
    ("admin", "careers.bonus_amounts", "form[action='/careers/bonuses/amounts']"),
]
# GET forms with a query the page refuses.
BAD_QUERIES = [
    ("manager", "readiness.team", "?gpus=-1&on=someday"),
    ("manager", "readiness.plan", "?gpus=-1&target=someday"),
    ("admin", "admin.audit.page", "?since=2026-11-03&until=2026-11-01"),
]
BLANK = """(form) => {
  for (const el of form.querySelectorAll("input, textarea")) {
    if (!["hidden", "checkbox", "radio", "submit", "file"].includes(el.type)) el.value = "";
  }
}"""
# Some forms wait in a closed <details> until opened.
OPEN = "(form) => { const details = form.closest('details'); if (details) details.open = true; }"
SHOWN_ERRORS = ".field-error, .form-errors, [role=alert]"

# Forms sent as they are, for the message a success leaves.
AS_IS_FORMS = [("engineer", "people.profile", "form[action='/profile']")]
# Forms sent with a token of another sign-in, for the page that hands back what they held.
STALE_FORMS = [("engineer", "progress.hours", "form[action='/hours']")]
STALE = "(form) => { form.querySelector('input[name=csrf_token]').value = 'stale'; }"
# Edit forms whose record changed since they were drawn: each comes back (409) naming what.
CHANGED_FORMS = [
    ("engineer", "progress.edit_hours", "form[action*='/edit']"),
    ("admin", "admin.edit_person", "form[action='{path}']"),
    ("admin", "admin.edit_team", "form[action='{path}']"),
]
CHANGED = "(form) => { form.querySelector('input[name=version]').value = 'another'; }"


def _send(page, form, url: str):
    form.evaluate(OPEN)
    with page.expect_navigation() as navigation:
        form.locator("button[type=submit]").click()
    response = navigation.value
    assert response is not None, url
    return response.status


@pytest.mark.parametrize("role", ROLES)
def test_error_pages_and_forms_showing_errors_pass_axe(crawler, role):
    crawl = crawler.crawl(role)  # the pages the forms are on, with the ids they need
    page = crawl.page
    visits = []
    for url, status in ERROR_PAGES.get(role, []):
        response = page.goto(url)
        assert response is not None and response.status == status, url
        visits.append(check(page, url, status))
    if role == "anonymous":
        page.goto("/login")
        # The sign-in form; the choice of language follows it.
        form = page.locator("main form").first
        form.get_by_label("Email").fill("nobody@example.com")
        form.get_by_label("Password").fill("not-the-password")
        status = _send(page, form, "/login")
        assert status == 401 and page.locator(SHOWN_ERRORS).count()
        visits.append(check(page, "/login with a wrong password", status))
        # The weekly digest's unsubscribe page: its button, and the page it leads to.
        link = crawl.url_of("mail.unsubscribe")
        page.goto(link)
        status = _send(page, page.locator("main form"), link)
        assert status == 200 and page.locator("h1").inner_text() == "Weekly digest off"
        visits.append(check(page, f"{link} sent", status))
    for who, endpoint, query in BAD_QUERIES:
        if who == role:
            url = urlsplit(crawl.url_of(endpoint)).path + query
            response = page.goto(url)
            assert response is not None and response.status == 400, url
            assert page.locator(SHOWN_ERRORS).count(), f"{url} shows no error"
            visits.append(check(page, url, response.status))
    for who, endpoint, selector in BLANK_FORMS + AS_IS_FORMS:
        if who != role:
            continue
        url = crawl.url_of(endpoint)
        page.goto(url)
        form = page.locator(selector.format(path=urlsplit(url).path))
        assert form.count() == 1, (url, selector)
        blank = (who, endpoint, selector) in BLANK_FORMS
        if blank:
            form.evaluate(BLANK)
        status = _send(page, form, url)
        shown = page.locator(SHOWN_ERRORS if blank else "[role=status]")
        assert shown.count(), f"{url}: {selector} sent shows no message"
        sent = f"{url} after {selector} sent{' blank' if blank else ''}"
        visits.append(check(page, sent, status))
    for who, endpoint, selector in STALE_FORMS:
        if who == role:
            url = crawl.url_of(endpoint)
            page.goto(url)
            form = page.locator(selector)
            form.evaluate(STALE)
            status = _send(page, form, url)
            assert status == 400 and page.locator(SHOWN_ERRORS).count(), url
            visits.append(check(page, f"{url} after {selector} sent with a stale token", status))
    for who, endpoint, selector in CHANGED_FORMS:
        if who == role:
            url = crawl.url_of(endpoint)
            page.goto(url)
            form = page.locator(selector.format(path=urlsplit(url).path))
            form.evaluate(CHANGED)
            status = _send(page, form, url)
            assert status == 409 and page.locator("[role=alert]").count(), url
            visits.append(check(page, f"{url} after {selector} sent over a change", status))
    if role != "anonymous":
        assert visits
    _assert_clean(visits, crawl)
