"""A served tracker issues an Open Badge; Digital Bazaar's verifier resolves its did:web over HTTP.

A real `tracker serve` on a SQLite file of its own, its public URL the one it listens
on (so its DID is did:web:127.0.0.1%3A<port>). The holder signs in and issues the badge
through the pages; the independent verifier fetches the DID document and the status
list from the server itself, before and after `tracker issuer revoke`. The public page
passes axe in Chromium where Chromium is installed.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import csrf_token
from tests.issuer import vc_node
from tests.live import LiveServer, free_port, run_tracker, start_server, tracker_env
from tracker.badges.services.ob3 import verify_ob3
from tracker.badges.services.verified import BadgeRefused
from tracker.db import make_engine
from tracker.issuer.models import IssuedCredential
from tracker.progress.models import Certification

pytestmark = pytest.mark.once

EMAIL = "grace@example.com"
TODAY = dt.datetime.now(dt.UTC).date()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str, int]]:
    vc_node.skip_without_node()
    folder: Path = tmp_path_factory.mktemp("issuer")
    port = free_port()
    database = f"sqlite:///{folder / 'tracker.db'}"
    env = tracker_env(
        database, TRACKER_BASE_URL=f"http://127.0.0.1:{port}", TRACKER_ISSUER_NAME="Example GPU Org"
    )
    run_tracker(env, "init")
    engine = make_engine(database)
    with Session(engine) as session:
        person = factories.engineer(session, email=EMAIL, name="Grace Hopper")
        credential = factories.internal_credential(
            session, "INT-FABRIC", "Internal fabric operations"
        )
        cert = Certification(
            engineer_id=person.id,
            credential_id=credential.id,
            earned_on=TODAY - dt.timedelta(days=30),
            expires_on=TODAY + dt.timedelta(days=700),
            evidence="passed the internal exam",
        )
        session.add(cert)
        session.commit()
        cert_id = cert.id
    engine.dispose()
    server = start_server(env, folder / "serve.log", port=port)
    try:
        yield server, database, cert_id
    finally:
        server.stop()


def fetch(url: str) -> bytes:
    response = requests.get(url, timeout=10)
    if response.status_code != 200:
        raise BadgeRefused(f"{url} answered {response.status_code}", "unreachable")
    return response.content


def _issue(server: LiveServer, cert_id: int) -> str:
    browser = requests.Session()
    login = browser.get(f"{server.url}/login", timeout=10).text
    data = {"email": EMAIL, "password": factories.PASSWORD, "csrf_token": csrf_token(login)}
    assert browser.post(f"{server.url}/login", data=data, timeout=10).status_code == 200
    page = browser.get(f"{server.url}/open-badges", timeout=10).text
    token = re.search(rf'name="share-{cert_id}-csrf_token"[^>]*value="([^"]+)"', page)
    assert token, page
    issued = browser.post(
        f"{server.url}/open-badges/certifications/{cert_id}/issue",
        data={f"share-{cert_id}-csrf_token": html.unescape(token.group(1))},
        timeout=10,
    )
    assert "The Open Badge is issued" in issued.text
    public = re.search(r'href="(/ob/[^"/]+)"', issued.text)
    assert public, issued.text
    return server.url + public.group(1)


def test_the_served_badge_verifies_independently_until_it_is_revoked(served):
    server, database, cert_id = served
    public = _issue(server, cert_id)
    text = fetch(f"{public}/credential.json").decode()
    credential = json.loads(text)
    assert credential["issuer"]["id"] == f"did:web:127.0.0.1%3A{server.url.rsplit(':', 1)[1]}"
    assert credential["issuer"]["name"] == "Example GPU Org"
    now = dt.datetime.now(dt.UTC)

    assert vc_node.verify(credential, now) == {"verified": True, "errors": [], "revoked": False}
    assert verify_ob3(text, [EMAIL], TODAY, fetch).recipient == EMAIL

    engine = make_engine(database)
    with Session(engine) as session:
        issued_id = session.scalars(select(IssuedCredential.id)).one()
    engine.dispose()
    assert "revoked" in server.tracker("issuer", "revoke", str(issued_id))

    assert vc_node.verify(credential, now)["revoked"] is True
    with pytest.raises(BadgeRefused) as refused:
        verify_ob3(text, [EMAIL], TODAY, fetch)
    assert refused.value.kind == "revoked"
    _in_own_thread(_axe, public)


def _in_own_thread(check, *args) -> None:
    """Run `check` in a thread of its own, raising what it raised.

    Playwright's sync API refuses to start in a thread whose asyncio loop runs, as the
    xdist worker's main thread may (the browser tests' shared Chromium, a served SMTP).
    """
    failures: list[BaseException] = []

    def run() -> None:
        try:
            check(*args)
        except BaseException as exc:  # handed to the test's thread below
            failures.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]


def _axe(url: str) -> None:
    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        return
    sync_api = pytest.importorskip("playwright.sync_api")
    from axe_playwright_python.base import AXE_SCRIPT

    from tests.browser.crawling import check

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for locale in ("en", "es"):
                context = browser.new_context(locale=locale)
                context.add_init_script(AXE_SCRIPT)
                page = context.new_page()
                response = page.goto(url)
                assert response is not None and response.status == 200
                visit = check(page, url, response.status)
                assert not visit.problems, visit.problems
                context.close()
        finally:
            browser.close()
