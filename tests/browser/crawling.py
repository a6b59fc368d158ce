"""Each role's crawl of the demo in Chromium, and its pages' checks: axe, labels, width, Spanish."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from urllib.parse import parse_qsl, urlsplit

from axe_playwright_python.base import AXE_SCRIPT
from werkzeug.exceptions import HTTPException
from werkzeug.routing import RequestRedirect

from tests.browser.conftest import sign_in
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


# Phrases of the English interface, one or more from every page; none may show in Spanish.
ENGLISH_PHRASES = [
    "Sign in",
    "Sign out",
    "Password",
    "Dashboard",
    "Profile",
    "Language",
    "Save",
    "Save changes",
    "Certifications",
    "Learning paths",
    "Page not found",
    "Log hours",
    "Your entries",
    "Your progress",
    "Next step",
    "days left",
    "Record an attempt",
    "Plan an exam",
    "Your ledger",
    "Record a credential earned elsewhere",
    "Your certifications",
    "does not expire",
    "Skill levels",
    "Ways to train",
    "seats filled",
    "Heat map",
    "Certifications expiring soonest",
    "Organisation readiness",
    "Open seats",
    "Plan to a target",
    "Who trains on which path",
    "Return on investment",
    "First-year ROI",
    "What stands between",
    "The ladder",
    "Certification bonuses",
    "Download CSV for payroll",
    "Pair a junior with a senior",
    "Ready for promotion",
    "Add a person",
    "Catalog and internal track",
    "Access role",
    "Level history",
    "Job role history",
    "Add a team",
    "New internal certification track",
    "Import people first",
    "File formats",
    "Rows refused",
    "Next attempt",
    "Last error",
    "Two-step sign-in",
    "recovery code",
    "Account trail",
    "Changed by",
    "Operational",
    "Foundations",
    "Operations Engineer",
    "Network Specialist",
    "Infrastructure Lead",
    "Bootcamp immersion",
    "Vendor partnership",
    "Less downtime",
    "Liquid cooling",
    "MIG partitioning",
    "Delete the entry",
    "stay as they are",
]
# Where the English phrases are looked for: the page's text, but for what it marks as
# English on purpose (the API reference's descriptions, drawn from the English API
# document; the language switch's "English").
VISIBLE_TEXT = """() => {
  const body = document.body.cloneNode(true);
  body.querySelectorAll('[lang^="en"], script, style, template').forEach((e) => e.remove());
  return body.textContent;
}"""


def english_in(text: str) -> list[str]:
    """Return the English phrases found in `text`, as whole words."""
    return [p for p in ENGLISH_PHRASES if re.search(rf"\b{re.escape(p)}\b", text)]


def in_spanish(page, url: str, status: int) -> Visit:
    """Check the page as it is now is in Spanish; save the main ones as pictures."""
    visit = Visit(url, status)
    lang = page.evaluate("() => document.documentElement.lang")
    if lang != "es":
        visit.problems.append(f"{url}: <html lang={lang!r}>")
    visit.problems += [f"{url}: shows {p!r}" for p in english_in(page.evaluate(VISIBLE_TEXT))]
    return visit
