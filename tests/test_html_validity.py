"""The Nu HTML checker (vnu.jar) finds no error on any page of the demo organisation.

Signed in as every demo login (admin, managers, engineers), the test client
follows every same-site link from the dashboard, submits every form with its
fields blank (the pages showing errors), and asks for the error pages; one Java
process then checks every page saved. Warnings are allowed and printed.

Needs Java and vnu.jar: `npm install --no-save vnu-jar@26.9` puts the jar in
node_modules/ (or point VNU_JAR at one); without either the test is skipped.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException
from werkzeug.routing import MapAdapter

from tests import factories
from tests.factories import TODAY
from tests.helpers import TOTP_SETUP, TOTP_STEP, pass_second_step, post_login
from tests.nu import JAVA, VNU_JAR, grouped, validate
from tracker.demo.services.common import DEMO_PASSWORD
from tracker.demo.services.curated import build_demo
from tracker.people.models import Engineer
from tracker.people.services.reads import find_engineer
from tracker.reminders.rules import UNSUBSCRIBE_PATH
from tracker.reminders.services.unsubscribe import unsubscribe_token

# One URL of a route with a given shape is as good as ten: /teams/1 and /teams/2
# render one template; a few of each catch pages whose data differs.
PER_SHAPE = 3
# Links that sign out or download something other than a page (the API's JSON, not its
# reference page /api/docs; the calendar feeds end in .ics, their removal asks on a page;
# the health probes answer application/health+json).
NOT_PAGES = (
    "/logout",
    "/health",
    "/static/",
    "/api/v1/",
    "/scim/v2/",
    "/.well-known/",
    "/ob/status",
    "/ob/achievements/",
)
NOT_PAGE_SUFFIXES = (".csv", ".ics", ".json", ".png", ".svg")
# Pages the demo cannot show: the public page of an Open Badge (the demo issues none).
CHECKED_ELSEWHERE = {"issuer.public": "tests/issuer/test_html_validity.py"}
ONE_CLICK = {"List-Unsubscribe": "One-Click"}
OWN_PAGES = ["/dashboard", "/careers/", "/hours", "/exams", "/credentials", "/profile"]


class _Page(HTMLParser):
    """Collect a page's links and its forms (action, method, blank values of their fields)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[tuple[str, str, dict[str, str], bool]] = []
        self._form: tuple[str, str, dict[str, str], list[bool]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k: v or "" for k, v in attrs}
        if tag == "a" and "href" in attr:
            self.links.append(attr["href"])
        elif tag == "form":
            self._form = (attr.get("action", ""), attr.get("method", "get").lower(), {}, [False])
        elif self._form is not None and tag in ("input", "select", "textarea") and "name" in attr:
            kind = attr.get("type", "text").lower()
            _, _, fields, visible = self._form
            if kind == "hidden":
                fields[attr["name"]] = attr.get("value", "")
            elif kind not in ("submit", "button", "reset", "image", "file"):
                fields[attr["name"]] = ""
                visible[0] = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._form is not None:
            action, method, fields, visible = self._form
            self.forms.append((action, method, fields, visible[0]))
            self._form = None


def _shape(path: str) -> str:
    """Return a path with its numbers blanked: the route it belongs to."""
    return "/".join("#" if part.isdigit() else part for part in path.split("/"))


def _is_page(path: str) -> bool:
    return not path.startswith(NOT_PAGES) and not path.endswith(NOT_PAGE_SUFFIXES)


class Pages:
    """The HTML pages every crawl saved for the checker, each once, and the URLs asked for."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.labels: dict[str, str] = {}  # file name -> who asked what, and the status
        self.digests: set[str] = set()  # pages already saved, byte for byte
        self.urls: set[str] = set()  # every URL asked for, redirects included

    def save(self, who: str, label: str, response) -> None:
        assert response.status_code < 500, f"{who} {label}: {response.status_code}"
        body = response.get_data()
        digest = hashlib.sha256(body).hexdigest()
        if response.mimetype != "text/html" or digest in self.digests:
            return
        self.digests.add(digest)
        name = f"{len(self.labels):04d}.html"
        (self.folder / name).write_bytes(body)
        self.labels[name] = f"{who} {label} ({response.status_code})"


class Crawl:
    """The pages the logins of one role reach.

    Each login starts from its own pages; beyond them a role visits a few URLs of
    each route shape and submits each kind of form once, whichever login finds it.
    """

    def __init__(self, pages: Pages) -> None:
        self.pages = pages
        self.shapes: dict[str, int] = defaultdict(int)
        self.forms: dict[tuple[str, str], tuple[str, dict[str, str]]] = {}
        self.sent: set[tuple[str, str]] = set()

    def walk(self, client: FlaskClient, who: str, starts: list[str]) -> None:
        """Visit `starts`, then the links they lead to within this role's budget."""
        queue = list(starts)
        seen: set[str] = set()
        while queue:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            self.pages.urls.add(url)
            response = client.get(url)
            if response.status_code in (301, 302, 303):
                queue.insert(0, urljoin(url, response.headers["Location"]))
                continue
            self.pages.save(who, f"GET {url}", response)
            if response.mimetype != "text/html":
                continue
            page = _Page()
            page.feed(response.get_data(as_text=True))
            for href in page.links:
                target = urljoin(url, href.split("#")[0])
                parts = urlsplit(target)
                if parts.netloc or not _is_page(parts.path) or target in seen:
                    continue
                shape = _shape(parts.path) + ("?" if parts.query else "")
                if self.shapes[shape] >= PER_SHAPE:
                    continue
                self.shapes[shape] += 1
                queue.append(target)
            for action, method, fields, visible in page.forms:
                target = urljoin(url, action or url).split("#")[0]
                # Forms of buttons alone act at once (delete, sign out): not pages.
                if visible and _is_page(urlsplit(target).path):
                    self.forms.setdefault((_shape(target), method), (target, fields))

    def submit_blank_forms(self, client: FlaskClient, who: str) -> None:
        """Send every form not sent yet with its fields blank, as if submitted at once."""
        for key, (target, fields) in sorted(self.forms.items()):
            if key in self.sent:
                continue
            self.sent.add(key)
            method = key[1]
            if method == "post":
                response = client.post(target, data=fields, follow_redirects=True)
            else:
                response = client.get(target, query_string=fields, follow_redirects=True)
            self.pages.save(who, f"{method.upper()} {target} blank", response)


def _unsubscribe_link(db: Session, logins: list[tuple[str, str, str]], key: str) -> str:
    """Return the path of a demo manager's weekly digest unsubscribe link."""
    email = next(email for role, email, _ in logins if role == "manager")
    person = find_engineer(db, email)
    assert person is not None
    return f"{UNSUBSCRIBE_PATH}/{unsubscribe_token(key, person.id)}"


def _endpoint(urls: MapAdapter, url: str) -> str | None:
    """Return the endpoint a GET of `url` reaches, None for the error pages."""
    try:
        return str(urls.match(urlsplit(url).path, method="GET")[0])
    except HTTPException:
        return None


@pytest.mark.skipif(JAVA is None, reason="java not found: the Nu HTML check is skipped")
@pytest.mark.skipif(
    not VNU_JAR.exists(),
    reason=f"{VNU_JAR} not found (npm install --no-save vnu-jar@26.9): Nu HTML check skipped",
)
def test_every_page_of_the_demo_organisation_is_valid_html(
    app: Flask, db: Session, tmp_path: Path
) -> None:
    app.config["TODAY"] = TODAY
    pages = Pages(tmp_path)
    try:
        logins = build_demo(db, TODAY, secret_key=app.config["SECRET_KEY"])
        factories.things_to_confirm(db, TODAY, secret_key=app.config["SECRET_KEY"])
        db.flush()
        visitor = app.test_client()
        anonymous = Crawl(pages)
        # A weekly digest's unsubscribe link (no page links one: it comes by mail), a
        # tampered one, and what its button's POST answers.
        unsubscribe = _unsubscribe_link(db, logins, app.config["SECRET_KEY"])
        starts = [unsubscribe, f"{UNSUBSCRIBE_PATH}/tampered", "/", "/login", "/no-such-page"]
        anonymous.walk(visitor, "anonymous", starts)
        wrong = {"email": "nobody@example.com", "password": "wrong"}
        pages.save("anonymous", "POST /login wrong password", visitor.post("/login", data=wrong))
        pages.save("anonymous", "POST unsubscribe, no body", visitor.post(unsubscribe))
        pages.save("anonymous", "POST unsubscribe", visitor.post(unsubscribe, data=ONE_CLICK))
        pages.save("anonymous", "GET unsubscribe, off", visitor.get(unsubscribe))
        anonymous.submit_blank_forms(visitor, "anonymous")
        roles: dict[str, Crawl] = {}
        for role, email, _ in logins:
            crawl = roles.setdefault(role, Crawl(pages))
            person = find_engineer(db, email)
            assert person is not None
            report = db.scalar(select(Engineer.id).where(Engineer.manager_id == person.id))
            client = app.test_client()
            who = email.split("@")[0]
            client.post("/login", data={"email": email, "password": DEMO_PASSWORD})
            if role == "admin":
                # The second step: its page, refusing a blank code, then the app's code.
                crawl.walk(client, who, [TOTP_STEP])
                crawl.submit_blank_forms(client, who)
                pass_second_step(client, email)
                # A person changed since their page was drawn: the form back, naming what.
                changed = {"name": "Renamed", "version": "another"}
                edit = client.post(f"/admin/people/{person.id}", data=changed)
                assert edit.status_code == 409
                pages.save(who, "POST /admin/people/<id> changed since drawn", edit)
            # Each person's own pages differ with their progress; the rest by role.
            # No page links a progress page (/engineers/<id>) yet: start from them.
            own = [
                *OWN_PAGES,
                f"/engineers/{person.id}",
                *([f"/engineers/{report}"] * bool(report)),
            ]
            if role == "admin":
                # A departed person's page offers the erasure; the people list links
                # more person pages than a shape's budget.
                departed = find_engineer(db, "dora.departed@example.com")
                assert departed is not None
                own.append(f"/admin/people/{departed.id}")
            crawl.walk(client, who, [*own, "/admin/", "/no-such-page"])
            pages.save(who, "GET /logout", client.get("/logout"))  # 405
            crawl.submit_blank_forms(client, who)
            if role == "engineer":
                # A form drawn for another sign-in: the page handing back what it held.
                app.config["WTF_CSRF_ENABLED"] = True
                stale = {"hours": "2", "note": "lab", "csrf_token": "stale"}
                try:
                    pages.save(who, "POST /hours stale token", client.post("/hours", data=stale))
                finally:
                    app.config["WTF_CSRF_ENABLED"] = False
        # An admin's first sign-in sets up an app: the QR code, then the recovery codes.
        newcomer = factories.engineer(db, access_role="admin")
        client = app.test_client()
        post_login(client, newcomer.email)
        setup = Crawl(pages)
        setup.walk(client, "new admin", [TOTP_SETUP])
        setup.submit_blank_forms(client, "new admin")
        pages.save("new admin", f"POST {TOTP_SETUP}", pass_second_step(client, newcomer.email))
    finally:
        app.config.pop("TODAY", None)

    # Every page of the app is among them: a route no link reaches would go unchecked.
    urls = app.url_map.bind("localhost")
    reached = {_endpoint(urls, url) for url in pages.urls}
    routes = {
        rule.endpoint
        for rule in app.url_map.iter_rules()
        if "GET" in (rule.methods or ()) and _is_page(rule.rule) and rule.endpoint != "static"
    }
    unreached = routes - reached - set(CHECKED_ELSEWHERE)
    assert not unreached, f"pages no crawl reached: {sorted(unreached)}"

    messages = validate(tmp_path, sorted(pages.labels))
    # "non-document-error": a page the checker could not read.
    errors = grouped((m for m in messages if m.get("type") != "info"), pages.labels)
    warnings = grouped((m for m in messages if m.get("type") == "info"), pages.labels)
    print(f"{len(pages.labels)} pages checked; warnings:\n{warnings}")
    assert not errors, f"{len(pages.labels)} pages checked; errors:\n{errors}"
