"""Keyboard-only use of the main forms, a label for every input, states readable without colour.

axe-core's WCAG 2.0/2.1/2.2 A and AA rules on every page each role of the demo
organisation reaches (crawled from its links; every page route must be opened by
some role), on error pages and on forms showing their errors. Also what the browser
itself sees of the session cookie: script cannot read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from urllib.parse import parse_qsl, urlsplit

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import expect
from werkzeug.exceptions import HTTPException
from werkzeug.routing import RequestRedirect

from tests.browser.conftest import DEMO_PASSWORD, open_link, sign_in, snap
from tracker.demo.services.common import corrected_study_note

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


# axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules, of any impact; and aria-allowed-role,
# which axe files under best practice although an ARIA role that the element does not
# allow (an article made a status) is an HTML conformance error.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": AXE_TAGS},
    "rules": {"aria-allowed-role": {"enabled": True}},
    "resultTypes": ["violations"],
}
ROLES = {
    "anonymous": None,
    "engineer": "tom@example.com",
    "manager": "omar@example.com",
    "admin": "admin@example.com",
}
# The note of the hour log the demo's engineer corrected (written in English).
CORRECTED_NOTE = corrected_study_note("en")
# Where each role's crawl starts; /admin/ is a route that no page links.
START = {"anonymous": ["/"], "engineer": ["/dashboard"], "manager": ["/dashboard"]}
START["admin"] = ["/dashboard", "/admin/"]


def with_digest_link(link: str) -> dict[str, list[str]]:
    """Return START with a weekly digest's unsubscribe link: mail brings it, no page links it."""
    return {**START, "anonymous": [*START["anonymous"], link]}


# Downloads, feeds, the API and SCIM are not pages (the API's reference, /api/docs, is;
# so is the page asking before a calendar feed's link is removed).
# Not pages: downloads, the API, SCIM, the issuer's documents, the health probes' JSON.
NOT_PAGES = re.compile(
    r"\.(csv|ics|json|png|svg)$|^/(api/v1|scim/v2|static|\.well-known)/|^/ob/(status|achievements)"
    r"|^/health(/|$)"
)


def _page_endpoints(app) -> set[str]:
    """Return the endpoint of every HTML page a GET can open."""
    return {
        rule.endpoint
        for rule in app.url_map.iter_rules()
        if "GET" in rule.methods and not NOT_PAGES.search(rule.rule) and rule.endpoint != "static"
    }


@dataclass
class Visit:
    """What axe and the label checks found on one page."""

    url: str
    status: int
    problems: list[str] = field(default_factory=list)


@dataclass
class Crawl:
    """One role's signed-in page and every page it opened, by endpoint and query keys."""

    page: object
    visits: dict[str, Visit] = field(default_factory=dict)
    csp: list[str] = field(default_factory=list)
    crawled: bool = False

    def url_of(self, endpoint: str) -> str:
        """Return the first URL the crawl opened for `endpoint`."""
        urls = [v.url for key, v in self.visits.items() if key.split("?")[0] == endpoint]
        assert urls, f"the crawl never opened {endpoint}"
        return urls[0]


def check(page, url: str, status: int) -> Visit:
    """Run axe and the label checks on the page as it is now."""
    visit = Visit(url, status)
    # A page reached by a click may show its text before its stylesheet has
    # loaded; axe measures the layout (target sizes, contrast), so wait for it.
    page.wait_for_load_state("load")
    results = page.evaluate("(options) => axe.run(document, options)", AXE_OPTIONS)
    for rule in results["violations"]:
        for node in rule["nodes"]:
            visit.problems.append(
                f"{url}: {rule['id']} ({rule['impact']}) at {node['target']}: {rule['help']}"
                f"\n    {node['html'][:200]}\n    {node['failureSummary']}"
            )
    visit.problems += [f"{url}: no label for {html}" for html in page.evaluate(UNLABELLED)]
    visit.problems += [f"{url}: id {i} used twice" for i in page.evaluate(DUPLICATE_IDS)]
    return visit


class Crawler:
    """Sign in each role once; open every page it reaches, once per endpoint and query keys."""

    def __init__(
        self,
        browser,
        base_url: str,
        check: Callable[[object, str, int], Visit] = check,
        roles: Mapping[str, str | None] = ROLES,
        locale: str | None = None,
        starts: Mapping[str, list[str]] = START,
    ) -> None:
        from tracker import create_app

        self.app = create_app({"DATABASE_URL": "sqlite://", "SECRET_KEY": "x"})
        self.app.extensions["tracker.engine"].dispose()
        self.urls = self.app.url_map.bind("localhost")
        self.browser, self.base_url = browser, base_url
        self.check, self.roles, self.locale, self.starts = check, roles, locale, starts
        self.crawls: dict[str, Crawl] = {}

    def key(self, url: str) -> str | None:
        """Name a URL by its endpoint and the names of its query parameters."""
        parts = urlsplit(url)
        if NOT_PAGES.search(parts.path):
            return None
        try:
            endpoint, _ = self.urls.match(parts.path, method="GET")
        except RequestRedirect as redirect:
            return self.key(redirect.new_url)
        except HTTPException:
            return parts.path  # a link to nowhere: opened once, and its 404 shows
        names = sorted({name for name, _ in parse_qsl(parts.query, keep_blank_values=True)})
        return endpoint + ("?" + "&".join(names) if names else "")

    def signed_in(self, role: str) -> Crawl:
        if role in self.crawls:
            return self.crawls[role]
        context = self.browser.new_context(
            base_url=self.base_url, viewport={"width": 1280, "height": 900}, locale=self.locale
        )
        context.set_default_timeout(15_000)
        # Loaded with every page: cheaper than sending axe over with each check.
        context.add_init_script(AXE_SCRIPT)
        crawl = Crawl(context.new_page())
        crawl.page.on(
            "console",
            lambda m: crawl.csp.append(m.text) if "Content Security Policy" in m.text else None,
        )
        if self.roles[role] is not None:
            # The second step's page is met only while signing in: checked there.
            def at_code(page=crawl.page) -> None:
                key = self.key(page.url)
                assert key is not None
                crawl.visits[key] = self.check(page, page.url, 200)

            sign_in(crawl.page, self.roles[role], at_code=at_code)
        self.crawls[role] = crawl
        return crawl

    def crawl(self, role: str) -> Crawl:
        """Open every page the role reaches by links from its start pages."""
        crawl = self.signed_in(role)
        if crawl.crawled:
            return crawl
        crawl.crawled = True
        page = crawl.page
        queue = list(self.starts[role])
        while queue:
            url = queue.pop(0)
            key = self.key(url)
            if key is None or key in crawl.visits:
                continue
            response = page.goto(url)
            assert response is not None, url
            crawl.visits[key] = self.check(page, url, response.status)
            links = page.eval_on_selector_all(
                "a[href]",
                "(as) => as.filter((a) => a.origin === location.origin)"
                ".map((a) => a.pathname + a.search)",
            )
            # Ahead of the queue: a page of an endpoint the queue would otherwise open first.
            queue[:0] = self.derived(page, url, key)
            queue += [link for link in links if self.key(link) not in crawl.visits]
        return crawl

    @staticmethod
    def derived(page, url: str, key: str) -> list[str]:
        """Pages no link opens yet, or a chosen one of an endpoint's, found from one that does."""
        path = urlsplit(url).path
        if key == "careers.engineer":  # the same person's progress page
            return [path.replace("/careers/engineers/", "/engineers/")]
        if key == "readiness.team":  # the printable page; a plan that reaches its target
            target = (date.today() + timedelta(days=365)).isoformat()
            return [f"{path}?print=1", f"{path}/plan?gpus=128&target={target}"]
        if key == "progress.hours":
            # The entry the demo corrected, whose history holds a version before and
            # after; the first listed may have only its creation (or none).
            return page.eval_on_selector_all(
                f"tr:has-text({CORRECTED_NOTE!r}) a[href*='/edit']",
                "(as) => as.map((a) => a.pathname)",
            )
        return []

    def close(self) -> None:
        for crawl in self.crawls.values():
            crawl.page.context.close()


@pytest.fixture(scope="module")
def crawler(browser, server, digest_link) -> Iterator[Crawler]:
    crawler = Crawler(browser, server.url, starts=with_digest_link(digest_link))
    try:
        yield crawler
    finally:
        crawler.close()


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
    "issuer.public": "tests/issuer/test_pages.py",
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


def test_heat_map_states_are_readable_without_colour(page):
    sign_in(page, "omar@example.com")
    page.goto("/teams")
    open_link(page, "Borealis Cluster")
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


# Elements of the page whose right edge passes the window's, outside any
# element that scrolls sideways: the page itself would scroll both ways (WCAG 1.4.10).
SPILLS = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (el) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
  const found = [];
  // Whatever widens it (an absolutely placed element escapes its scrolling region).
  const wide = document.documentElement.scrollWidth;
  if (wide > width + 1) found.push(`the page scrolls sideways: ${wide} px wide in ${width}`);
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (!box.width || box.right <= width + 1) continue;
    let up = el.parentElement;
    while (up && up !== document.body && !scrolls(up)) up = up.parentElement;
    if (up && up !== document.body) continue;
    found.push(el.outerHTML.slice(0, 120));
  }
  return found.slice(0, 3);
}"""


def spills_on_a_phone(crawl: Crawl) -> list[str]:
    """Return what passes the window's right edge on each page of the crawl, 390 px wide."""
    page = crawl.page
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        spilled = []
        for visit in crawl.visits.values():
            if visit.status != 200:
                continue
            page.goto(visit.url)
            spilled += [f"{visit.url}: {html}" for html in page.evaluate(SPILLS)[:1]]
        return spilled
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.parametrize("role", ROLES)
def test_no_page_spills_sideways_on_a_phone(crawler, role):
    """At 390 px wide, a table too wide scrolls in its own region; the page never does."""
    spilled = spills_on_a_phone(crawler.crawl(role))
    assert not spilled, "\n".join(spilled)
