"""The demo organisation in Spanish: every page each role reaches, read in a Spanish browser.

The crawl the axe tests run (crawling.py), with Chromium's language set to Spanish:
each page says `<html lang="es">` and shows none of the interface's English
phrases. Vendor course and exam titles and people's names stay as they are, so
the phrases are the interface's own words. The main pages are saved as
screenshots under test-artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.browser.crawling import (
    ROLES,
    START,
    Crawler,
    english_in,
    in_spanish,
    spills_on_a_phone,
    with_digest_link,
)

# The pages whose Spanish picture goes to test-artifacts/, by endpoint.
SCREENSHOTS = {
    "progress.dashboard",
    "progress.hours",
    "readiness.team",
    "readiness.organisation",
    "careers.engineer",
    "admin.people",
}


@pytest.fixture(scope="module")
def spanish(browser, server, digest_link) -> Iterator[Crawler]:
    crawler = Crawler(
        browser,
        server.url,
        check=in_spanish,
        roles=ROLES,
        locale="es-ES",
        starts=with_digest_link(digest_link),
    )
    try:
        yield crawler
    finally:
        crawler.close()


def test_the_sign_in_page_offers_both_languages_and_answers_the_browsers(spanish):
    page = spanish.signed_in("anonymous").page
    page.goto("/login")
    assert page.evaluate("() => document.documentElement.lang") == "es"
    assert page.get_by_role("button", name="Iniciar sesión").is_visible()
    assert page.get_by_role("button", name="English").is_visible()
    assert page.get_by_role("button", name="Español").is_visible()


@pytest.mark.parametrize("role", ROLES)
def test_every_page_a_role_reaches_is_in_spanish(spanish, role):
    crawl = spanish.crawl(role)
    problems = [p for visit in crawl.visits.values() for p in visit.problems]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
    assert len(crawl.visits) >= len(START[role])
    for key, visit in crawl.visits.items():
        if key.split("?")[0] in SCREENSHOTS:
            crawl.page.goto(visit.url)
            ARTIFACTS.mkdir(exist_ok=True)
            name = f"spanish-{role}-{key.split('?')[0]}.png"
            crawl.page.screenshot(path=str(ARTIFACTS / name), full_page=True)


@pytest.mark.parametrize("role", ROLES)
def test_no_spanish_page_spills_sideways_on_a_phone(spanish, role):
    """Spanish words are longer: a table that fits in English may not, and must scroll."""
    spilled = spills_on_a_phone(spanish.crawl(role))
    assert not spilled, "\n".join(spilled)


def test_the_phrase_check_finds_english(spanish):
    # The check itself must be able to fail: the English sign-in page fails it.
    assert english_in("Sign in with your Password") == ["Sign in", "Password"]
    assert english_in("Iniciar sesión · Contraseña") == []
