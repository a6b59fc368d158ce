"""Real-browser tests: Playwright's sync API driving Debian's Chromium against `tracker serve`.

One server for the whole session, on a temporary SQLite file prepared with
`tracker init --demo` (password "tracker-demo" for every login; the admin's
app secret is the demo's known one). Each test gets
a fresh browser context (no cookies) and leaves a screenshot under
test-artifacts/. Without /usr/bin/chromium every browser test is skipped, and
pytest's -ra summary says why.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin

import pytest
from sqlalchemy.orm import Session

from tests.factories import things_to_confirm
from tests.helpers import unspent_code
from tests.live import LiveServer, run_tracker, start_server, tracker_env
from tracker.config import PROJECT_ROOT
from tracker.db import make_engine
from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET
from tracker.people.services.reads import find_engineer
from tracker.reminders.rules import UNSUBSCRIBE_PATH
from tracker.reminders.services.unsubscribe import unsubscribe_token

if TYPE_CHECKING:
    from tests.browser.crawling import Crawler

CHROMIUM = Path("/usr/bin/chromium")
SKIP_REASON = f"Chromium not found at {CHROMIUM}: browser tests skipped"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = PROJECT_ROOT / "test-artifacts"
DEMO_PASSWORD = "tracker-demo"


# First: xdist's loadgroup reads the xdist_group marks in its own hook of this name.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run every browser test on one xdist worker; skip them, visibly, without Chromium."""
    here = Path(__file__).parent
    # One worker starts the demo server and the browser once, not once per worker.
    group = pytest.mark.xdist_group("browser")
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(group)
            if not CHROMIUM.exists():
                item.add_marker(skip)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`tracker serve` on a demo organisation of its own."""
    folder = tmp_path_factory.mktemp("browser")
    database = f"sqlite:///{folder / 'tracker.db'}"
    env = tracker_env(database)
    run_tracker(env, "init", "--demo")
    engine = make_engine(database)
    with Session(engine) as session:
        today = dt.datetime.now(dt.UTC).date()
        things_to_confirm(session, today, secret_key=env["TRACKER_SECRET_KEY"])
        session.commit()
    engine.dispose()
    live = start_server(env, folder / "serve.log")
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture(scope="session")
def digest_link(server: LiveServer) -> str:
    """Return the path of a demo manager's weekly digest unsubscribe link (mail brings it)."""
    engine = make_engine(server.env["TRACKER_DATABASE_URL"])
    try:
        with Session(engine) as session:
            person = find_engineer(session, "omar@example.com")
            assert person is not None
            token = unsubscribe_token(server.env["TRACKER_SECRET_KEY"], person.id)
    finally:
        engine.dispose()
    return f"{UNSUBSCRIBE_PATH}/{token}"


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def crawler(browser, server: LiveServer, digest_link: str) -> Iterator[Crawler]:
    """Each role's crawl of the demo, shared by the modules that check its pages."""
    # Here, not at the top: the crawl signs in with this module's sign_in.
    from tests.browser.crawling import Crawler, with_digest_link

    crawler = Crawler(browser, server.url, starts=with_digest_link(digest_link))
    try:
        yield crawler
    finally:
        crawler.close()


def _artifact_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:120]


class Shots:
    """Screenshots of one test, numbered in the order taken."""

    def __init__(self, test_name: str) -> None:
        self.prefix = _artifact_name(test_name)
        self.count = 0
        for old in ARTIFACTS.glob(f"{self.prefix}-[0-9][0-9]-*.png"):
            old.unlink()  # an earlier run's pictures of this test

    def take(self, page, label: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        self.count += 1
        path = ARTIFACTS / f"{self.prefix}-{self.count:02d}-{_artifact_name(label)}.png"
        page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def page(browser, server: LiveServer, request: pytest.FixtureRequest) -> Iterator[object]:
    """A page in a fresh context (no cookies); a last screenshot is taken at the end.

    Console messages about the Content-Security-Policy fail the test: every page
    must work without inline script or style.
    """
    context = browser.new_context(
        base_url=server.url, accept_downloads=True, viewport={"width": 1280, "height": 900}
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    shots = Shots(request.node.name)
    page.shots = shots  # type: ignore[attr-defined]
    try:
        yield page
        assert not violations, f"CSP violations: {violations}"
    finally:
        try:
            shots.take(page, "end")
        finally:
            context.close()


def snap(page, label: str) -> Path:
    """Save a screenshot of the page now, under test-artifacts/."""
    return page.shots.take(page, label)


# The steps each app secret has spent on the session's server: a step signs in once.
_SPENT: dict[str, int] = {}
# The secrets of the admins the browser tests set apps up for, by email.
SECRETS = {"admin@example.com": DEMO_ADMIN_TOTP_SECRET}


def app_code(email: str) -> str:
    """Return the code `email`'s app shows now (or next) that no sign-in here has spent."""
    secret = SECRETS[email]
    code, step = unspent_code(secret, _SPENT.get(secret))
    _SPENT[secret] = step
    return code


def sign_in(
    page, email: str, password: str = DEMO_PASSWORD, at_code: Callable[[], None] | None = None
) -> None:
    """Sign in through the form and land on the dashboard, whatever the page's language.

    An admin then gives the code of their app; `at_code` runs on that page first.
    """
    page.goto("/login")
    form = page.locator("form:has(input[name=password])")
    form.locator("input[name=email]").fill(email)
    form.locator("input[name=password]").fill(password)
    form.locator("[type=submit]").click()
    page.wait_for_url(re.compile(r".*/(dashboard|login/totp)$"))
    if page.url.endswith("/login/totp"):
        if at_code is not None:
            at_code()
        page.locator("input[name=code]").fill(app_code(email))
        page.locator("main form:has(input[name=code]) [type=submit]").click()
        page.wait_for_url("**/dashboard")


def open_link(page, name: str, *, exact: bool = True) -> None:
    """Follow the link named `name` and wait until the page it opens has loaded.

    A click returns once the navigation starts, so reading the page right
    after it can read the old page or a half-parsed new one.
    """
    link = page.get_by_role("link", name=name, exact=exact)
    target = urljoin(page.url, link.get_attribute("href"))
    link.click()
    page.wait_for_url(lambda url: url == target)
